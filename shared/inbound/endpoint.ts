// The inbound endpoint (docs/api.md#inbound): the stored record, the management API's schemas and the view
// it shows. The URL key is stored only as a hash; the provider signing secret only sealed with the master key.
import { Type, type Static } from "typebox";
import { Depth, literalUnion, NextCursor, Scope, Timestamp } from "../schemas/common.js";
import { INBOUND_PROVIDERS, type InboundProvider } from "./catalog.js";

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
