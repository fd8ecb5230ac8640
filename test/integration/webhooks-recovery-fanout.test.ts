// A bulk recovery against the fan-out it runs beside (docs/api.md#recovery): events the fan-out has not settled yet
// (its backlog, a first attempt in flight) are the fan-out's to deliver, so a recovery that runs first must not send
// them too; once the fan-out has settled them, a recovery finds what it skipped. Real nats-server, fan-out and
// recovery run, driven in the order that races in production.
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import type { RecoveryRecord } from "../../shared/webhooks/recovery.js";
import { requestRecovery } from "../../shared/webhooks/recovery-request.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { runRecovery } from "../../services/dispatcher/recovery-run.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { deliveriesOf, fanoutSettled, makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 9);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;
let jobSeq = 0;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
});

/** A subscription created at `createdMs`: owed the events stored since then. */
async function subscription(n: number, active: boolean, createdMs: number): Promise<SubscriptionRecord> {
  const sub = { ...newSubscription(`sub_RECFAN${String(n).padStart(20, "0")}`, { url: "https://93.184.216.34/x", events: ["agent.registered"] }, encryptSecret(masterKey, newWebhookSecret()), createdMs), active };
  await stores.subscriptions.put(sub.id, sub);
  return sub;
}

function fanout(subs: SubscriptionRecord[]): FanoutConsumer {
  // No first attempts: every delivery takes the job path, and no job consumer runs, so each record stays as made.
  return new FanoutConsumer({ js: stores.js, jsm, stores, subscriptions: async () => subs, clock: systemClock, log, deliveryIdKey: deliveryIdKey(masterKey) }, { concurrency: 4 });
}

/** Asks for a recovery of the last minute and runs it here, to its end. */
async function recover(sub: SubscriptionRecord): Promise<RecoveryRecord> {
  const asked = await requestRecovery({ stores, masterKey, clock: systemClock, deadLetters: async () => 0 }, sub.id, { since: new Date(Date.now() - 60_000).toISOString() });
  if (asked.kind !== "accepted") throw new Error(`recovery not accepted: ${asked.kind}`);
  const { recovery_id: id, run } = asked.recovery;
  const deps = { js: stores.js, jsm, stores, subscription: async (s: string) => (await stores.subscriptions.get(s))?.value ?? null, deliveryIdKey: deliveryIdKey(masterKey), clock: systemClock, log, stopping: () => false };
  const outcome = await runRecovery(deps, id, run, ++jobSeq);
  if (outcome !== "finished") throw new Error(`recovery run ${outcome}`);
  return (await stores.recoveries.get(id))?.value as RecoveryRecord;
}


test("a recovery that runs before the fan-out got to the events leaves them to it: each is delivered once", async (t) => {
  const sub = await subscription(1, true, Date.now() - 60_000);
  const events = [0, 1, 2].map((i) => makeEvent("agent.registered", { agent_id: `race-${i}`, hostname: `h${i}`, tags: {}, status: "online" }));
  for (const e of events) await publish(nc, e);

  // The fan-out has not started: these events are its backlog, not deliveries the subscription missed.
  const early = await recover(sub);
  t.equal(early.status, "completed");
  t.equal(early.resent_missed, 0, "nothing counted as missed");
  t.equal(early.events_left_to_fanout, events.length, "the result says how many events it left to the fan-out");
  t.same(await deliveriesOf(stores, sub), [], "nothing sent by the recovery");

  const fan = fanout([sub]);
  await fan.start();
  t.teardown(() => fan.stop());
  await eventually(() => fanoutSettled(jsm), 15_000);
  const made = await deliveriesOf(stores, sub);
  t.same(made.map((d) => d.event_id).sort(), events.map((e) => e.event_id).sort(), "one delivery per event, the fan-out's");
});

test("once the fan-out has settled the events, a recovery finds the ones a paused subscription missed", async (t) => {
  // Created now: the first test's events, stored before, are not owed to it.
  const paused = await subscription(2, false, Date.now());
  const fan = fanout([paused]);
  await fan.start();
  t.teardown(() => fan.stop());
  const events = [0, 1].map((i) => makeEvent("agent.registered", { agent_id: `paused-${i}`, hostname: `p${i}`, tags: {}, status: "online" }));
  for (const e of events) await publish(nc, e);
  // Published on another type's subject: the fan-out refuses it, so it is owed to nobody, and recovery must agree.
  const misfiled = makeEvent("agent.registered", { agent_id: "misfiled", hostname: "m", tags: {}, status: "online" });
  await jetstream(nc).publish("events.agent.connected", JSON.stringify(misfiled), { msgID: misfiled.event_id });
  await eventually(() => fanoutSettled(jsm), 15_000);
  t.same(await deliveriesOf(stores, paused), [], "the fan-out skipped the paused subscription");

  const done = await recover(paused);
  t.equal(done.resent_missed, events.length, "every missed event re-sent");
  t.equal(done.events_left_to_fanout, 0, "nothing left to the fan-out");
  const resent = await deliveriesOf(stores, paused);
  t.same(resent.map((d) => d.event_id).sort(), events.map((e) => e.event_id).sort(), "not the envelope the fan-out refused");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
