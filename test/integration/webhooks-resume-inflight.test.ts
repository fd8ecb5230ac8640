// A resumed subscription's copies (resume.ts) against jobs that were not held but in a dispatcher's hands at the
// resume: one waiting for its request slot, and a first copy taking its attempt when a second scan reads it. Each
// delivery must be POSTed once. Real nats-server, the real subscription cache; the far side is a fake `send`.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { openWebhookStores, WEBHOOK_STREAMS, WEBHOOK_SUBJECTS, type DeliveryJob, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { deliverJob, type DeliverDeps, type Job, type Posted } from "../../services/dispatcher/deliver.js";
import { resendHeld } from "../../services/dispatcher/resume.js";
import { SubscriptionCache } from "../../services/dispatcher/subscription-cache.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent } from "../helpers/webhooks.js";

const log = pino({ level: "silent" });
const ok: AttemptResult = { kind: "response", status: 200, body: "ok", durationMs: 1 };
let nats: NatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let stores: WebhookStores;
let cache: SubscriptionCache;

test("setup", async () => {
  nats = await startNats();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  stores = await openWebhookStores(nc, jsm, js, 1);
  cache = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, Buffer.alloc(32, 3), log);
  await cache.start();
});

async function makeSub(n: number, active: boolean): Promise<SubscriptionRecord> {
  const sub = newSubscription(`sub_INFLIGHT${String(n).padStart(18, "0")}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(Buffer.alloc(32, 3), newWebhookSecret()), Date.now());
  await stores.subscriptions.create(sub.id, { ...sub, active });
  return sub;
}

/** A pending delivery of `sub` and its job in the stream (no attempt yet); its job's sequence. */
async function makeDelivery(sub: SubscriptionRecord, n: number): Promise<{ id: string; seq: number }> {
  const record = newDeliveryRecord({ deliveryId: `dlv_INFLIGHT${String(n).padStart(18, "0")}`, subscriptionId: sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: Date.now() });
  await stores.deliveries.create(record.delivery_id, record);
  const ack = await js.publish(WEBHOOK_SUBJECTS.job(sub.id), encodeJson({ delivery_id: record.delivery_id, subscription_id: sub.id }));
  return { id: record.delivery_id, seq: ack.seq };
}

/** The copies resendHeld published after `afterSeq`, as jobs. */
async function copiesAfter(afterSeq: number): Promise<Job[]> {
  const last = (await jsm.streams.info(WEBHOOK_STREAMS.jobs.name)).state.last_seq;
  const jobs: Job[] = [];
  for (let seq = afterSeq + 1; seq <= last; seq++) {
    const m = await jsm.streams.getMessage(WEBHOOK_STREAMS.jobs.name, { seq });
    const body = JSON.parse(new TextDecoder().decode(m!.data)) as DeliveryJob;
    if (body.resumes) jobs.push({ deliveryId: body.delivery_id, seq, deliveryCount: 1, seed: null, resumes: body.resumes });
  }
  return jobs;
}

/** deliverJob's deps over the real cache; `sent` gets the delivery id of each POST, `slot` gates the request slot. */
function deps(sent: string[], opts: { slot?: Promise<void>; answer?: (n: number) => Promise<AttemptResult> } = {}): DeliverDeps {
  const d: DeliverDeps = {
    deliveries: stores.deliveries,
    subscription: (id: string) => cache.get(id),
    resumedAt: (id: string) => cache.resumedAt(id),
    secretOf: () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    send: async (req: { headers: Record<string, string> }) => {
      sent.push(String(req.headers["X-Service-Delivery"]));
      return opts.answer ? opts.answer(sent.length) : ok;
    },
    requestSlot: async (_id: string, post: () => Promise<Posted>) => {
      if (opts.slot) await opts.slot;
      return post();
    },
    clock: { now: () => Date.now() },
    log,
    retryDelaysMs: [1, 1, 1, 1],
    timeoutMs: 1_000,
    pausedRecheckMs: 2_000,
    pausedRecheckMaxMs: 60_000,
    userAgent: "Inquest-Webhooks/test",
  };
  return d;
}

test("jobs waiting for a request slot when their copies take over do not POST after them", async (t) => {
  const sub = await makeSub(1, false);
  await eventually(async () => ((await cache.get(sub.id))?.active === false ? true : undefined));
  const before = await makeDelivery(sub, 1);
  const after = await makeDelivery(sub, 2);
  const sent: string[] = [];
  let freeSlot!: () => void;
  const slot = new Promise<void>((r) => (freeSlot = r));
  // Loaded its record while paused, and waits behind slow POSTs of its subscription through the resume.
  const waitingBefore = deliverJob(deps(sent, { slot }), { deliveryId: before.id, seq: before.seq, deliveryCount: 1, seed: null });
  await new Promise((r) => setTimeout(r, 100));
  await stores.subscriptions.update(sub.id, (s) => ({ ...s, active: true, updated_at: new Date().toISOString() }));
  await eventually(async () => ((await cache.get(sub.id))?.active ? true : undefined));
  // Loaded its record just after this dispatcher saw the resume, before the scan reached it; waits the same way.
  const waitingAfter = deliverJob(deps(sent, { slot }), { deliveryId: after.id, seq: after.seq, deliveryCount: 1, seed: null });
  await new Promise((r) => setTimeout(r, 100));

  t.equal(await resendHeld({ js, jsm, deliveries: stores.deliveries, log }, sub.id), 2, "the resume copies both");
  const copies = await copiesAfter(after.seq);
  for (const copy of copies) t.same(await deliverJob(deps(sent), copy), { kind: "ack" }, "the copy delivers it");
  freeSlot();
  t.same(await waitingBefore, { kind: "ack" }, "the job that waited through the resume is dropped");
  t.same(await waitingAfter, { kind: "ack" }, "so is the one loaded just after it");
  t.same([...sent].sort(), [before.id, after.id].sort(), "each POSTed once, by its copy");
});

test("a second scan does not copy a copy that is taking its attempt; a copy held again after an attempt is copied", async (t) => {
  const sub = await makeSub(2, true);
  const d = await makeDelivery(sub, 3);
  const resume = { js, jsm, deliveries: stores.deliveries, log };
  t.equal(await resendHeld(resume, sub.id), 1, "the first scan copies the held job");
  const copy = (await copiesAfter(d.seq))[0] as Job;
  const sent: string[] = [];
  let answer!: (r: AttemptResult) => void;
  const answered = new Promise<AttemptResult>((r) => (answer = r));
  const first = deliverJob(deps(sent, { answer: () => answered }), copy);
  await eventually(async () => (sent.length === 1 ? true : undefined));
  // The other replica (or a second resume) scans while the copy's POST is in flight.
  t.equal(await resendHeld(resume, sub.id), 0, "the copy mid-POST is not copied");
  const copiesOfCopy = await copiesAfter(copy.seq);
  t.same(copiesOfCopy, [], "nothing published");
  // Were one published, it would take the delivery over from the copy mid-POST and POST again.
  for (const c of copiesOfCopy) await deliverJob(deps(sent), c);
  answer({ kind: "response", status: 503, body: "busy", durationMs: 1 });
  t.equal((await first).kind, "nak", "its attempt failed: a retry is due");
  t.equal(sent.length, 1, "one POST");
  // The copy now owns a delivery with an attempt made, like any held job: a later resume copies it.
  t.equal(await resendHeld(resume, sub.id), 1, "a later scan copies it");
  const again = (await copiesAfter(copy.seq))[0];
  t.same(again?.resumes, { seq: copy.seq, attempts: 1 });
});

test("teardown", async () => {
  await cache.stop();
  await nc.close();
  await nats.stop();
});
