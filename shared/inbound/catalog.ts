// Inbound webhooks on NATS: the endpoint bucket, the receipt log (docs/api.md#inbound-receipts), the
// once-only signature claims (docs/api.md#inbound-replay-protection) and the provider names the receiver URL
// accepts (docs/api.md#inbound). The gateway provisions them and answers receipts itself (shared/inbound/receive.ts).
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { BucketSpec, StreamSpec } from "../nats/catalog.js";
import { ensureBucket, ensureStream, patiently } from "../nats/provision.js";

export const INBOUND_PROVIDERS = ["generic", "edr", "ci"] as const;
export type InboundProvider = (typeof INBOUND_PROVIDERS)[number];

export function isInboundProvider(value: string): value is InboundProvider {
  return (INBOUND_PROVIDERS as readonly string[]).includes(value);
}

/** How long a receipt and its body are kept. */
export const RECEIPT_RETENTION_MS = 7 * 86_400_000;
/** The EDR signature window is ±300 s around now; a claim outlives the whole window, with a minute to spare. */
export const SIGNATURE_CLAIM_MS = 11 * 60_000;

export const INBOUND_BUCKETS = {
  /** `ep.<url_key_prefix>` -> endpoint record; `id.<endpoint id>` -> `{url_key_prefix}` (DELETE by id). */
  endpoints: { name: "inq_inbound_endpoints", history: 1, ttl: 0 },
  /** `<receipt id>` -> receipt record (no body), kept 7 days. */
  receipts: { name: "inq_inbound_receipts", history: 1, ttl: RECEIPT_RETENTION_MS },
  /** `<sha256 of endpoint id and signature headers>` -> `{receipt_id, state: pending|answered}`: a signature accepted once. */
  signatures: { name: "inq_inbound_signatures", history: 1, ttl: SIGNATURE_CLAIM_MS },
} satisfies Record<string, BucketSpec>;

export const INBOUND_STREAMS = {
  /** `inbound.bodies.<receipt id>`: the sealed request (headers the providers read + body), kept 7 days. */
  bodies: {
    name: "INQ_INBOUND_BODIES",
    description: "Sealed inbound request bodies, one message per receipt",
    subjects: ["inbound.bodies.*"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: RECEIPT_RETENTION_MS * 1_000_000,
    duplicate_window: 120 * 1_000_000_000,
  },
} satisfies Record<string, StreamSpec>;

export const bodySubject = (receiptId: string): string => `inbound.bodies.${receiptId}`;

/** The receiver's body limit (docs/api.md#http). */
export const INBOUND_BODY_LIMIT = 1024 * 1024;

export interface InboundBuckets {
  endpoints: KV;
  receipts: KV;
  signatures: KV;
}

/** Provisions (idempotently; replicas may race) and opens the inbound buckets and the body stream. */
export async function openInboundBuckets(nc: NatsConnection, replicas: number): Promise<InboundBuckets> {
  await ensureStream(await patiently(() => jetstreamManager(nc)), INBOUND_STREAMS.bodies, replicas);
  return {
    endpoints: await ensureBucket(nc, INBOUND_BUCKETS.endpoints, replicas),
    receipts: await ensureBucket(nc, INBOUND_BUCKETS.receipts, replicas),
    signatures: await ensureBucket(nc, INBOUND_BUCKETS.signatures, replicas),
  };
}
