// The dispatcher's memory and fan-out stay bounded: opened subscription secrets are kept for a while, for a bounded
// number of subscriptions, and dropped when their subscription changes or goes; one event for many subscriptions
// creates its deliveries a bounded number at a time.
import { jetstreamManager, type JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { newSubscription, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { SubscriptionCache } from "../../services/dispatcher/subscription-cache.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 7);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
});

const sub = (id: string, secret: string, at = Date.now() - 60_000): SubscriptionRecord =>
  newSubscription(id, { url: "https://93.184.216.34/x", events: ["agent.connected"] }, encryptSecret(masterKey, secret), at);

test("opened secrets: bounded in number and time, dropped when their subscription changes or is deleted", async (t) => {
  const clock = { t: 1_000_000, now: () => clock.t };
  const cache = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, masterKey, log, { ttlMs: 60_000, maxEntries: 3, clock });
  await cache.start();
  t.teardown(() => cache.stop());
  const subs = Array.from({ length: 5 }, (_, i) => sub(`sub_SECRET${String(i).padStart(20, "0")}`, `whsec_${i}`));
  for (const s of subs) await stores.subscriptions.put(s.id, s);
  await cache.fresh(performance.now());

  for (const s of subs) t.equal(cache.secretOf(s), `whsec_${subs.indexOf(s)}`);
  t.equal(cache.secretsHeld, 3, "no more than maxEntries kept");
  const opened = cache.opened;
  cache.secretOf(subs[4] as SubscriptionRecord);
  t.equal(cache.opened, opened, "a kept secret is not opened again");
  clock.t += 60_001;
  cache.secretOf(subs[4] as SubscriptionRecord);
  t.equal(cache.opened, opened + 1, "opened again once its time is up");

  const held = cache.secretsHeld;
  await stores.subscriptions.delete((subs[4] as SubscriptionRecord).id);
  await cache.fresh(performance.now());
  t.equal(cache.secretsHeld, held - 1, "a deleted subscription's secret is dropped");

  const rotated = sub((subs[3] as SubscriptionRecord).id, "whsec_rotated");
  await stores.subscriptions.put(rotated.id, rotated);
  await cache.fresh(performance.now());
  t.equal(cache.secretsHeld, held - 2, "a changed subscription's secret is dropped");
  t.equal(cache.secretOf(rotated), "whsec_rotated");
});

test("one event for many subscriptions creates its deliveries a bounded number at a time", async (t) => {
  const subs = Array.from({ length: 60 }, (_, i) => sub(`sub_FANOUT${String(i).padStart(20, "0")}`, "whsec_f"));
  let inFlight = 0;
  let maxInFlight = 0;
  let published = 0;
  const js: JetStreamClient = stores.js;
  const counting = {
    ...stores,
    js: {
      publish: async (...args: Parameters<JetStreamClient["publish"]>) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          await new Promise((r) => setTimeout(r, 5));
          return await js.publish(...args);
        } finally {
          inFlight--;
          published++;
        }
      },
    } as unknown as JetStreamClient,
  };
  const fanout = new FanoutConsumer(
    { js: stores.js, jsm: await jetstreamManager(nc), stores: counting, subscriptions: async () => subs, clock: systemClock, log, deliveryIdKey: deliveryIdKey(masterKey) },
    { concurrency: 4, perEvent: 8 },
  );
  await fanout.start();
  t.teardown(() => fanout.stop());
  await publish(nc, makeEvent("agent.connected", { agent_id: "a-1", hostname: "a-1", tags: {}, status: "online" }));
  await eventually(async () => (published === subs.length ? true : undefined), 15_000);
  t.ok(maxInFlight <= 8, `at most perEvent deliveries created at once (${maxInFlight})`);
  t.ok(maxInFlight > 1, "still in parallel");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
