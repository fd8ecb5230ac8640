// A bulk recovery and the replays made by hand (docs/api.md#recovery, #replay): a dead letter replayed by hand is,
// per the delivery states (spec 3.1: failed_permanent --replay--> pending), a delivery again; a recovery re-sends it
// only if that replay was dead-lettered too. Real nats-server, fan-out, replay and recovery run; no job consumer, so
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
import type { DeliveryStatus } from "../../shared/webhooks/schemas.js";
import { requestRecovery } from "../../shared/webhooks/recovery-request.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { runRecovery } from "../../services/dispatcher/recovery-run.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { deliveriesOf, endDelivery, fanoutSettled, makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 11);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
});



test("a dead letter replayed by hand is re-sent by a recovery only if the replay failed too", async (t) => {
  const sub: SubscriptionRecord = newSubscription(`sub_REPLAYED${String(1).padStart(18, "0")}`, { url: "https://93.184.216.34/x", events: ["agent.registered"] }, encryptSecret(masterKey, newWebhookSecret()), Date.now() - 60_000);
  await stores.subscriptions.put(sub.id, sub);
  const fan = new FanoutConsumer({ js: stores.js, jsm, stores, subscriptions: async () => [sub], clock: systemClock, log, deliveryIdKey: deliveryIdKey(masterKey) }, { concurrency: 4 });
  await fan.start();
  t.teardown(() => fan.stop());
  const names = ["replay-delivered", "replay-pending", "replay-failed", "replay-failed-then-replayed", "not-replayed"] as const;
  const events = names.map((name) => makeEvent("agent.registered", { agent_id: name, hostname: name, tags: {}, status: "online" }));
  for (const e of events) await publish(nc, e);
  await eventually(() => fanoutSettled(jsm), 15_000);
  const originals = new Map((await deliveriesOf(stores, sub)).map((d) => [d.event_id, d.delivery_id]));
  t.equal(originals.size, events.length, "the fan-out made one delivery per event");
  for (const id of originals.values()) await endDelivery(stores, id, "failed_permanent");

  // Replayed by hand (POST /v1/webhooks/deliveries/{id}/replay), each replay then ends as its name says.
  const manage: ManageDeps = { stores, masterKey, clock: systemClock, checkUrl: async (url) => ({ ok: true, url: new URL(url) }), publicUrl: "http://localhost", pendingDeliveries: async () => [] };
  const replayEnds: Record<(typeof names)[number], DeliveryStatus[]> = {
    "replay-delivered": ["delivered"],
    "replay-pending": ["pending"],
    "replay-failed": ["failed_permanent"],
    // The failed replay replayed in turn, and that one delivered.
    "replay-failed-then-replayed": ["failed_permanent", "delivered"],
    "not-replayed": [],
  };
  for (const [i, e] of events.entries()) {
    let replayed = originals.get(e.event_id) as string;
    for (const end of replayEnds[names[i] as (typeof names)[number]]) {
      const r = await replayDelivery(manage, replayed);
      if (r.kind !== "queued") return t.fail(`replay: ${r.kind}`);
      if (end !== "pending") await endDelivery(stores, r.deliveryId, end);
      replayed = r.deliveryId;
    }
  }
  const before = new Set((await deliveriesOf(stores, sub)).map((d) => d.delivery_id));

  const asked = await requestRecovery({ stores, masterKey, clock: systemClock, deadLetters: async () => originals.size }, sub.id, { since: new Date(Date.now() - 60_000).toISOString() });
  if (asked.kind !== "accepted") return t.fail(`recovery: ${asked.kind}`);
  const deps = { js: stores.js, jsm, stores, subscription: async (s: string) => (await stores.subscriptions.get(s))?.value ?? null, deliveryIdKey: deliveryIdKey(masterKey), clock: systemClock, log, stopping: () => false };
  t.equal(await runRecovery(deps, asked.recovery.recovery_id, asked.recovery.run, 1), "finished");
  const done = (await stores.recoveries.get(asked.recovery.recovery_id))?.value as RecoveryRecord;

  const resent = (await deliveriesOf(stores, sub)).filter((d) => !before.has(d.delivery_id));
  const resentFor = new Set(resent.map((d) => (d.envelope.data as { agent_id: string }).agent_id));
  t.same([...resentFor].sort(), ["not-replayed", "replay-failed"], "re-sent: the dead letter nobody replayed, and the one whose replay failed too");
  t.equal(done.resent_dead_letters, 2);
  t.ok(resent.every((d) => d.replay_of !== null && [...originals.values()].includes(d.replay_of)), "each re-send names the fan-out's dead letter");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
