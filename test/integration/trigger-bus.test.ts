// What a trigger answers when the bus fails under it, against real nats-servers: "nothing was changed" only
// when nothing was queued; "unknown" when the work publish got no acknowledgement; and queued (not an error)
// when the work was acknowledged but the record create failed, since the work message carries the record and
// the runner writes it.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import type { Clock } from "../../shared/clock.js";
import { BusUnavailableError } from "../../shared/errors.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { triggerInvestigation, workMessage, type IdempotencyRecord, type TriggerDeps, type TriggerInput } from "../../shared/investigations/trigger.js";
import { BUCKETS, STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { decodeJson, encodeJson, JsonKv } from "../../shared/nats/kvjson.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { testTriggerDeps } from "../helpers/trigger.js";

let server: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
const clock: Clock = { now: () => Date.now() };

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
  rt = await openRuntime(nc, { replicas: 1 });
});

const deps = (overrides: Partial<TriggerDeps> = {}): TriggerDeps => testTriggerDeps(rt, clock, overrides);

const input = (over: Partial<TriggerInput> = {}): TriggerInput => ({
  request: { query: "any cryptominers?", mode: "live" },
  idempotencyScope: "key_test",
  ownerKeyId: "key_test",
  context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
  ...over,
});

/** A bucket handle whose connection is closed: every operation on it fails as the bus does. */
async function closedBucket<T>(name: string): Promise<JsonKv<T>> {
  const c = await connect({ servers: server.url });
  const kv = await new Kvm(c).open(name);
  await c.close();
  return new JsonKv<T>(kv);
}

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  return null;
}

test("the work is acknowledged and the record create fails: queued, and the queued message carries the record", async (t) => {
  const outcome = await triggerInvestigation(deps({ investigations: await closedBucket<InvestigationRecord>(BUCKETS.investigations.name) }), input());
  t.equal(outcome.kind, "queued", "a 202, not a 503 saying nothing was changed");
  const id = outcome.kind === "queued" ? outcome.investigationId : "";
  t.equal(await rt.investigations.get(id), null, "the record is not written yet");
  const stored = await rt.jsm.streams.getMessage(STREAMS.work.name, { last_by_subj: SUBJECTS.work });
  const work = stored ? decodeJson<{ investigation_id: string; record: InvestigationRecord }>(stored.data) : null;
  t.equal(work?.investigation_id, id, "the work is queued");
  t.equal(work?.record.investigation_id, id, "with the record the runner writes when it is missing");
});

test("a trigger's work message and its record in the bucket carry the same record, encoded once", async (t) => {
  const outcome = await triggerInvestigation(deps(), input({ request: { query: "any cryptominers on \u2192 hosts?", mode: "live" } }));
  const id = outcome.kind === "queued" ? outcome.investigationId : "";
  const entry = await rt.investigations.kv.get(id);
  const stored = await rt.jsm.streams.getMessage(STREAMS.work.name, { last_by_subj: SUBJECTS.work });
  const record = entry ? decodeJson<InvestigationRecord>(entry.value) : null;
  t.equal(record?.query, "any cryptominers on \u2192 hosts?");
  t.same(stored ? Buffer.from(stored.data) : null, Buffer.from(encodeJson({ investigation_id: id, record })), "the work message is {investigation_id, record}, byte for byte");
  t.same(workMessage("inv_x", encodeJson({ a: "é" })), encodeJson({ investigation_id: "inv_x", record: { a: "é" } }));
});

test("a bus failure before the work is published: nothing was changed", async (t) => {
  const idempotency = await closedBucket<IdempotencyRecord>(BUCKETS.idempotency.name);
  const before = (await rt.jsm.streams.info(STREAMS.work.name)).state.messages;
  const err = await thrown(() => triggerInvestigation(deps({ idempotency }), input({ idempotencyKey: "k1" })));
  t.ok(err instanceof BusUnavailableError, "a typed bus error");
  t.equal(err instanceof BusUnavailableError ? err.changed : null, "nothing");
  t.equal((await rt.jsm.streams.info(STREAMS.work.name)).state.messages, before, "no work queued");
});

test("no stream takes the work (no responders): nothing was changed", async (t) => {
  const bare = await startNats();
  const c = await connect({ servers: bare.url });
  const err = await thrown(() => triggerInvestigation(deps({ js: jetstream(c, { timeout: 2_000 }) }), input()));
  t.ok(err instanceof BusUnavailableError);
  t.equal(err instanceof BusUnavailableError ? err.changed : null, "nothing");
  const jsm = await jetstreamManager(c);
  const names: string[] = [];
  for await (const n of jsm.streams.names()) names.push(n);
  t.same(names, [], "the server stored nothing");
  await c.close();
  await bare.stop();
});

test("the work publish gets no acknowledgement (server gone): the outcome is unknown, not 'nothing was changed'", async (t) => {
  const other = await startNats();
  const c = await connect({ servers: other.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  await other.down();
  const err = await thrown(() => triggerInvestigation(deps({ js: jetstream(c, { timeout: 300 }) }), input()));
  t.ok(err instanceof BusUnavailableError);
  t.equal(err instanceof BusUnavailableError ? err.changed : null, "unknown");
  await c.close();
  await other.stop();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
