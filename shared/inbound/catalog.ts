// Inbound webhooks on NATS: the endpoint bucket and the provider names the receiver URL accepts (docs/api.md#inbound).
// The gateway provisions the bucket and answers receipts itself (shared/inbound/receive.ts).
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { BucketSpec } from "../nats/catalog.js";
import { ensureBucket } from "../nats/provision.js";

export const INBOUND_PROVIDERS = ["generic", "edr", "ci"] as const;
export type InboundProvider = (typeof INBOUND_PROVIDERS)[number];

export function isInboundProvider(value: string): value is InboundProvider {
  return (INBOUND_PROVIDERS as readonly string[]).includes(value);
}

export const INBOUND_BUCKETS = {
  /** `ep.<url_key_prefix>` -> endpoint record; `id.<endpoint id>` -> `{url_key_prefix}` (DELETE by id). */
  endpoints: { name: "inq_inbound_endpoints", history: 1, ttl: 0 },
} satisfies Record<string, BucketSpec>;

/** The receiver's body limit (docs/api.md#http). */
export const INBOUND_BODY_LIMIT = 1024 * 1024;

export interface InboundBuckets {
  endpoints: KV;
}

/** Provisions (idempotently; replicas may race) and opens the inbound buckets. */
export async function openInboundBuckets(nc: NatsConnection, replicas: number): Promise<InboundBuckets> {
  return {
    endpoints: await ensureBucket(nc, INBOUND_BUCKETS.endpoints, replicas),
  };
}
