// The dispatcher's job logic against a real nats-server (KV records, the jobs stream) with an injected clock
// and a fake far side (`send`): the 5-attempt schedule of spec 8.1 with the real default delays, attempts that
// are never spent while paused, deletion, a crash-redelivered job that waits for its time, and job ownership.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { openWebhookStores, WEBHOOK_STREAMS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { deliverJob, type DeliverDeps } from "../../services/dispatcher/deliver.js";
import type { OutboundRequest } from "../../services/dispatcher/sender.js";
import { SubscriptionCache } from "../../services/dispatcher/subscription-cache.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import { makeEvent } from "../helpers/webhooks.js";

const DEFAULT_DELAYS = [30_000, 120_000, 600_000, 3_600_000]; // spec 8.1
const masterKey = Buffer.alloc(32, 7);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;
let n = 0;

test("setup", async () => {
  server = await startNats();
  nc = await connectTo(server.url);
  stores = await openWebhookStores(nc, await jetstreamManager(nc), jetstream(nc));
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
      userAgent: "Inquest-Webhooks/test",
    },
  };
  return h;
}

const current = async (h: Harness): Promise<DeliveryRecord> => (await stores.deliveries.get(h.record.delivery_id))?.value as DeliveryRecord;

test("the default schedule: immediate, 30s, 2m, 10m, 1h, then failed_permanent and term", async (t) => {
  const h = await harness();
  const job = { deliveryId: h.record.delivery_id, seq: 1 };
  const actions = [];
  for (let i = 0; i < 5; i++) {
    const action = await deliverJob(h.deps, job);
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
  t.equal(await deliverJob(h.deps, job).then((a) => a.kind), "ack", "a terminal delivery is never attempted again");
  t.equal(h.sent.length, 5);
});

test("the request: the stored envelope's bytes, signed, with every CONTRACT §5 header", async (t) => {
  const h = await harness();
  h.answers.push({ kind: "response", status: 204, body: "", durationMs: 3 });
  t.same(await deliverJob(h.deps, { deliveryId: h.record.delivery_id, seq: 1 }), { kind: "ack" });
  const [req] = h.sent;
  t.equal(req?.url, h.sub.url);
  t.equal(req?.body.toString(), JSON.stringify(h.record.envelope));
  t.same(Object.keys(req?.headers ?? {}).sort(), ["Content-Type", "User-Agent", "X-Service-Delivery", "X-Service-Event", "X-Service-Signature-256", "webhook-id", "webhook-signature", "webhook-timestamp"].sort());
  t.equal(req?.headers["webhook-timestamp"], String(Math.floor((h.clock.t - 40) / 1000)), "signed with the injected clock");
  t.equal(req?.timeoutMs, 10_000);
});

test("a job that comes back early (a crash redelivers after ack_wait) waits for its time without sending", async (t) => {
  const h = await harness();
  const job = { deliveryId: h.record.delivery_id, seq: 1 };
  const first = await deliverJob(h.deps, job);
  t.same(first, { kind: "nak", delayMs: 30_000 });
  h.clock.t += 15_000; // redelivered after a 15 s ack_wait instead of the 30 s delay
  t.same(await deliverJob(h.deps, job), { kind: "nak", delayMs: 15_000 }, "waits out the rest of the delay");
  t.equal(h.sent.length, 1, "no extra attempt");
  t.equal((await current(h)).attempt_count, 1);
});

test("paused: the job waits with no attempt spent, however often it comes back; resumed, it is sent", async (t) => {
  const h = await harness();
  h.subs.set(h.sub.id, { ...h.sub, active: false });
  const job = { deliveryId: h.record.delivery_id, seq: 1 };
  for (let i = 0; i < 10; i++) {
    t.same(await deliverJob(h.deps, job), { kind: "nak", delayMs: 2_000 });
    h.clock.t += 2_000;
  }
  t.equal(h.sent.length, 0);
  t.equal((await current(h)).attempt_count, 0, "no attempt spent");
  t.equal((await current(h)).status, "pending");
  h.subs.set(h.sub.id, { ...h.sub, active: true });
  h.answers.push({ kind: "response", status: 200, body: "ok", durationMs: 5 });
  t.same(await deliverJob(h.deps, job), { kind: "ack" });
  const r = await current(h);
  t.equal(r.status, "delivered");
  t.equal(r.attempt_count, 1);
});

test("deleted subscription: the pending delivery ends failed_permanent, subscription_deleted, without an attempt", async (t) => {
  const h = await harness();
  h.subs.delete(h.sub.id);
  const action = await deliverJob(h.deps, { deliveryId: h.record.delivery_id, seq: 1 });
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
  t.equal((await deliverJob(h.deps, { deliveryId: h.record.delivery_id, seq: 11 })).kind, "nak");
  t.equal((await current(h)).internal.job_seq, 11);
  h.clock.t += 60_000;
  t.same(await deliverJob(h.deps, { deliveryId: h.record.delivery_id, seq: 12 }), { kind: "ack" }, "the stray copy is acked away");
  t.equal(h.sent.length, 1, "and sends nothing");
  t.equal((await current(h)).attempt_count, 1);
  t.same(await deliverJob(h.deps, { deliveryId: "dlv_UNKNOWN0000000000000000000", seq: 1 }), { kind: "term", reason: "delivery record not found (expired?)" });
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
  await stores.deliveries.update(record.delivery_id, (r) => ({ ...r, internal: { job_seq: before + 1 } }));
  t.same(await enqueueDelivery(stores, record), { kind: "exists" }, "once a job owns it, nothing is published");
  t.equal((await jsm.streams.info(WEBHOOK_STREAMS.jobs.name)).state.last_seq, before + 1);
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

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
