// Inbound webhooks on NATS: the endpoint bucket, the body spill bucket, the gateway -> ingestor subject and
// the provider names the receiver URL accepts (CONTRACT §6). Provisioned by the services that use them.
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
  /** Bodies too big for one NATS message, in chunks, until the ingestor has read them. */
  spill: { name: "inq_inbound_spill", history: 1, ttl: 5 * 60_000 },
} satisfies Record<string, BucketSpec>;

/** Internal request/reply subject; every ingestor replica joins the queue group, one answers each receipt. */
export const INBOUND_SUBJECT = "inbound.receive";
export const INBOUND_QUEUE = "ingestor";

/** The receiver's body limit (CONTRACT §2). */
export const INBOUND_BODY_LIMIT = 1024 * 1024;

/** How long the gateway waits for an ingestor's answer before it answers 503. */
export const INBOUND_REQUEST_TIMEOUT_MS = 10_000;

export interface InboundBuckets {
  endpoints: KV;
  spill: KV;
}

/** Provisions (idempotently; replicas may race) and opens the inbound buckets. */
export async function openInboundBuckets(nc: NatsConnection, replicas: number): Promise<InboundBuckets> {
  return {
    endpoints: await ensureBucket(nc, INBOUND_BUCKETS.endpoints, replicas),
    spill: await ensureBucket(nc, INBOUND_BUCKETS.spill, replicas),
  };
}
