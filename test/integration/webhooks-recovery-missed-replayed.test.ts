// A later run of a recovery and the replays made by hand of an earlier run's re-sends (docs/api.md#recovery): a
// missed event (no delivery from the fan-out: the subscription was paused) that run 1 re-sent, whose re-send was
// dead-lettered and then replayed by hand with success, was delivered: run 2 leaves it alone, as it leaves alone a
// dead letter whose replay was delivered. Real nats-server, fan-out, replay and recovery runs; no job consumer, so
// each record stays as the test writes it.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { replayDelivery, type ManageDeps } from "../../shared/webhooks/manage.js";
import type { RecoveryRecord } from "../../shared/webhooks/recovery.js";
import { requestRecovery } from "../../shared/webhooks/recovery-request.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { runRecovery } from "../../services/dispatcher/recovery-run.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { deliveriesOf, endDelivery, fanoutSettled, makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 13);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
});


const agentOf = (d: { envelope: { data: unknown } }) => (d.envelope.data as { agent_id: string }).agent_id;

test("run 2 leaves alone a missed event whose run-1 re-send failed but was then replayed by hand and delivered", async (t) => {
  const paused: SubscriptionRecord = {
    ...newSubscription(`sub_MISSEDRP${String(1).padStart(18, "0")}`, { url: "https://93.184.216.34/x", events: ["agent.registered"] }, encryptSecret(masterKey, newWebhookSecret()), Date.now() - 60_000),
    active: false,
  };
  await stores.subscriptions.put(paused.id, paused);
  const fan = new FanoutConsumer({ js: stores.js, jsm, stores, subscriptions: async () => [paused], clock: systemClock, log, deliveryIdKey: deliveryIdKey(masterKey) }, { concurrency: 4 });
  await fan.start();
  t.teardown(() => fan.stop());
  const names = ["replayed-delivered", "replayed-failed", "not-replayed"] as const;
  for (const name of names) await publish(nc, makeEvent("agent.registered", { agent_id: name, hostname: name, tags: {}, status: "online" }));
  await eventually(() => fanoutSettled(jsm), 15_000);
  t.same(await deliveriesOf(stores, paused), [], "paused: the fan-out made no delivery");

  const since = new Date(Date.now() - 60_000).toISOString();
  const deps = { js: stores.js, jsm, stores, subscription: async (s: string) => (await stores.subscriptions.get(s))?.value ?? null, deliveryIdKey: deliveryIdKey(masterKey), clock: systemClock, log, stopping: () => false };
  const ask = () => requestRecovery({ stores, masterKey, clock: systemClock, deadLetters: async () => 0 }, paused.id, { since });

  const first = await ask();
  if (first.kind !== "accepted") return t.fail(`recovery: ${first.kind}`);
  t.equal(await runRecovery(deps, first.recovery.recovery_id, 1, 1), "finished");
  const run1 = await deliveriesOf(stores, paused);
  t.equal(run1.length, names.length, "run 1 sent each missed event");
  // Each of run 1's re-sends was dead-lettered; two were replayed by hand, and one of those replays delivered.
  const manage: ManageDeps = { stores, masterKey, clock: systemClock, checkUrl: async (url) => ({ ok: true, url: new URL(url) }), publicUrl: "http://localhost", pendingDeliveries: async () => [] };
  for (const d of run1) {
    await endDelivery(stores, d.delivery_id, "failed_permanent");
    const name = agentOf(d);
    if (name === "not-replayed") continue;
    const r = await replayDelivery(manage, d.delivery_id);
    if (r.kind !== "queued") return t.fail(`replay: ${r.kind}`);
    await endDelivery(stores, r.deliveryId, name === "replayed-delivered" ? "delivered" : "failed_permanent");
  }
  const before = new Set((await deliveriesOf(stores, paused)).map((d) => d.delivery_id));

  const second = await ask();
  if (second.kind !== "accepted") return t.fail(`recovery: ${second.kind}`);
  t.equal(second.recovery.run, 2);
  t.equal(await runRecovery(deps, second.recovery.recovery_id, 2, 2), "finished");
  const resent = (await deliveriesOf(stores, paused)).filter((d) => !before.has(d.delivery_id));
  t.same(resent.map(agentOf).sort(), ["not-replayed", "replayed-failed"], "run 2 re-sent only what is still undelivered");
  const done = (await stores.recoveries.get(second.recovery.recovery_id))?.value as RecoveryRecord;
  t.equal(done.resent_missed, 2);
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
