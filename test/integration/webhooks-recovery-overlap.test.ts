// Recoveries that overlap (docs/api.md#recovery): two recoveries of windows that share events, run at once by two
// dispatchers, or a recovery that runs while a replay by hand is between its two steps, send each dead letter
// again once. Real nats-server (one connection per dispatcher), fan-out and recovery runs; no job consumer, so each
// record stays as written.
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test, type Test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { openWebhookStores, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, noteReplay, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import type { RecoveryRecord } from "../../shared/webhooks/recovery.js";
import { requestRecovery } from "../../shared/webhooks/recovery-request.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { runRecovery, type RecoveryRunDeps } from "../../services/dispatcher/recovery-run.js";
import { connectTo, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { deliveriesOf, fanoutSettled, makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 13);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;
/** A second dispatcher's connection and stores. */
let nc2: NatsConnection;
let stores2: WebhookStores;
let subs = 0;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
  nc2 = await connectTo(server.url);
  stores2 = await openWebhookStores(nc2, await jetstreamManager(nc2), jetstream(nc2), 1);
});

const runDeps = (s: WebhookStores, m: JetStreamManager): RecoveryRunDeps => ({
  js: s.js,
  jsm: m,
  stores: s,
  subscription: async (id) => (await s.subscriptions.get(id))?.value ?? null,
  deliveryIdKey: deliveryIdKey(masterKey),
  clock: systemClock,
  log,
  stopping: () => false,
});

/** A subscription whose `count` events were fanned out and whose deliveries all ended dead-lettered. */
async function deadLetters(t: Test, count: number): Promise<{ sub: SubscriptionRecord; dead: DeliveryRecord[] }> {
  const sub = newSubscription(`sub_OVERLAP${String(subs++).padStart(19, "0")}`, { url: "https://93.184.216.34/x", events: ["agent.registered"] }, encryptSecret(masterKey, newWebhookSecret()), Date.now() - 60_000);
  await stores.subscriptions.put(sub.id, sub);
  const fan = new FanoutConsumer({ js: stores.js, jsm, stores, subscriptions: async () => [sub], clock: systemClock, log, deliveryIdKey: deliveryIdKey(masterKey) }, { concurrency: 4 });
  await fan.start();
  t.teardown(() => fan.stop());
  for (let i = 0; i < count; i++) await publish(nc, makeEvent("agent.registered", { agent_id: `a${i}`, hostname: `h${i}`, tags: {}, status: "online" }));
  await eventually(() => fanoutSettled(jsm), 15_000);
  const dead: DeliveryRecord[] = [];
  for (const d of await deliveriesOf(stores, sub)) {
    const r = await stores.deliveries.update(d.delivery_id, (c) => ({ ...c, status: "failed_permanent", attempt_count: 5, next_attempt_at: null, last_error: "http_500" }));
    if (r) dead.push(r.value);
  }
  t.equal(dead.length, count, "one dead letter per event");
  return { sub, dead };
}

async function recover(sub: SubscriptionRecord, body: { since: string; until?: string }): Promise<RecoveryRecord> {
  const asked = await requestRecovery({ stores, masterKey, clock: systemClock, deadLetters: async () => 0 }, sub.id, body);
  if (asked.kind !== "accepted") throw new Error(`recovery: ${asked.kind}`);
  return (await stores.recoveries.get(asked.recovery.recovery_id))?.value as RecoveryRecord;
}

/** The deliveries made again of each dead letter (by recovery or replay), by dead letter. */
async function resends(sub: SubscriptionRecord, dead: DeliveryRecord[]): Promise<number[]> {
  const all = await deliveriesOf(stores, sub);
  return dead.map((d) => all.filter((r) => r.replay_of === d.delivery_id).length);
}

test("two recoveries of overlapping windows, run at once by two dispatchers, send each dead letter again once", async (t) => {
  const { sub, dead } = await deadLetters(t, 6);
  const now = Date.now();
  const a = await recover(sub, { since: new Date(now - 60_000).toISOString() });
  const b = await recover(sub, { since: new Date(now - 30_000).toISOString(), until: new Date(now).toISOString() });
  t.not(a.recovery_id, b.recovery_id, "two recoveries");
  const outcomes = await Promise.all([runRecovery(runDeps(stores, jsm), a.recovery_id, a.run, 1), runRecovery(runDeps(stores2, await jetstreamManager(nc2)), b.recovery_id, b.run, 1)]);
  t.same(outcomes, ["finished", "finished"]);
  t.same(await resends(sub, dead), dead.map(() => 1), "each dead letter sent again once");
  const counted = await Promise.all([a, b].map(async (r) => ((await stores.recoveries.get(r.recovery_id))?.value as RecoveryRecord).resent_dead_letters));
  t.equal(counted[0]! + counted[1]!, dead.length, `counted once between them (${counted.join(" + ")})`);

  // A third recovery afterwards finds every dead letter sent again already.
  const c = await recover(sub, { since: new Date(now - 45_000).toISOString() });
  t.equal(await runRecovery(runDeps(stores, jsm), c.recovery_id, c.run, 1), "finished");
  t.same(await resends(sub, dead), dead.map(() => 1), "still once");
  t.equal(((await stores.recoveries.get(c.recovery_id))?.value as RecoveryRecord).resent_dead_letters, 0);
});

test("a recovery that runs while a replay by hand is between noting itself and being enqueued sends the event once", async (t) => {
  const { sub, dead } = await deadLetters(t, 1);
  const original = dead[0] as DeliveryRecord;
  // POST .../replay, first step (manage.ts: replayDelivery): the replay is noted on the dead letter...
  const replay = newDeliveryRecord({ deliveryId: `dlv_REPLAY${String(subs).padStart(20, "0")}`, subscriptionId: sub.id, envelope: original.envelope, nowMs: Date.now(), replayOf: original.delivery_id });
  await stores.deliveries.update(original.delivery_id, (d) => noteReplay(d, replay.delivery_id));
  // ...a recovery runs before the second step...
  const r = await recover(sub, { since: new Date(Date.now() - 60_000).toISOString() });
  t.equal(await runRecovery(runDeps(stores2, await jetstreamManager(nc2)), r.recovery_id, r.run, 1), "finished");
  // ...which then enqueues the replay.
  await enqueueDelivery(stores, replay);
  t.same(await resends(sub, dead), [1], "the dead letter is sent again once");
});

test("teardown", async () => {
  await nc2.close();
  await nc.close();
  await server.stop();
});
