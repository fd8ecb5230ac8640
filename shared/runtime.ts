// What every service needs from NATS: the connection, JetStream, and the provisioned streams and buckets.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AgentRecord } from "./agents/record.js";
import type { ApiKeyRecord } from "./auth/keys.js";
import type { InvestigationRecord } from "./investigations/record.js";
import type { IdempotencyRecord } from "./investigations/trigger.js";
import { BUCKETS, STREAMS, type BucketSpec } from "./nats/catalog.js";
import { JsonKv } from "./nats/kvjson.js";
import { ensureBucket, ensureStream, patiently, type RequestTimeouts } from "./nats/provision.js";

export interface Runtime {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  buckets: Record<keyof typeof BUCKETS, KV>;
  apiKeys: JsonKv<ApiKeyRecord>;
  investigations: JsonKv<InvestigationRecord>;
  idempotency: JsonKv<IdempotencyRecord>;
  agents: JsonKv<AgentRecord>;
  /** How many copies of each stream and bucket (INQUEST_NATS_REPLICAS); capability stores provision with it too. */
  replicas: number;
}

/** Provisions every stream and bucket (idempotent; replicas may race) and opens them. */
/**
 * `requestTimeoutMs`: how long the runtime's JetStream calls (publishes, stream info, bucket reads and writes) wait
 * for an answer; the client's default, 5 s, when absent. Creating the streams keeps the default.
 */
export async function openRuntime(nc: NatsConnection, opts: { replicas: number } & RequestTimeouts): Promise<Runtime> {
  const { replicas, requestTimeoutMs } = opts;
  const timeout = requestTimeoutMs === undefined ? {} : { timeout: requestTimeoutMs };
  const provisioner = await patiently(() => jetstreamManager(nc));
  for (const spec of Object.values(STREAMS)) await ensureStream(provisioner, spec, replicas);
  const buckets = {} as Record<keyof typeof BUCKETS, KV>;
  for (const [name, spec] of Object.entries(BUCKETS) as Array<[keyof typeof BUCKETS, BucketSpec]>) {
    buckets[name] = await ensureBucket(nc, spec, replicas, { requestTimeoutMs });
  }
  return {
    nc,
    js: jetstream(nc, timeout),
    jsm: requestTimeoutMs === undefined ? provisioner : await patiently(() => jetstreamManager(nc, timeout)),
    buckets,
    apiKeys: new JsonKv(buckets.apiKeys),
    investigations: new JsonKv(buckets.investigations),
    idempotency: new JsonKv(buckets.idempotency),
    agents: new JsonKv(buckets.agents),
    replicas,
  };
}

/** The streams and buckets (as their streams) every service relies on; see nats/readiness.ts. */
export function coreStreams(): string[] {
  return [...Object.values(STREAMS).map((s) => s.name), ...Object.values(BUCKETS).map((b) => bucketStream(b.name))];
}

/** The stream behind a KV bucket. */
export const bucketStream = (bucket: string): string => `KV_${bucket}`;

/** Messages waiting in the investigation work queue (the trigger's backlog limit). */
export async function workBacklog(rt: Runtime): Promise<number> {
  const info = await rt.jsm.streams.info(STREAMS.work.name);
  return info.state.messages;
}
