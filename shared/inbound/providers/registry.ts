// Every inbound provider, keyed by the name used in `/v1/webhooks/incoming/<provider>/<key>`.
// Adding a provider: write `<name>.ts` exporting a `Provider`, add its name to `ProviderName` (types.ts) and one
// line below; the compiler then points at every place that must handle it.

import { ciProvider } from "./ci.js";
import { edrProvider } from "./edr.js";
import { genericProvider } from "./generic.js";
import type { Provider, ProviderName } from "./types.js";

const PROVIDERS: { readonly [K in ProviderName]: Provider<K> } = {
  generic: genericProvider,
  edr: edrProvider,
  ci: ciProvider,
};

/** Exhaustiveness, checked by the compiler: a name of the union that is not registered is an error here. */
type Unregistered = Exclude<ProviderName, keyof typeof PROVIDERS>;
const everyNameRegistered: [Unregistered] extends [never] ? true : never = true;
void everyNameRegistered;

export const PROVIDER_NAMES: readonly ProviderName[] = Object.freeze(Object.keys(PROVIDERS) as ProviderName[]);

export function isProviderName(value: string): value is ProviderName {
  return Object.hasOwn(PROVIDERS, value);
}

export function getProvider(name: ProviderName): Provider {
  return PROVIDERS[name];
}

/** The provider for a URL segment, or null (the receiver answers 404). */
export function lookupProvider(name: string): Provider | null {
  return isProviderName(name) ? PROVIDERS[name] : null;
}

/** `context.trigger_source` of investigations this provider triggers. */
export function triggerSource(name: ProviderName): `inbound:${ProviderName}` {
  return `inbound:${name}`;
}
