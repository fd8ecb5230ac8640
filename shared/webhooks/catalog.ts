// Outbound webhooks on NATS: the subscription and delivery buckets, the delivery-job stream and the two
// durable consumers of the dispatcher. Provisioned (idempotently; replicas may race) by the services that
// use them: the gateway (API) and the dispatcher (fan-out and sending).
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Type, type Static } from "typebox";
import { STREAMS, type BucketSpec, type StreamSpec } from "../nats/catalog.js";
import { JsonKv } from "../nats/kvjson.js";
import { ensureBucket, ensureStream } from "../nats/provision.js";
import { EventEnvelope } from "../schemas/events.js";
import type { DeliveryRecord } from "./delivery-record.js";
import type { RecoveryRecord } from "./recovery.js";
import type { SubscriptionRecord } from "./subscription.js";

const SECOND_NS = 1_000_000_000;
const DAY_MS = 86_400_000;

/** Deliveries are retained 30 days (docs/api.md#deliveries): the bucket's TTL counts from a record's last write. */
export const DELIVERY_RETENTION_MS = 30 * DAY_MS;

export const WEBHOOK_BUCKETS = {
  /** Subscription id -> SubscriptionRecord (secret sealed with the master key). */
  subscriptions: { name: "inq_webhook_subscriptions", history: 1, ttl: 0 },
  /** Delivery id -> DeliveryRecord (with the envelope it sends). */
  deliveries: { name: "inq_webhook_deliveries", history: 1, ttl: DELIVERY_RETENTION_MS },
  /** `<subscription id>.<unix second>` -> POSTs started in that second (rate-limited subscriptions only). */
  rates: { name: "inq_webhook_rates", history: 1, ttl: 60_000 },
  /** Recovery id -> RecoveryRecord (a bulk re-send job and its progress), kept 30 days from its last write. */
  recoveries: { name: "inq_webhook_recoveries", history: 1, ttl: DELIVERY_RETENTION_MS },
} satisfies Record<string, BucketSpec>;

export const WEBHOOK_STREAMS = {
  /**
   * One job per delivery (`{delivery_id, subscription_id, seed}`, message id = delivery id), published before
   * the delivery record and carrying what the record is made of (after it, for a delivery still pending after the
   * fan-out's first attempt: `recordFirstAttempt`); none for a delivery the fan-out's first attempt finished. The retry schedule is JetStream redelivery
   * (`nak(delay)`); a job is acked or terminated when its delivery is terminal.
   */
  jobs: {
    name: "INQ_WEBHOOK_JOBS",
    description: "Outbound webhook delivery jobs",
    subjects: ["outbound.deliveries.*"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_age: 30 * 86_400 * SECOND_NS,
    // A fan-out redelivered within this window republishes a job that is stored once.
    duplicate_window: 600 * SECOND_NS,
  },
  /** One message per recovery run (`{recovery_id, run}`, message id `<recovery id>.<run>`), worked by a dispatcher. */
  recoveries: {
    name: "INQ_WEBHOOK_RECOVERIES",
    description: "Bulk recovery jobs of outbound webhook subscriptions",
    subjects: ["outbound.recoveries"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_age: 30 * 86_400 * SECOND_NS,
    duplicate_window: 600 * SECOND_NS,
  },
} satisfies Record<string, StreamSpec>;

export const WEBHOOK_SUBJECTS = {
  job: (subscriptionId: string) => `outbound.deliveries.${subscriptionId}`,
  recovery: "outbound.recoveries",
};

export const WEBHOOK_CONSUMERS = {
  /** Reads every event envelope and creates the deliveries it calls for. */
  fanout: { stream: STREAMS.events.name, durable: "dispatcher-fanout", filter: "events.>" },
  /** Sends the deliveries. */
  deliveries: { stream: WEBHOOK_STREAMS.jobs.name, durable: "dispatcher-deliveries" },
  /** Runs the bulk recoveries. */
  recoveries: { stream: WEBHOOK_STREAMS.recoveries.name, durable: "dispatcher-recoveries" },
};

/** What a job carries to create its delivery record when the record is not there yet (see `enqueueDelivery`). */
export const DeliverySeed = Type.Object({
  envelope: EventEnvelope,
  created_at: Type.String(),
  replay_of: Type.Union([Type.String(), Type.Null()]),
});
export type DeliverySeed = Static<typeof DeliverySeed>;

/**
 * The job a resumed subscription's held job is published again as (services/dispatcher/resume.ts): the held job's
 * stream sequence and the attempts its delivery had then. The copy takes the delivery over only if that job still
 * owns it (or none does) and has made no attempt since.
 */
export const ResumedFrom = Type.Object({ seq: Type.Integer({ minimum: 1 }), attempts: Type.Integer({ minimum: 0 }) });
export type ResumedFrom = Static<typeof ResumedFrom>;

/** `seed` is absent only in jobs published before jobs carried it; `resumes` only in a resumed copy. */
export const DeliveryJob = Type.Object({
  delivery_id: Type.String(),
  subscription_id: Type.String(),
  seed: Type.Optional(DeliverySeed),
  resumes: Type.Optional(ResumedFrom),
});
export type DeliveryJob = Static<typeof DeliveryJob>;

export interface WebhookStores {
  js: JetStreamClient;
  subscriptionsKv: KV;
  deliveriesKv: KV;
  ratesKv: KV;
  recoveries: JsonKv<RecoveryRecord>;
  subscriptions: JsonKv<SubscriptionRecord>;
  deliveries: JsonKv<DeliveryRecord>;
}

/** Provisions and opens the outbound-webhook stream and buckets. */
export async function openWebhookStores(nc: NatsConnection, jsm: JetStreamManager, js: JetStreamClient, replicas: number): Promise<WebhookStores> {
  for (const spec of Object.values(WEBHOOK_STREAMS)) await ensureStream(jsm, spec, replicas);
  const subscriptionsKv = await ensureBucket(nc, WEBHOOK_BUCKETS.subscriptions, replicas);
  const deliveriesKv = await ensureBucket(nc, WEBHOOK_BUCKETS.deliveries, replicas);
  const ratesKv = await ensureBucket(nc, WEBHOOK_BUCKETS.rates, replicas);
  const recoveriesKv = await ensureBucket(nc, WEBHOOK_BUCKETS.recoveries, replicas);
  return {
    js,
    subscriptionsKv,
    deliveriesKv,
    ratesKv,
    recoveries: new JsonKv<RecoveryRecord>(recoveriesKv),
    subscriptions: new JsonKv<SubscriptionRecord>(subscriptionsKv),
    deliveries: new JsonKv<DeliveryRecord>(deliveriesKv),
  };
}
