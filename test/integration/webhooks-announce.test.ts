// A delivery's announcements (delivery.dead_lettered, and subscription.disabled for a 410) when publishing them
// fails after the POST (docs/api.md#failing-endpoints): the attempt is recorded, with the announcements owed in
// its record, and never POSTed again; the job's redeliveries (or the fan-out's, through a job) publish what is owed
// once EVENTS takes it, under the same event ids. Real nats-server (EVENTS, the deliveries bucket, the jobs stream),
// the dispatcher's real announcers, an injected clock and a fake far side.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import type { EventEnvelope } from "../../shared/schemas/events.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { WEBHOOK_STREAMS, WEBHOOK_SUBJECTS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, republishLostJob, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { deliverJob, postedDelivered, type DeliverDeps, type Job } from "../../services/dispatcher/deliver.js";
import { jobFromMessage } from "../../services/dispatcher/delivery-consumer.js";
import { EndpointHealth } from "../../services/dispatcher/endpoint-health.js";
import { announceDeadLetter, disable } from "../../services/dispatcher/failing-endpoints.js";
import { FirstAttempts } from "../../services/dispatcher/first-attempt.js";
import type { NatsServer } from "../helpers/nats.js";
import { makeEvent, storedEventsOf, webhookBus } from "../helpers/webhooks.js";

const DELAYS = [30_000, 120_000, 600_000, 3_600_000];
const masterKey = Buffer.alloc(32, 3);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;
let n = 0;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
});

type Announced = "delivery.dead_lettered" | "subscription.disabled";
const BOTH: Announced[] = ["delivery.dead_lettered", "subscription.disabled"];

interface Harness {
  deps: DeliverDeps;
  sub: SubscriptionRecord;
  /** POSTs made. */
  posts: number;
  /** Answers of the coming POSTs, in order (a 503 when none is left). */
  answers: AttemptResult[];
  /** Announcements whose publish fails for now (as when EVENTS is unavailable). */
  down: Set<Announced>;
  clock: { t: number };
}

async function harness(): Promise<Harness> {
  const clock = { t: Date.parse("2026-11-27T12:00:00.000Z") + n * 1000 };
  const sub = newSubscription(`sub_ANNC${String(n++).padStart(22, "0")}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(masterKey, newWebhookSecret()), clock.t);
  await stores.subscriptions.put(sub.id, sub);
  const failing = { js: stores.js, subscriptions: stores.subscriptions, clock: { now: () => clock.t }, log, failingWindowMs: 86_400_000 };
  const down = (type: Announced) => {
    if (h.down.has(type)) throw new Error("nats: stream EVENTS unavailable");
  };
  const h: Harness = {
    sub,
    posts: 0,
    answers: [],
    down: new Set(BOTH),
    clock,
    deps: {
      deliveries: stores.deliveries,
      subscription: async (id) => (await stores.subscriptions.get(id))?.value ?? null,
      secretOf: () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      send: async () => {
        h.posts++;
        return h.answers.shift() ?? { kind: "response", status: 503, body: "busy", durationMs: 5 };
      },
      deadLettered: async (record) => {
        down("delivery.dead_lettered");
        await announceDeadLetter(failing, record);
      },
      disableGone: async (s, record) => {
        down("subscription.disabled");
        await disable(failing, s, record, "endpoint_gone");
      },
      clock: { now: () => clock.t },
      log,
      retryDelaysMs: DELAYS,
      timeoutMs: 10_000,
      pausedRecheckMs: 2_000,
      pausedRecheckMaxMs: 60_000,
      userAgent: "Inquest-Webhooks/test",
    },
  };
  return h;
}

function record(h: Harness): DeliveryRecord {
  return newDeliveryRecord({ deliveryId: `dlv_ANNC${String(n++).padStart(22, "0")}`, subscriptionId: h.sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: h.clock.t });
}

const stored = async (id: string): Promise<DeliveryRecord> => (await stores.deliveries.get(id))?.value as DeliveryRecord;

/** The job as the delivery consumer runs it: a throw is a nak (1 s), and JetStream hands the job out again. */
async function redeliver(h: Harness, job: Job): Promise<string> {
  try {
    const action = await deliverJob(h.deps, job);
    return action.kind;
  } catch {
    h.clock.t += 1_000;
    return "threw";
  }
}


/** The job message published for the subscription, as the delivery consumer hands it over. */
async function jobOf(h: Harness): Promise<Job> {
  const msg = await jsm.streams.getMessage(WEBHOOK_STREAMS.jobs.name, { last_by_subj: WEBHOOK_SUBJECTS.job(h.sub.id) });
  if (!msg) throw new Error("no job published");
  const parsed = jobFromMessage({ data: msg.data, seq: msg.seq, info: { deliveryCount: 1 } } as never, h.clock.t);
  if (!parsed) throw new Error("malformed job");
  return parsed.job;
}

test("the last attempt's dead letter cannot be published: one POST, and the announcement once EVENTS takes it", async (t) => {
  const h = await harness();
  const r = record(h);
  // Four attempts spent; the fifth is due now.
  const four: DeliveryRecord = {
    ...r,
    attempt_count: 4,
    attempts: [1, 2, 3, 4].map((attempt) => ({ attempt, at: r.created_at, response_code: 503, duration_ms: 5, error: "http_503" })),
    internal: { job_seq: 7 },
  };
  await stores.deliveries.create(r.delivery_id, four);
  const job: Job = { deliveryId: r.delivery_id, seq: 7, deliveryCount: 5, seed: null };
  const actions: string[] = [];
  for (let i = 0; i < 4; i++) actions.push(await redeliver(h, job));
  t.equal(h.posts, 1, "the fifth attempt is POSTed once, however often the job comes back");
  t.same(actions, ["threw", "threw", "threw", "threw"], "each redelivery fails on the announcement alone");
  const owed = await stored(r.delivery_id);
  t.match(owed, { status: "failed_permanent", attempt_count: 5 }, "the attempt is recorded at once");
  t.same(owed.internal.announce_pending, ["delivery.dead_lettered"], "with its announcement owed");
  t.same(await storedEvents("delivery.dead_lettered", r.delivery_id), [], "not announced yet");

  h.down.clear();
  t.equal(await redeliver(h, job), "ack", "the next redelivery announces it and is done");
  t.equal(await redeliver(h, job), "ack", "a copy after that finds nothing owed");
  t.equal(h.posts, 1, "still one POST");
  const done = await stored(r.delivery_id);
  t.equal(done.internal.announce_pending, undefined, "nothing owed any more");
  t.equal(done.attempt_count, 5, "five attempts, no more");
  const announced = await storedEvents("delivery.dead_lettered", r.delivery_id);
  t.equal(announced.length, 1, "announced once");
  t.match(announced[0]?.data, { delivery_id: r.delivery_id, attempt_count: 5, last_error: "http_503" });
});

test("a 410 whose subscription.disabled cannot be published: one POST; the subscription is turned off and both events sent later", async (t) => {
  const h = await harness();
  const r = record(h);
  await stores.deliveries.create(r.delivery_id, r);
  h.answers.push({ kind: "response", status: 410, body: "gone", durationMs: 5 });
  const job: Job = { deliveryId: r.delivery_id, seq: 11, deliveryCount: 1, seed: null };
  t.equal(await redeliver(h, job), "threw");
  t.equal(await redeliver(h, { ...job, deliveryCount: 2 }), "threw");
  t.equal(h.posts, 1, "the 410 is not POSTed for again");
  t.same((await stored(r.delivery_id)).internal.announce_pending, ["subscription.disabled", "delivery.dead_lettered"]);
  t.equal((await stores.subscriptions.get(h.sub.id))?.value.active, true, "not turned off yet: that is owed too");

  h.down.clear();
  t.equal(await redeliver(h, { ...job, deliveryCount: 3 }), "ack");
  t.equal(h.posts, 1);
  t.match((await stores.subscriptions.get(h.sub.id))?.value, { active: false, disabled_reason: "endpoint_gone" });
  t.equal((await storedEvents("subscription.disabled", r.delivery_id)).length, 1, "subscription.disabled once");
  t.equal((await storedEvents("delivery.dead_lettered", r.delivery_id)).length, 1, "delivery.dead_lettered once");
  t.match(await stored(r.delivery_id), { status: "failed_permanent", last_error: "http_410" });
  t.equal((await stored(r.delivery_id)).internal.announce_pending, undefined);
});

test("a first attempt whose announcement fails: the fan-out's retry of the event publishes a job that announces it, with no POST", async (t) => {
  for (const gone of [false, true]) {
    const h = await harness();
    const health = new EndpointHealth({ now: () => h.clock.t }, { slowMs: 60_000, coolDownMs: 30_000 });
    const first = new FirstAttempts({ deliver: { ...h.deps, requestSlot: (id, post) => health.watch(id, post, postedDelivered) }, stores, health }, { perSubscription: 4, waitingPerSubscription: 8, total: 64 });
    const r = record(h);
    h.answers.push({ kind: "response", status: gone ? 410 : 400, body: "no", durationMs: 5 });
    // A 410 turns the subscription off (and that is announced); only the dead letter fails.
    h.down = new Set(["delivery.dead_lettered"]);
    await t.rejects(first.attempt(r, h.sub, { firstCopy: true }), "the fan-out naks the event");
    t.equal(h.posts, 1, "one POST");
    t.match(await stored(r.delivery_id), { status: "failed_permanent", attempt_count: 1 });
    // The event comes again: to a subscription still on it is enqueued with the recheck; one turned off by the 410
    // is no target any more, and the recheck of its owed deliveries finds it.
    if (gone) t.equal(await republishLostJob(stores, r.delivery_id), true, "a job for the owed announcement");
    else t.same(await enqueueDelivery(stores, r, { recheck: true }), { kind: "requeued" }, "a job for the owed announcement");
    h.down.clear();
    t.equal(await redeliver(h, await jobOf(h)), "ack");
    t.equal(h.posts, 1, "no second POST");
    t.equal((await storedEvents("delivery.dead_lettered", r.delivery_id)).length, 1, "announced once");
    t.equal((await stored(r.delivery_id)).internal.announce_pending, undefined);
    if (gone) t.equal((await storedEvents("subscription.disabled", r.delivery_id)).length, 1);
  }
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});

/** The events of `type` stored in EVENTS about delivery `deliveryId`. */
async function storedEvents(type: "delivery.dead_lettered" | "subscription.disabled", deliveryId: string): Promise<EventEnvelope[]> {
  return (await storedEventsOf(stores, jsm, type)).filter((e) => (e.data as { delivery_id?: string }).delivery_id === deliveryId);
}
