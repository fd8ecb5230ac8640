// The fan-out's first attempt (services/dispatcher/first-attempt.ts) against a real nats-server (the deliveries
// bucket, the jobs stream) with an injected clock and a fake far side: a 2xx is recorded with no job, a retryable
// answer gets its record and then its job (which waits for next_attempt_at), a permanent one is recorded and
// dead-lettered; a crash between record and job is repaired by the fan-out's recheck; what is declined sends and writes
// nothing; a slow endpoint sends its waiting first attempts to the job path; a second copy sends nothing.
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test, type Test } from "tap";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { openWebhookStores, WEBHOOK_STREAMS, WEBHOOK_SUBJECTS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { deliverJob, postedDelivered, type DeliverDeps } from "../../services/dispatcher/deliver.js";
import { jobFromMessage } from "../../services/dispatcher/delivery-consumer.js";
import { EndpointHealth } from "../../services/dispatcher/endpoint-health.js";
import { FirstAttempts, type FirstAttemptOutcome } from "../../services/dispatcher/first-attempt.js";
import type { OutboundRequest } from "../../services/dispatcher/sender.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { CONSUMER_CREATED_MARGIN_MS } from "../../services/dispatcher/first-copy.js";
import { systemClock } from "../../shared/clock.js";
import { openRuntime } from "../../shared/runtime.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent, publish } from "../helpers/webhooks.js";

const DELAYS = [30_000, 120_000, 600_000, 3_600_000];
const masterKey = Buffer.alloc(32, 9);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;
let n = 0;

test("setup", async () => {
  server = await startNats();
  nc = await connectTo(server.url);
  jsm = await jetstreamManager(nc);
  stores = await openWebhookStores(nc, jsm, jetstream(nc), 1);
});

const ok: AttemptResult = { kind: "response", status: 204, body: "", durationMs: 2 };

interface Harness {
  first: FirstAttempts;
  deps: DeliverDeps;
  health: EndpointHealth;
  sent: OutboundRequest[];
  outcomes: FirstAttemptOutcome[];
  deadLettered: string[];
  clock: { t: number };
  subs: Map<string, SubscriptionRecord>;
  /** Answers of the coming POSTs, in order (a 500 when none is left); a promise holds its POST until it settles. */
  answers: Array<AttemptResult | Promise<AttemptResult>>;
  sub(fields?: Partial<SubscriptionRecord>): SubscriptionRecord;
  record(sub: SubscriptionRecord): DeliveryRecord;
}

function harness(
  opts: { perSubscription?: number; waitingPerSubscription?: number; total?: number; quickTotal?: number; slowMs?: number; quickMs?: number; quickStreak?: number } = {},
): Harness {
  const clock = { t: Date.parse("2026-11-27T10:00:00.000Z") + n * 1000 };
  const subs = new Map<string, SubscriptionRecord>();
  const sent: OutboundRequest[] = [];
  const answers: Harness["answers"] = [];
  const outcomes: FirstAttemptOutcome[] = [];
  const deadLettered: string[] = [];
  const health = new EndpointHealth(
    { now: () => clock.t },
    { slowMs: opts.slowMs ?? 60_000, coolDownMs: 30_000, ...(opts.quickStreak === undefined ? {} : { quickMs: opts.quickMs ?? 30, quickStreak: opts.quickStreak }) },
  );
  const deps: DeliverDeps = {
    deliveries: stores.deliveries,
    subscription: async (id) => subs.get(id) ?? null,
    secretOf: () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    send: async (req) => {
      sent.push(req);
      return (await answers.shift()) ?? { kind: "response", status: 500, body: "down", durationMs: 5 };
    },
    deadLettered: async (record) => {
      deadLettered.push(record.delivery_id);
    },
    requestSlot: (id, post) => health.watch(id, post, postedDelivered),
    clock: { now: () => clock.t },
    log,
    retryDelaysMs: DELAYS,
    timeoutMs: 10_000,
    pausedRecheckMs: 2_000,
    pausedRecheckMaxMs: 60_000,
    userAgent: "Inquest-Webhooks/test",
  };
  const first = new FirstAttempts(
    { deliver: deps, stores, health, observe: (o) => outcomes.push(o) },
    {
      perSubscription: opts.perSubscription ?? 4,
      waitingPerSubscription: opts.waitingPerSubscription ?? 8,
      total: opts.total ?? 64,
      ...(opts.quickTotal === undefined ? {} : { quickTotal: opts.quickTotal }),
    },
  );
  return {
    first,
    deps,
    health,
    sent,
    outcomes,
    deadLettered,
    clock,
    subs,
    answers,
    sub(fields = {}) {
      const base = newSubscription(`sub_FRST${String(n++).padStart(22, "0")}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(masterKey, newWebhookSecret()), clock.t);
      const sub = { ...base, ...fields };
      subs.set(sub.id, sub);
      return sub;
    },
    record(sub) {
      return newDeliveryRecord({ deliveryId: `dlv_FRST${String(n++).padStart(22, "0")}`, subscriptionId: sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: clock.t });
    },
  };
}

const stored = async (id: string): Promise<DeliveryRecord | null> => (await stores.deliveries.get(id))?.value ?? null;

/** The job message published for the subscription, or null when there is none. */
async function jobOf(subscriptionId: string) {
  try {
    return await jsm.streams.getMessage(WEBHOOK_STREAMS.jobs.name, { last_by_subj: WEBHOOK_SUBJECTS.job(subscriptionId) });
  } catch {
    return null;
  }
}

test("a 2xx first attempt: the record is created delivered, with its one attempt, and no job is published", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  h.answers.push(ok);
  t.equal(await h.first.attempt(record, sub), true);
  const r = await stored(record.delivery_id);
  t.equal(r?.status, "delivered");
  t.equal(r?.attempt_count, 1);
  t.equal(r?.attempts.length, 1);
  t.equal(r?.internal.job_seq, null, "no job owns it");
  t.equal(h.sent.length, 1);
  t.equal(h.sent[0]?.headers["X-Service-Delivery"], record.delivery_id);
  t.equal(await jobOf(sub.id), null, "no job");
  t.same(h.outcomes, ["made"]);
});

test("a retryable first attempt: the record (attempt 1, next_attempt_at), then its job, which waits for that time", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  h.answers.push({ kind: "response", status: 503, body: "busy", durationMs: 5 });
  t.equal(await h.first.attempt(record, sub), true);
  const r = await stored(record.delivery_id);
  t.equal(r?.status, "pending");
  t.equal(r?.attempt_count, 1);
  t.equal(Date.parse(r?.next_attempt_at ?? ""), h.clock.t + DELAYS[0]!, "the schedule's first delay");
  const msg = await jobOf(sub.id);
  t.ok(msg, "the job for the next attempt is published");
  const parsed = jobFromMessage({ data: msg!.data, seq: msg!.seq, info: { deliveryCount: 1 } } as never, h.clock.t);
  t.equal(parsed?.job.deliveryId, record.delivery_id);
  t.same(await deliverJob(h.deps, parsed!.job), { kind: "nak", delayMs: DELAYS[0] }, "the job waits; no second POST now");
  t.equal(h.sent.length, 1);
  t.ok(!h.health.healthy(sub.id), "a failing endpoint goes to the job path for a while");
  h.clock.t += DELAYS[0]!;
  h.answers.push(ok);
  t.same(await deliverJob(h.deps, parsed!.job), { kind: "ack" }, "attempt 2 at its time");
  const after = await stored(record.delivery_id);
  t.equal(after?.status, "delivered");
  t.equal(after?.attempt_count, 2);
  t.equal(after?.internal.job_seq, msg!.seq, "the job owns it from its attempt on");
});

test("a permanent first attempt: recorded failed_permanent and dead-lettered, no job", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  h.answers.push({ kind: "response", status: 400, body: "no", durationMs: 5 });
  t.equal(await h.first.attempt(record, sub), true);
  t.equal((await stored(record.delivery_id))?.status, "failed_permanent");
  t.same(h.deadLettered, [record.delivery_id]);
  t.equal(await jobOf(sub.id), null);
});

test("a crash between the record and its job: the fan-out's recheck publishes the job; a finished delivery gets none", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  // What a first attempt leaves when the dispatcher dies right after creating the record: no job.
  const pending: DeliveryRecord = { ...record, attempt_count: 1, next_attempt_at: new Date(h.clock.t + DELAYS[0]!).toISOString() };
  await stores.deliveries.create(pending.delivery_id, pending);
  t.same(await enqueueDelivery(stores, record, { recheck: true }), { kind: "requeued" }, "the redelivered event publishes the job");
  t.ok(await jobOf(sub.id), "the job is there");
  t.equal((await stored(record.delivery_id))?.attempt_count, 1, "the record is left as it was");

  const other = h.sub();
  const done = { ...h.record(other), status: "delivered" as const, attempt_count: 1, next_attempt_at: null };
  await stores.deliveries.create(done.delivery_id, done);
  t.same(await enqueueDelivery(stores, done, { recheck: true }), { kind: "exists" });
  t.equal(await jobOf(other.id), null);
});

test("declined: paused, rate limited, unhealthy, or recorded already; nothing sent, nothing written", async (t) => {
  const h = harness();
  const paused = h.sub({ active: false });
  const limited = h.sub({ rate_limit_per_second: 5 });
  const sick = h.sub();
  h.health.markUnhealthy(sick.id);
  const recorded = h.sub();
  const existing = h.record(recorded);
  await stores.deliveries.create(existing.delivery_id, existing);
  const records = [h.record(paused), h.record(limited), h.record(sick)];
  t.equal(await h.first.attempt(records[0]!, paused), false);
  t.equal(await h.first.attempt(records[1]!, limited), false);
  t.equal(await h.first.attempt(records[2]!, sick), false);
  t.equal(await h.first.attempt(existing, recorded), false);
  t.same(h.outcomes, ["inactive", "rate_limited", "unhealthy", "recorded"]);
  t.equal(h.sent.length, 0);
  for (const r of records) t.equal(await stored(r.delivery_id), null, "no record");
  h.clock.t += 30_001;
  t.ok(h.health.healthy(sick.id), "healthy again after the cool-down");
});

test("the first copy of an event is sent without looking for its record; any other copy looks first", async (t) => {
  const h = harness();
  let reads = 0;
  const deliveries = stores.deliveries;
  const counting = Object.create(deliveries, {
    get: {
      value: (key: string) => {
        reads++;
        return deliveries.get(key);
      },
    },
  }) as typeof deliveries;
  const first = new FirstAttempts({ deliver: h.deps, stores: { ...stores, deliveries: counting }, health: h.health }, { perSubscription: 4, waitingPerSubscription: 8, total: 64 });
  const sub = h.sub();
  h.answers.push(ok, ok);
  t.equal(await first.attempt(h.record(sub), sub, { firstCopy: true }), true);
  t.equal(reads, 0, "no read for the first copy");
  t.equal(await first.attempt(h.record(sub), sub), true);
  t.equal(reads, 1, "one read otherwise");
  t.equal(h.sent.length, 2);
});

/**
 * Waits until each attempt is placed: held by the fan-out (a request slot or a wait) or already answered. Each one
 * not a first copy reads its record first, a KV read that took up to 170 ms on a loaded machine, so a fixed sleep
 * could look at the fan-out before every attempt reached it.
 */
async function placed(h: { first: { load(id: string): { held: number } } }, subId: string, attempts: Array<Promise<boolean>>, alreadyHeld = 0): Promise<void> {
  let answered = 0;
  for (const a of attempts) void a.then(() => answered++);
  await eventually(async () => (h.first.load(subId).held - alreadyHeld + answered >= attempts.length ? true : undefined), 10_000, 2);
}

test("a slow endpoint: its waiting first attempts go to the job path; other subscriptions are not held up", async (t) => {
  const h = harness({ perSubscription: 1, waitingPerSubscription: 8, slowMs: 50 });
  const slow = h.sub();
  const fast = h.sub();
  let release: (r: AttemptResult) => void = () => {};
  h.answers.push(new Promise<AttemptResult>((resolve) => (release = resolve)));
  const a = h.first.attempt(h.record(slow), slow);
  const b = h.first.attempt(h.record(slow), slow);
  await placed(h, slow.id, [a, b]);
  t.same(h.first.load(slow.id), { running: 1, waiting: 1, held: 2 }, "the second waits for the first");
  t.equal(await b, false, "once the POST has taken slowMs, the waiting one is declined");
  t.equal(await h.first.attempt(h.record(slow), slow), false, "and so are new ones");
  h.answers.push(ok);
  t.equal(await h.first.attempt(h.record(fast), fast), true, "another subscription goes on");
  release(ok);
  t.equal(await a, true, "the slow POST is still recorded");
  t.equal(h.sent.length, 2);
  t.same(h.first.load(slow.id), { running: 0, waiting: 0, held: 0 }, "the declined waiter is no longer held");
  t.same(h.outcomes.slice().sort(), ["made", "made", "unhealthy", "unhealthy"]);
});

test("a busy subscription: first attempts past the waiting limit are declined", async (t) => {
  const h = harness({ perSubscription: 1, waitingPerSubscription: 1 });
  const sub = h.sub();
  let release: (r: AttemptResult) => void = () => {};
  h.answers.push(new Promise<AttemptResult>((resolve) => (release = resolve)), ok);
  const a = h.first.attempt(h.record(sub), sub);
  const b = h.first.attempt(h.record(sub), sub);
  await placed(h, sub.id, [a, b]);
  t.equal(await h.first.attempt(h.record(sub), sub), false, "the third is declined");
  release(ok);
  t.same([await a, await b], [true, true]);
  t.same(h.outcomes.slice().sort(), ["busy", "made", "made"]);
  t.same(h.first.load(sub.id), { running: 0, waiting: 0, held: 0 }, "nothing left held");
});

test("a quick subscription may hold all but a few of the fan-out; a POST that is not quick brings the usual bound back", async (t) => {
  const h = harness({ perSubscription: 1, waitingPerSubscription: 1, total: 2, quickTotal: 4, quickStreak: 2, quickMs: 200 });
  const sub = h.sub();
  /** Holds the subscription's one request slot with a POST that waits for `release`, then tries `n` more first attempts. */
  const fill = async (n: number) => {
    let release: (r: AttemptResult) => void = () => {};
    h.answers.push(new Promise<AttemptResult>((resolve) => (release = resolve)));
    for (let i = 0; i < n; i++) h.answers.push(ok);
    const running = h.first.attempt(h.record(sub), sub);
    await placed(h, sub.id, [running]);
    const more = Array.from({ length: n }, () => h.first.attempt(h.record(sub), sub));
    await placed(h, sub.id, more, 1);
    const load = h.first.load(sub.id);
    release(ok);
    const declined = (await Promise.all([running, ...more])).filter((made) => !made).length;
    h.answers.splice(0); // the answers the declined attempts did not use
    return { load, declined };
  };

  t.same(await fill(3), { load: { running: 1, waiting: 1, held: 2 }, declined: 2 }, "not quick yet: the usual total of 2");
  h.answers.push(ok, ok);
  t.equal(await h.first.attempt(h.record(sub), sub), true);
  t.equal(await h.first.attempt(h.record(sub), sub), true);
  t.ok(h.health.quick(sub.id), "two quick POSTs in a row: quick");
  t.same(await fill(4), { load: { running: 1, waiting: 3, held: 4 }, declined: 1 }, "quick: 4 held, the fifth declined");

  h.answers.push(new Promise<AttemptResult>((resolve) => setTimeout(() => resolve(ok), 300)));
  t.equal(await h.first.attempt(h.record(sub), sub), true, "a POST slower than quickMs (still healthy)");
  t.notOk(h.health.quick(sub.id), "no longer quick");
  t.same(await fill(3), { load: { running: 1, waiting: 1, held: 2 }, declined: 2 }, "the usual total again");
});

test("many subscriptions: first attempts past the total are declined, whatever the subscription", async (t) => {
  const h = harness({ perSubscription: 1, waitingPerSubscription: 4, total: 3 });
  const [a, b, c] = [h.sub(), h.sub(), h.sub()];
  const releases: Array<(r: AttemptResult) => void> = [];
  for (let i = 0; i < 3; i++) h.answers.push(new Promise<AttemptResult>((resolve) => releases.push(resolve)));
  h.answers.push(ok);
  const held = [h.first.attempt(h.record(a), a), h.first.attempt(h.record(b), b), h.first.attempt(h.record(a), a)];
  await placed(h, a.id, held);
  t.same(h.first.load(a.id), { running: 1, waiting: 1, held: 3 });
  t.equal(await h.first.attempt(h.record(c), c), false, "a third subscription's delivery takes the job path");
  for (const release of releases) release(ok);
  t.same(await Promise.all(held), [true, true, true]);
  t.equal(await h.first.attempt(h.record(c), c), true, "and goes first again once the others are done");
  t.same(h.first.load(c.id), { running: 0, waiting: 0, held: 0 });
  t.same(h.outcomes.slice().sort(), ["busy", "made", "made", "made", "made"]);
});

test("a second copy of a delivery while its first attempt runs here waits for it and sends nothing", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  let release: (r: AttemptResult) => void = () => {};
  h.answers.push(new Promise<AttemptResult>((resolve) => (release = resolve)));
  const a = h.first.attempt(record, sub);
  const b = h.first.attempt({ ...record }, sub);
  await new Promise((r) => setTimeout(r, 20));
  release(ok);
  t.same([await a, await b], [true, true]);
  t.equal(h.sent.length, 1, "one POST");
  t.same(h.outcomes.slice().sort(), ["joined", "made"]);
});

test("a subscription deleted before the POST: nothing sent, nothing recorded", async (t) => {
  const h = harness();
  const sub = h.sub();
  const record = h.record(sub);
  h.subs.delete(sub.id);
  t.equal(await h.first.attempt(record, sub), true);
  t.equal(h.sent.length, 0);
  t.equal(await stored(record.delivery_id), null);
  t.same(h.outcomes, ["deleted"]);
});

/**
 * A first attempt answered 500, its job's publish fails, and at that moment the subscription is changed by `change`
 * (before the event comes again): the event's second fan-out must still publish the job.
 */
async function lostJobPublishedAfter(t: Test, change: (sub: SubscriptionRecord) => SubscriptionRecord): Promise<void> {
  await openRuntime(nc, { replicas: 1 }); // the EVENTS stream the fan-out reads
  const h = harness();
  const sub = h.sub();
  let failNext = true;
  const js = new Proxy(stores.js, {
    get(target, prop) {
      if (prop === "publish") {
        return async (subject: string, data: Uint8Array, opts?: object) => {
          if (subject.startsWith(WEBHOOK_SUBJECTS.job(sub.id)) && failNext) {
            failNext = false;
            h.subs.set(sub.id, change(sub));
            throw new Error("publish timed out");
          }
          return target.publish(subject, data, opts);
        };
      }
      const v = (target as unknown as Record<string | symbol, unknown>)[prop];
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const failing = { ...stores, js };
  const first = new FirstAttempts({ deliver: h.deps, stores: failing, health: h.health }, { perSubscription: 4, waitingPerSubscription: 8, total: 64 });
  const fanout = new FanoutConsumer(
    {
      js: stores.js,
      jsm,
      stores: failing,
      subscriptions: async () => [...h.subs.values()],
      clock: systemClock,
      log,
      deliveryIdKey: deliveryIdKey(masterKey),
      firstAttempt: (record, s, firstCopy) => first.attempt(record, s, { firstCopy }),
    },
    { concurrency: 4 },
  );
  await fanout.start();
  t.teardown(() => fanout.stop());
  await new Promise((r) => setTimeout(r, CONSUMER_CREATED_MARGIN_MS + 200));
  await publish(nc, makeEvent("agent.connected", { agent_id: "lost-job" }));
  // The endpoint answers 500: the record is pending, its job publish fails, the event is nak'd and comes again.
  const job = await eventually(async () => (await jobOf(sub.id)) ?? undefined, 15_000);
  t.ok(job, "the job is published by the event's second fan-out");
  t.equal(h.sent.length, 1, "one POST, the first attempt's");
  const record = await stored(JSON.parse(new TextDecoder().decode(job.data)).delivery_id);
  t.equal(record?.status, "pending");
  t.equal(record?.attempt_count, 1);
}

test("a retry's job whose publish failed is published when the event comes again, even to a subscription paused since", async (t) => {
  await lostJobPublishedAfter(t, (sub) => ({ ...sub, active: false }));
});

test("a retry's job whose publish failed is published when the event comes again, even to a subscription given other event types since", async (t) => {
  await lostJobPublishedAfter(t, (sub) => ({ ...sub, events: ["investigation.completed"], wants_since: new Date().toISOString() }));
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
