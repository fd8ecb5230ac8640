// The curiosity queue's buckets: the items (source of truth for the API and the ticker) and the ticker's
// leader lease. Provisioned here, by the services that use them, not in shared/runtime.ts.
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { BucketSpec } from "../nats/catalog.js";
import { ensureBucket, type RequestTimeouts } from "../nats/provision.js";

export const CURIOSITY_BUCKETS = {
  /** One JSON CuriosityRecord per item, keyed by its `cur_` id. */
  items: { name: "inq_curiosity", history: 1, ttl: 0 },
  /**
   * The ticker leader lease (docs/nats.md#leader-election): whoever `create()`s the key leads and renews
   * it every ttl/3; the key expires `ttl` after its holder's last renewal.
   */
  leader: { name: "inq_ticker_leader", history: 1, ttl: 3_000 },
} satisfies Record<string, BucketSpec>;

export const LEADER_KEY = "ticker";

export async function openCuriosityItems(nc: NatsConnection, replicas: number, opts: RequestTimeouts = {}): Promise<KV> {
  return ensureBucket(nc, CURIOSITY_BUCKETS.items, replicas, opts);
}

export async function openTickerLease(nc: NatsConnection, replicas: number, opts: RequestTimeouts = {}): Promise<KV> {
  return ensureBucket(nc, CURIOSITY_BUCKETS.leader, replicas, opts);
}
