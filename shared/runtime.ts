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
import { ensureBucket, ensureStream } from "./nats/provision.js";

export interface Runtime {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  buckets: Record<keyof typeof BUCKETS, KV>;
  apiKeys: JsonKv<ApiKeyRecord>;
  investigations: JsonKv<InvestigationRecord>;
  idempotency: JsonKv<IdempotencyRecord>;
  agents: JsonKv<AgentRecord>;
}

/** Provisions every stream and bucket (idempotent; replicas may race) and opens them. */
export async function openRuntime(nc: NatsConnection): Promise<Runtime> {
  const jsm = await jetstreamManager(nc);
  for (const spec of Object.values(STREAMS)) await ensureStream(jsm, spec);
  const buckets = {} as Record<keyof typeof BUCKETS, KV>;
  for (const [name, spec] of Object.entries(BUCKETS) as Array<[keyof typeof BUCKETS, BucketSpec]>) {
    buckets[name] = await ensureBucket(nc, spec);
  }
  return {
    nc,
    js: jetstream(nc),
    jsm,
    buckets,
    apiKeys: new JsonKv(buckets.apiKeys),
    investigations: new JsonKv(buckets.investigations),
    idempotency: new JsonKv(buckets.idempotency),
    agents: new JsonKv(buckets.agents),
  };
}

/** Whether the streams and buckets this runtime relies on still exist (readiness). */
export async function checkRuntime(rt: Runtime): Promise<{ ok: boolean; reason?: string }> {
  if (rt.nc.isClosed()) return { ok: false, reason: "NATS connection closed" };
  try {
    for (const spec of Object.values(STREAMS)) await rt.jsm.streams.info(spec.name);
    for (const kv of Object.values(rt.buckets)) await kv.status();
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Messages waiting in the investigation work queue (the trigger's backlog limit). */
export async function workBacklog(rt: Runtime): Promise<number> {
  const info = await rt.jsm.streams.info(STREAMS.work.name);
  return info.state.messages;
}
