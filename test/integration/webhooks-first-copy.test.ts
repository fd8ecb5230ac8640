// The fan-out tells the first attempt when an event's message is the first copy the stream stored
// (services/dispatcher/first-copy.ts), from the message id and dates of the real stored message.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { newSubscription } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent, publish, webhookBus } from "../helpers/webhooks.js";

const masterKey = Buffer.alloc(32, 5);
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
});

test("only a fresh event published with its event id as message id skips the record check", async (t) => {
  // Created two hours ago, so events made an hour ago still match it.
  const sub = newSubscription("sub_FIRSTCOPY000000000000000001", { url: "https://93.184.216.34/x", events: ["agent.connected"] }, encryptSecret(masterKey, "whsec_c"), Date.now() - 7_200_000);
  const seen = new Map<string, boolean>();
  const fanout = new FanoutConsumer(
    {
      js: stores.js,
      jsm: await jetstreamManager(nc),
      stores,
      subscriptions: async () => [sub],
      clock: systemClock,
      log,
      deliveryIdKey: deliveryIdKey(masterKey),
      firstAttempt: async (record, _sub, firstCopy) => {
        seen.set(record.event_id, firstCopy);
        return true;
      },
    },
    { concurrency: 4 },
  );
  await fanout.start();
  t.teardown(() => fanout.stop());
  const fresh = makeEvent("agent.connected", { agent_id: "a-1" });
  const otherId = makeEvent("agent.connected", { agent_id: "a-2" });
  const old = { ...makeEvent("agent.connected", { agent_id: "a-3" }), created_at: new Date(Date.now() - 3_600_000).toISOString() };
  await publish(nc, fresh);
  await publish(nc, otherId, `not-${otherId.event_id}`);
  await publish(nc, old);
  await eventually(async () => (seen.size === 3 ? true : undefined), 15_000);
  t.equal(seen.get(fresh.event_id), true, "fresh, message id = event id: the first copy");
  t.equal(seen.get(otherId.event_id), false, "another message id: checked");
  t.equal(seen.get(old.event_id), false, "made an hour before it was stored: checked");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
