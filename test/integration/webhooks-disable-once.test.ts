// A subscription turned off is announced once (docs/api.md#failing-endpoints): several of its deliveries in flight
// at once that each end the way that turns it off (a 410 each, or each a failure past INQUEST_DISABLE_FAILING_AFTER)
// carry the subscription as it was before their POSTs, still on; only one subscription.disabled reaches EVENTS (or
// every copy carries the same event_id). Real nats-server (EVENTS, the subscriptions bucket), the dispatcher's real
// `disable` and `noteOutcome`.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import type { EventEnvelope } from "../../shared/schemas/events.js";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { disable, noteOutcome, type FailingDeps } from "../../services/dispatcher/failing-endpoints.js";
import type { NatsServer } from "../helpers/nats.js";
import { makeEvent, storedEventsOf, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 5);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let stores: WebhookStores;
let n = 0;
const clock = { t: Date.parse("2026-11-27T12:00:00.000Z") };

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
  jsm = await jetstreamManager(nc);
});

async function subscription(extra: Partial<SubscriptionRecord> = {}): Promise<SubscriptionRecord> {
  const sub = { ...newSubscription(`sub_DSBL${String(n++).padStart(22, "0")}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(masterKey, newWebhookSecret()), clock.t), ...extra };
  await stores.subscriptions.put(sub.id, sub);
  return sub;
}

function delivery(sub: SubscriptionRecord): DeliveryRecord {
  return newDeliveryRecord({ deliveryId: `dlv_DSBL${String(n++).padStart(22, "0")}`, subscriptionId: sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: clock.t });
}

const deps = (): FailingDeps => ({ js: stores.js, subscriptions: stores.subscriptions, clock: { now: () => clock.t }, log, failingWindowMs: 60_000 });

test("three deliveries in flight each answered 410: the subscription is turned off and announced once", async (t) => {
  const sub = await subscription();
  // Each job read the subscription (on) before its POST; the answers come one after the other.
  for (const d of [delivery(sub), delivery(sub), delivery(sub)]) await disable(deps(), sub, d, "endpoint_gone");
  t.match((await stores.subscriptions.get(sub.id))?.value, { active: false, disabled_reason: "endpoint_gone" });
  const events = await announced(sub.id);
  t.equal(new Set(events.map((e) => e.event_id)).size, 1, "one event_id");
  t.equal(events.length, 1, "announced once");
});

test("three deliveries in flight each failing past the window: the subscription is turned off and announced once", async (t) => {
  const sub = await subscription({ failing_since: new Date(clock.t - 120_000).toISOString() });
  for (const d of [delivery(sub), delivery(sub), delivery(sub)]) await noteOutcome(deps(), sub, d, false, clock.t);
  t.match((await stores.subscriptions.get(sub.id))?.value, { active: false, disabled_reason: "failing" });
  const events = await announced(sub.id);
  t.equal(new Set(events.map((e) => e.event_id)).size, 1, "one event_id");
  t.equal(events.length, 1, "announced once");
});

test("turned back on and failing again: a second announcement, with its own event_id", async (t) => {
  const sub = await subscription();
  await disable(deps(), sub, delivery(sub), "endpoint_gone");
  clock.t += 5_000;
  const on = { ...sub, active: true, disabled_reason: null, updated_at: new Date(clock.t).toISOString() };
  await stores.subscriptions.put(sub.id, on);
  await disable(deps(), on, delivery(on), "endpoint_gone");
  const events = await announced(sub.id);
  t.equal(events.length, 2, "each turning off is announced");
  t.equal(new Set(events.map((e) => e.event_id)).size, 2, "with two event ids");
});

test("a failure whose copy shows an old run of failures, which a success has ended since: not turned off, a new run starts", async (t) => {
  const startedMs = clock.t - 120_000;
  // The copy the failing attempt read before its POST: failing since before the window.
  const copy = await subscription({ failing_since: new Date(startedMs).toISOString() });
  // A success of another delivery in flight at the same time ended that run meanwhile.
  await stores.subscriptions.put(copy.id, { ...copy, failing_since: null });
  await noteOutcome(deps(), copy, delivery(copy), false, clock.t - 1_000);
  const stored = (await stores.subscriptions.get(copy.id))?.value;
  t.equal(stored?.active, true, "still on");
  t.equal(stored?.disabled_reason ?? null, null);
  t.equal(stored?.failing_since, new Date(clock.t - 1_000).toISOString(), "this failure starts a new run");
  t.same(await announced(copy.id), [], "nothing announced");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});

/** The subscription.disabled events stored in EVENTS about subscription `id`. */
async function announced(id: string): Promise<EventEnvelope[]> {
  return (await storedEventsOf(stores, jsm, "subscription.disabled")).filter((e) => (e.data as { subscription_id?: string }).subscription_id === id);
}
