// The dispatcher's job logic against a real nats-server (KV records, the jobs stream) with an injected clock
// and a fake far side (`send`): the 5-attempt schedule of docs/api.md#deliveries with the real default delays, attempts that
// are never spent while paused, deletion, a crash-redelivered job that waits for its time, and job ownership;
// jobs published before their records (nothing strands a pending record), an unreadable secret, and the pool
// keeping messages that wait for a slot alive.
import { AckPolicy, jetstream, jetstreamManager, StorageType, type JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { PooledConsumer, workingIntervalFor } from "../../shared/nats/pooled-consumer.js";
import { DELIVERY_RETENTION_MS, openWebhookStores, WEBHOOK_STREAMS, WEBHOOK_SUBJECTS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryJob, enqueueDelivery, newDeliveryRecord, recordFromJob, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { replayDelivery, sendTestDelivery, type ManageDeps } from "../../shared/webhooks/manage.js";
import type { TargetCheck } from "../../shared/webhooks/targets.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { deliverJob, MISSING_RECORD_DELIVERIES, MISSING_RECORD_RETRY_MS, type DeliverDeps, type Job } from "../../services/dispatcher/deliver.js";
import { jobFromMessage } from "../../services/dispatcher/delivery-consumer.js";
import type { OutboundRequest } from "../../services/dispatcher/sender.js";
import { SubscriptionCache } from "../../services/dispatcher/subscription-cache.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent } from "../helpers/webhooks.js";

const DEFAULT_DELAYS = [30_000, 120_000, 600_000, 3_600_000]; // docs/api.md#deliveries
const masterKey = Buffer.alloc(32, 7);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;
let n = 0;

test("setup", async () => {
  server = await startNats();
  nc = await connectTo(server.url);
  stores = await openWebhookStores(nc, await jetstreamManager(nc), jetstream(nc), 1);
});

interface Harness {
  deps: DeliverDeps;
  sent: OutboundRequest[];
  subs: Map<string, SubscriptionRecord>;
  clock: { t: number };
  sub: SubscriptionRecord;
  record: DeliveryRecord;
  answers: AttemptResult[];
}

async function harness(): Promise<Harness> {
  const clock = { t: Date.parse("2026-11-22T10:00:00.000Z") + n * 1000 };
  const sub = newSubscription(`sub_TEST${String(n++).padStart(22, "0")}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(masterKey, newWebhookSecret()), clock.t);
  const subs = new Map([[sub.id, sub]]);
  const record = newDeliveryRecord({ deliveryId: `dlv_TEST${String(n++).padStart(22, "0")}`, subscriptionId: sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: clock.t });
  await stores.deliveries.create(record.delivery_id, record);
  const sent: OutboundRequest[] = [];
  const answers: AttemptResult[] = [];
  const h: Harness = {
    sent,
    subs,
    clock,
    sub,
    record,
    answers,
    deps: {
      deliveries: stores.deliveries,
      subscription: async (id) => subs.get(id) ?? null,
      secretOf: () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      send: async (req) => {
        sent.push(req);
        clock.t += 40; // the attempt takes 40 ms
        return answers.shift() ?? { kind: "response", status: 500, body: "down", durationMs: 40 };
      },
      clock: { now: () => clock.t },
      log,
      retryDelaysMs: DEFAULT_DELAYS,
      timeoutMs: 10_000,
      pausedRecheckMs: 2_000,
      pausedRecheckMaxMs: 60_000,
      userAgent: "Inquest-Webhooks/test",
    },
  };
  return h;
}

/** A job as the consumer hands it over: first delivery, no seed unless given. */
const job = (deliveryId: string, seq: number, more: Partial<Job> = {}): Job => ({ deliveryId, seq, deliveryCount: 1, seed: null, ...more });

const current = async (h: Harness): Promise<DeliveryRecord> => (await stores.deliveries.get(h.record.delivery_id))?.value as DeliveryRecord;

test("the default schedule: immediate, 30s, 2m, 10m, 1h, then failed_permanent and term", async (t) => {
  const h = await harness();
  const j = job(h.record.delivery_id, 1);
  const actions = [];
  for (let i = 0; i < 5; i++) {
    const action = await deliverJob(h.deps, j);
    actions.push(action);
    const r = await current(h);
    if (action.kind === "nak") {
      // JetStream redelivers after the delay; the fake clock jumps there.
      t.equal(Date.parse(r.next_attempt_at as string), h.clock.t + action.delayMs, "next_attempt_at is when the job comes back");
      h.clock.t += action.delayMs;
    }
  }
  t.same(actions.map((a) => (a.kind === "nak" ? a.delayMs : a.kind)), [30_000, 120_000, 600_000, 3_600_000, "term"]);
  const r = await current(h);
  t.equal(r.status, "failed_permanent");
  t.equal(r.attempt_count, 5);
  t.equal(r.next_attempt_at, null);
  const at = r.attempts.map((a) => Date.parse(a.at));
  t.same(at.slice(1).map((x, i) => x - (at[i] as number)), DEFAULT_DELAYS.map((d) => d + 40), "each attempt starts its delay after the previous one ended");
  t.equal(h.sent.length, 5);
  t.equal(await deliverJob(h.deps, j).then((a) => a.kind), "ack", "a terminal delivery is never attempted again");
  t.equal(h.sent.length, 5);
});

test("the request: the stored envelope's bytes, signed, with every docs/api.md#webhooks header", async (t) => {
  const h = await harness();
  h.answers.push({ kind: "response", status: 204, body: "", durationMs: 3 });
  t.same(await deliverJob(h.deps, job(h.record.delivery_id, 1)), { kind: "ack" });
  const [req] = h.sent;
  t.equal(req?.url, h.sub.url);
  t.equal(req?.body.toString(), JSON.stringify(h.record.envelope));
  t.same(Object.keys(req?.headers ?? {}).sort(), ["Content-Type", "User-Agent", "X-Service-Delivery", "X-Service-Event", "X-Service-Signature-256", "webhook-id", "webhook-signature", "webhook-timestamp"].sort());
  t.equal(req?.headers["webhook-timestamp"], String(Math.floor((h.clock.t - 40) / 1000)), "signed with the injected clock");
  t.equal(req?.timeoutMs, 10_000);
});

test("a job that comes back early (a crash redelivers after ack_wait) waits for its time without sending", async (t) => {
  const h = await harness();
  const j = job(h.record.delivery_id, 1);
  const first = await deliverJob(h.deps, j);
  t.same(first, { kind: "nak", delayMs: 30_000 });
  h.clock.t += 15_000; // redelivered after a 15 s ack_wait instead of the 30 s delay
  t.same(await deliverJob(h.deps, j), { kind: "nak", delayMs: 15_000 }, "waits out the rest of the delay");
  t.equal(h.sent.length, 1, "no extra attempt");
  t.equal((await current(h)).attempt_count, 1);
});

test("paused: the job waits with no attempt spent, however often it comes back; resumed, it is sent", async (t) => {
  const h = await harness();
  h.subs.set(h.sub.id, { ...h.sub, active: false });
  const j = job(h.record.delivery_id, 1);
  for (let i = 0; i < 10; i++) {
    const action = await deliverJob(h.deps, j);
    t.ok(action.kind === "nak" && action.delayMs >= 2_000 && action.delayMs <= 60_000, `handed back (${JSON.stringify(action)})`);
    h.clock.t += action.kind === "nak" ? action.delayMs : 0;
  }
  t.equal(h.sent.length, 0);
  t.equal((await current(h)).attempt_count, 0, "no attempt spent");
  t.equal((await current(h)).status, "pending");
  h.subs.set(h.sub.id, { ...h.sub, active: true });
  h.answers.push({ kind: "response", status: 200, body: "ok", durationMs: 5 });
  t.same(await deliverJob(h.deps, j), { kind: "ack" });
  const r = await current(h);
  t.equal(r.status, "delivered");
  t.equal(r.attempt_count, 1);
});

test("a long pause costs a bounded number of looks: the job comes back less and less often, at most a minute apart; resumed, it goes out within that", async (t) => {
  const h = await harness();
  h.subs.set(h.sub.id, { ...h.sub, active: false, updated_at: new Date(h.clock.t).toISOString() });
  const j = job(h.record.delivery_id, 1);
  const pausedAt = h.clock.t;
  const delays: number[] = [];
  // JetStream hands the job back after each nak's delay; the fake clock jumps there, for an hour of pause.
  while (h.clock.t - pausedAt < 3_600_000) {
    const action = await deliverJob(h.deps, j);
    if (action.kind !== "nak") return t.fail(`a paused job is handed back, got ${JSON.stringify(action)}`);
    delays.push(action.delayMs);
    h.clock.t += action.delayMs;
  }
  t.equal(h.sent.length, 0, "nothing sent while paused");
  t.equal((await current(h)).attempt_count, 0, "no attempt spent");
  t.equal(delays[0], 2_000, "a short pause is looked at again within seconds");
  t.ok(delays.every((d, i) => i === 0 || d >= (delays[i - 1] as number)), "the wait never shrinks while the pause lasts");
  t.ok(Math.max(...delays) <= 60_000, `at most a minute between looks (${Math.max(...delays)} ms)`);
  t.ok(delays.length <= 3_600_000 / 60_000 + 15, `an hour of pause costs ${delays.length} looks (every 2 s: 1800)`);
  // Resumed between two looks: the next one, at most a minute later, sends it.
  h.subs.set(h.sub.id, { ...h.sub, active: true, updated_at: new Date(h.clock.t).toISOString() });
  h.answers.push({ kind: "response", status: 200, body: "ok", durationMs: 5 });
  t.same(await deliverJob(h.deps, j), { kind: "ack" });
  t.equal((await current(h)).status, "delivered");
});

test("deleted subscription: the pending delivery ends failed_permanent, subscription_deleted, without an attempt", async (t) => {
  const h = await harness();
  h.subs.delete(h.sub.id);
  const action = await deliverJob(h.deps, job(h.record.delivery_id, 1));
  t.equal(action.kind, "term");
  const r = await current(h);
  t.equal(r.status, "failed_permanent");
  t.equal(r.last_error, "subscription_deleted");
  t.equal(r.next_attempt_at, null);
  t.equal(r.attempt_count, 0);
  t.equal(h.sent.length, 0);
});

test("one job owns a delivery: a second job for it (republished after a crash) is dropped", async (t) => {
  const h = await harness();
  t.equal((await deliverJob(h.deps, job(h.record.delivery_id, 11))).kind, "nak");
  t.equal((await current(h)).internal.job_seq, 11);
  h.clock.t += 60_000;
  t.same(await deliverJob(h.deps, job(h.record.delivery_id, 12)), { kind: "ack" }, "the stray copy is acked away");
  t.equal(h.sent.length, 1, "and sends nothing");
  t.equal((await current(h)).attempt_count, 1);
  t.same(await deliverJob(h.deps, job("dlv_UNKNOWN0000000000000000000", 1, { deliveryCount: 5 })), { kind: "term", reason: "delivery record not found (expired?)" });
});

test("enqueueDelivery is safe to repeat: one record, one stored job", async (t) => {
  const h = await harness();
  const record = newDeliveryRecord({ deliveryId: `dlv_ENQ${String(n++).padStart(23, "0")}`, subscriptionId: h.sub.id, envelope: h.record.envelope, nowMs: h.clock.t });
  const before = (await stores.js.publish("outbound.deliveries.probe", "x")).seq;
  t.same(await enqueueDelivery(stores, record), { kind: "created" });
  t.same(await enqueueDelivery(stores, record), { kind: "requeued" }, "an unowned pending delivery is published again...");
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(WEBHOOK_STREAMS.jobs.name);
  t.equal(info.state.last_seq, before + 1, "...and the duplicate window stores it once");
  t.same(await enqueueDelivery(stores, record, { recheck: true }), { kind: "requeued" }, "a repeated fan-out publishes an untaken delivery again");
  await stores.deliveries.update(record.delivery_id, (r) => ({ ...r, internal: { job_seq: before + 1 } }));
  t.same(await enqueueDelivery(stores, record, { recheck: true }), { kind: "exists" }, "once a job owns it, a repeated fan-out publishes nothing");
  t.equal((await jsm.streams.info(WEBHOOK_STREAMS.jobs.name)).state.last_seq, before + 1);
  t.equal((await stores.deliveries.get(record.delivery_id))?.value.internal.job_seq, before + 1, "the record is left alone");
});

/** ManageDeps over this file's stores, with some of them swapped (a failing publish, a crash). */
function manageDeps(over: Partial<ManageDeps["stores"]> = {}): ManageDeps {
  return {
    stores: { js: stores.js, subscriptions: stores.subscriptions, deliveries: stores.deliveries, ...over },
    masterKey,
    clock: { now: () => Date.now() },
    checkUrl: async () => ({ ok: true }) as unknown as TargetCheck,
    publicUrl: "http://127.0.0.1:1",
    pendingDeliveries: async () => [],
  };
}

const recordsOf = async (subscriptionId: string): Promise<DeliveryRecord[]> => (await stores.deliveries.values()).filter((d) => d.subscription_id === subscriptionId);

test("test delivery and replay never strand a record: a failed job publish leaves no delivery behind", async (t) => {
  const h = await harness();
  await stores.subscriptions.put(h.sub.id, h.sub);
  const failing = manageDeps({
    js: {
      publish: async () => {
        throw new Error("publish failed");
      },
    } as unknown as JetStreamClient,
  });
  await t.rejects(sendTestDelivery(failing, h.sub.id), /publish failed/);
  await t.rejects(replayDelivery(failing, h.record.delivery_id), /publish failed/);
  t.same(
    (await recordsOf(h.sub.id)).map((d) => d.delivery_id),
    [h.record.delivery_id],
    "only the original delivery: no pending record without a job",
  );
});

test("a publisher that stops after the job: the job creates the record itself and the delivery is made", async (t) => {
  const h = await harness();
  await stores.subscriptions.put(h.sub.id, h.sub);
  const crashing = Object.assign(Object.create(stores.deliveries) as JsonKv<DeliveryRecord>, {
    create: async () => {
      throw new Error("crashed before the record was written");
    },
  });
  await t.rejects(sendTestDelivery(manageDeps({ deliveries: crashing }), h.sub.id), /crashed/);
  await t.rejects(replayDelivery(manageDeps({ deliveries: crashing }), h.record.delivery_id), /crashed/);
  t.same((await recordsOf(h.sub.id)).length, 1, "no record written yet");

  // The jobs, as the dispatcher's consumer takes them off the stream.
  const jsm = await jetstreamManager(nc);
  const durable = `probe-${n++}`;
  await jsm.consumers.add(WEBHOOK_STREAMS.jobs.name, { durable_name: durable, filter_subject: WEBHOOK_SUBJECTS.job(h.sub.id), ack_policy: AckPolicy.Explicit });
  t.teardown(() => jsm.consumers.delete(WEBHOOK_STREAMS.jobs.name, durable));
  const consumer = await stores.js.consumers.get(WEBHOOK_STREAMS.jobs.name, durable);
  const msgs = [];
  for await (const m of await consumer.fetch({ max_messages: 2, expires: 2_000 })) msgs.push(m);
  t.equal(msgs.length, 2, "both jobs are on the stream");
  const made: DeliveryRecord[] = [];
  for (const m of msgs) {
    const parsed = jobFromMessage(m, Date.now());
    if (!parsed) throw new Error("malformed job");
    t.equal(parsed.subscriptionId, h.sub.id);
    h.answers.push({ kind: "response", status: 200, body: "ok", durationMs: 5 });
    t.same(await deliverJob(h.deps, parsed.job), { kind: "ack" }, "sent");
    m.ack();
    made.push((await stores.deliveries.get(parsed.job.deliveryId))?.value as DeliveryRecord);
  }
  t.equal(h.sent.length, 2);
  t.ok(made.every((d) => d.status === "delivered" && d.attempt_count === 1), "both delivered");
  const test = made.find((d) => d.replay_of === null);
  const replay = made.find((d) => d.replay_of === h.record.delivery_id);
  t.equal(test?.envelope.test, true, "the test delivery's envelope");
  t.same(replay?.envelope, h.record.envelope, "the replay's envelope");
  t.equal((await recordsOf(h.sub.id)).length, 3, "one record each");

  // A publisher that only got to it later finds the record the job made (one record however it goes).
  const again = (await stores.deliveries.get(replay?.delivery_id as string))?.value as DeliveryRecord;
  t.same(await stores.deliveries.create(again.delivery_id, { ...again, status: "pending", attempt_count: 0 }), null);
});

test("a job without a seed whose record is missing looks again a few times, then is dropped; an expired seed is not revived", async (t) => {
  const h = await harness();
  const missing = "dlv_MISSING00000000000000000";
  for (let c = 1; c < MISSING_RECORD_DELIVERIES; c++) {
    t.same(await deliverJob(h.deps, job(missing, 1, { deliveryCount: c })), { kind: "nak", delayMs: MISSING_RECORD_RETRY_MS }, `delivery ${c}: looks again`);
  }
  t.same(await deliverJob(h.deps, job(missing, 1, { deliveryCount: MISSING_RECORD_DELIVERIES })), { kind: "term", reason: "delivery record not found (expired?)" });
  t.equal(MISSING_RECORD_RETRY_MS, 1_000);
  t.equal(MISSING_RECORD_DELIVERIES, 5);
  const seed = deliveryJob(newDeliveryRecord({ deliveryId: missing, subscriptionId: h.sub.id, envelope: h.record.envelope, nowMs: Date.now() - DELIVERY_RETENTION_MS - 1 }));
  t.equal(recordFromJob(seed, Date.now()), null, "a job older than the retention does not bring its record back");
  t.equal(recordFromJob({ delivery_id: missing, subscription_id: h.sub.id }, Date.now()), null, "nor does a job without a seed");
  t.equal(h.sent.length, 0);
  t.equal(await stores.deliveries.get(missing), null);
});

test("a secret the master key cannot open: one failed attempt, secret_unreadable, failed_permanent and term (no hot loop)", async (t) => {
  const h = await harness();
  const lines: string[] = [];
  h.deps.log = pino({ level: "error" }, { write: (line: string) => void lines.push(line) });
  // The dispatcher's real secret opener with another master key than the one that sealed the secret.
  const wrongKey = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, Buffer.alloc(32, 9), log);
  h.deps.secretOf = (sub) => wrongKey.secretOf(sub);
  t.throws(() => wrongKey.secretOf(h.sub), "the secret does not open");
  const action = await deliverJob(h.deps, job(h.record.delivery_id, 1));
  t.equal(action.kind, "term", "the job ends");
  const r = await current(h);
  t.equal(r.status, "failed_permanent");
  t.equal(r.attempt_count, 1, "recorded as one failed attempt");
  t.equal(r.last_error, "secret_unreadable");
  t.equal(r.last_response_code, null);
  t.equal(r.next_attempt_at, null);
  t.match(r.attempts, [{ attempt: 1, response_code: null, error: "secret_unreadable", duration_ms: 0 }]);
  t.equal(h.sent.length, 0, "nothing sent");
  t.equal(lines.length, 1, "one error logged");
  t.equal(JSON.parse(lines[0] as string).level, 50);
  t.same(await deliverJob(h.deps, job(h.record.delivery_id, 1)), { kind: "ack" }, "a redelivered copy finds it over");
  t.equal(lines.length, 1, "and logs nothing more");
});

test("messages waiting for a pool slot are kept alive: nothing is redelivered past ack_wait or handled twice", async (t) => {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "POOLTEST", subjects: ["pooltest.>"], storage: StorageType.Memory });
  t.teardown(() => jsm.streams.delete("POOLTEST"));
  for (let i = 0; i < 3; i++) await js.publish("pooltest.x", `m${i}`);
  const handled: Array<{ seq: number; count: number }> = [];
  const pool = new PooledConsumer({
    name: "pool-test",
    js,
    jsm,
    stream: "POOLTEST",
    config: { durable_name: "pool-test", ack_policy: AckPolicy.Explicit, ack_wait: 2_000 * 1_000_000, max_deliver: -1 },
    concurrency: 1,
    buffer: 4,
    log,
    async handle(msg) {
      handled.push({ seq: msg.seq, count: msg.info.deliveryCount });
      // The first one holds the only slot for twice the ack_wait (keeping itself alive); the others wait.
      const own = setInterval(() => msg.working(), 250);
      await new Promise((r) => setTimeout(r, msg.seq === 1 ? 4_400 : 20));
      clearInterval(own);
      msg.ack();
    },
  });
  t.equal(pool.workingIntervalMs, 666, "working() every third of ack_wait");
  t.equal(workingIntervalFor({}), 10_000, "JetStream's default ack_wait (30 s) when none is set");
  await pool.start();
  await eventually(async () => (handled.length >= 3 ? true : undefined), 15_000, 20);
  await new Promise((r) => setTimeout(r, 2_400)); // time for a late redelivery to show up
  await pool.stop();
  t.same(handled.map((x) => x.seq), [1, 2, 3], "each message handled once, in order");
  t.ok(handled.every((x) => x.count === 1), "none was redelivered");
  const info = await jsm.consumers.info("POOLTEST", "pool-test");
  t.equal(info.num_redelivered, 0);
  t.equal(info.num_ack_pending, 0);
});

test("the subscription cache is fresh as of any moment after the caller's input arrived", async (t) => {
  const cache = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, masterKey, log);
  await cache.start();
  t.teardown(() => cache.stop());
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const s = newSubscription(`sub_CACHE${String(i).padStart(21, "0")}`, { url: "https://93.184.216.34/x", events: ["agent.connected"] }, encryptSecret(masterKey, "whsec_x"), Date.now());
    await stores.subscriptions.put(s.id, s);
    ids.push(s.id);
  }
  const seen = new Set((await cache.fresh(performance.now())).map((s) => s.id));
  t.ok(ids.every((id) => seen.has(id)), "every subscription written before the call is there");
  await stores.subscriptions.delete(ids[0] as string);
  const after = new Set((await cache.fresh(performance.now())).map((s) => s.id));
  t.notOk(after.has(ids[0] as string), "a deletion too");
  t.equal(cache.secretOf((await stores.subscriptions.get(ids[1] as string))?.value as SubscriptionRecord), "whsec_x", "secrets open with the master key");
});

test("a subscription copy that cannot catch up fails the check: the event is fanned out again later, never against the stale copy", async (t) => {
  const cache = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, masterKey, log);
  await cache.start();
  const before = (await cache.fresh(performance.now())).length;
  // Its watch stopped: a subscription written now never reaches the copy.
  await cache.stop();
  const s = newSubscription("sub_LAGGING000000000000000000", { url: "https://93.184.216.34/x", events: ["agent.connected"] }, encryptSecret(masterKey, "whsec_x"), Date.now());
  await stores.subscriptions.put(s.id, s);
  const outcome = await cache.fresh(performance.now()).then(
    (all) => `resolved with ${all.length} subscriptions (${before} before the write)`,
    (err: unknown) => `rejected: ${String(err)}`,
  );
  t.match(outcome, /^rejected: .*lagging/, "the fan-out's nak path, not a fan-out without the new subscription");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
