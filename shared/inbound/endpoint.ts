// The inbound endpoint (docs/api.md#inbound): the stored record, the management API's schemas and the view
// it shows. The URL key is stored only as a hash; the provider signing secret only sealed with the master key.
import { Type, type Static } from "typebox";
import { Depth, literalUnion, NextCursor, Scope, Timestamp } from "../schemas/common.js";
import { INBOUND_PROVIDERS, type InboundProvider } from "./catalog.js";
import { MAX_QUERY_CHARS } from "./providers/payload.js";
import { triggerSource } from "./providers/registry.js";
import { MAX_TRIGGER_BYTES, triggerBytes } from "../investigations/trigger-bounds.js";
import type { ValidationDetail } from "../validate.js";

export interface InboundEndpointRecord {
  id: string;
  provider: InboundProvider;
  /** null = every agent. */
  default_scope: Scope | null;
  default_depth: Depth;
  active: boolean;
  /** `whk_<8 alphanumerics>`: finds the record; shown in reads. */
  url_key_prefix: string;
  /** SHA-256 hex of the whole URL key (shared/secrets.ts hashToken). */
  url_key_hash: string;
  /** `encryptSecret(master key, provider_signing_secret)`, or null when the endpoint has none. */
  signing_secret_sealed: string | null;
  created_at: string;
}

export const InboundProviderSchema = literalUnion(INBOUND_PROVIDERS, "Where the events come from: generic, edr (CrowdStrike-style) or ci (GitHub-compatible).");

export const CreateEndpointRequest = Type.Object(
  {
    provider: InboundProviderSchema,
    provider_signing_secret: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: "Secret the provider signs its deliveries with; enables signature checks (edr, ci)." }),
    ),
    default_scope: Type.Optional(Type.Union([Scope, Type.Null()], { description: "Scope used when an event carries none; absent or null = every agent." })),
    default_depth: Type.Optional(Depth),
    active: Type.Optional(Type.Boolean({ description: "Default true; an inactive endpoint answers 202 ignored." })),
  },
  { additionalProperties: false },
);
export type CreateEndpointRequest = Static<typeof CreateEndpointRequest>;

const EndpointFields = {
  id: Type.String(),
  provider: InboundProviderSchema,
  default_scope: Type.Union([Scope, Type.Null()]),
  default_depth: Depth,
  active: Type.Boolean(),
  url_key_prefix: Type.String({ description: "The only part of the URL secret shown after creation." }),
  created_at: Timestamp,
  has_signing_secret: Type.Boolean(),
};

export const EndpointView = Type.Object(EndpointFields);
export type EndpointView = Static<typeof EndpointView>;

export const EndpointCreated = Type.Object({
  ...EndpointFields,
  url: Type.String({ description: "The full receiver URL including the URL secret; returned exactly once." }),
});

export const EndpointList = Type.Object({ endpoints: Type.Array(EndpointView), next_cursor: NextCursor });

export function endpointView(r: InboundEndpointRecord): EndpointView {
  return {
    id: r.id,
    provider: r.provider,
    default_scope: r.default_scope,
    default_depth: r.default_depth,
    active: r.active,
    url_key_prefix: r.url_key_prefix,
    created_at: r.created_at,
    has_signing_secret: r.signing_secret_sealed !== null,
  };
}

/** `<public url>/v1/webhooks/incoming/<provider>/<key>`. */
export function receiverUrl(publicUrl: string, provider: InboundProvider, key: string): string {
  return `${publicUrl}/v1/webhooks/incoming/${provider}/${key}`;
}

/** The longest trigger id the providers keep of an event (generic's idempotency_key, edr's composite_id). */
const MAX_INBOUND_TRIGGER_ID_CHARS = 255;

/**
 * Why an endpoint with this default scope could not trigger an ordinary alert (trigger-bounds.ts), or null. Every
 * alert that falls back to the default scope stores it with its own question and context, so a scope that leaves
 * no room for a question at the contract's 2,000 characters and the longest trigger id would make each of them a
 * 400: it is refused when the endpoint is created instead. What an alert adds beyond that (its seeds, control
 * characters in its text) is still its own to answer for.
 */
export function defaultScopeTooLarge(provider: InboundProvider, scope: Scope | null): ValidationDetail | null {
  if (scope === null) return null;
  const bytes = triggerBytes({
    query: "q".repeat(MAX_QUERY_CHARS),
    scope,
    context: { trigger_source: triggerSource(provider), trigger_id: "t".repeat(MAX_INBOUND_TRIGGER_ID_CHARS), curiosity_id: null, inbound_endpoint_id: `iep_${"0".repeat(26)}` },
  });
  if (bytes <= MAX_TRIGGER_BYTES) return null;
  const scopeBytes = Buffer.byteLength(JSON.stringify(scope));
  return {
    path: "/default_scope",
    message:
      `the default scope takes ${scopeBytes} bytes as stored (JSON, where a control character takes 6); with an alert's question ` +
      `(${MAX_QUERY_CHARS} characters) and context that is ${bytes} bytes, over the ${MAX_TRIGGER_BYTES} a trigger may store`,
  };
}
