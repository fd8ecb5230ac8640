// The fan-out tells the first attempt when an event's message is the first copy the stream stored
// (services/dispatcher/first-copy.ts), from the message id and dates of the real stored message.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { systemClock } from "../../shared/clock.js";
import { encryptSecret } from "../../shared/secrets.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { newSubscription } from "../../shared/webhooks/subscription.js";
import { FanoutConsumer } from "../../services/dispatcher/fanout-consumer.js";
import { CONSUMER_CREATED_MARGIN_MS } from "../../services/dispatcher/first-copy.js";
import { STREAMS } from "../../shared/nats/catalog.js";
import { WEBHOOK_CONSUMERS } from "../../shared/webhooks/catalog.js";
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

// Created two hours ago, so events made an hour ago still match it.
const sub = newSubscription("sub_FIRSTCOPY000000000000000001", { url: "https://93.184.216.34/x", events: ["agent.connected"] }, encryptSecret(masterKey, "whsec_c"), Date.now() - 7_200_000);

/** A fan-out whose first attempts only note whether each was told "first copy", in the order they came. */
function noting(jsm: JetStreamManager, calls: Array<[string, boolean]>): FanoutConsumer {
  return new FanoutConsumer(
    {
      js: stores.js,
      jsm,
      stores,
      subscriptions: async () => [sub],
      clock: systemClock,
      log,
      deliveryIdKey: deliveryIdKey(masterKey),
      firstAttempt: async (record, _sub, firstCopy) => {
        calls.push([record.event_id, firstCopy]);
        return true;
      },
    },
    { concurrency: 4 },
  );
}

/** Past the margin after the fan-out's durable was made: messages stored from now on are after it. */
const pastMargin = () => new Promise((r) => setTimeout(r, CONSUMER_CREATED_MARGIN_MS + 200));

test("only a fresh event published with its event id as message id skips the record check", async (t) => {
  const calls: Array<[string, boolean]> = [];
  const fanout = noting(await jetstreamManager(nc), calls);
  await fanout.start();
  t.teardown(() => fanout.stop());
  await pastMargin();
  const seen = new Map<string, boolean>();
  const fresh = makeEvent("agent.connected", { agent_id: "a-1" });
  const otherId = makeEvent("agent.connected", { agent_id: "a-2" });
  const old = { ...makeEvent("agent.connected", { agent_id: "a-3" }), created_at: new Date(Date.now() - 3_600_000).toISOString() };
  await publish(nc, fresh);
  await publish(nc, otherId, `not-${otherId.event_id}`);
  await publish(nc, old);
  await eventually(async () => (calls.length === 3 ? true : undefined), 15_000);
  for (const [id, firstCopy] of calls) seen.set(id, firstCopy);
  t.equal(seen.get(fresh.event_id), true, "fresh, message id = event id: the first copy");
  t.equal(seen.get(otherId.event_id), false, "another message id: checked");
  t.equal(seen.get(old.event_id), false, "made an hour before it was stored: checked");
});

test("a fan-out durable made again replays the stream as first deliveries: those messages keep the record check", async (t) => {
  const jsm = await jetstreamManager(nc);
  const calls: Array<[string, boolean]> = [];
  const fanout = noting(jsm, calls);
  await fanout.start();
  t.teardown(() => fanout.stop());
  await pastMargin();
  const before = makeEvent("agent.connected", { agent_id: "r-1" });
  await publish(nc, before);
  await eventually(async () => (calls.some(([id]) => id === before.event_id) ? true : undefined), 15_000);
  t.same(calls.filter(([id]) => id === before.event_id), [[before.event_id, true]], "fresh, first delivery: no read");
  // An operator deletes the durable; the fan-out's next pull fails and it makes the durable again, which delivers
  // the stream's history from the start, every message with a delivery count of 1.
  await jsm.consumers.delete(STREAMS.events.name, WEBHOOK_CONSUMERS.fanout.durable);
  await eventually(async () => (calls.filter(([id]) => id === before.event_id).length === 2 ? true : undefined), 20_000);
  t.same(calls.filter(([id]) => id === before.event_id)[1], [before.event_id, false], "replayed by the new durable: the record is looked for");
  await pastMargin();
  const after = makeEvent("agent.connected", { agent_id: "r-2" });
  await publish(nc, after);
  await eventually(async () => (calls.some(([id]) => id === after.event_id) ? true : undefined), 15_000);
  t.same(calls.filter(([id]) => id === after.event_id), [[after.event_id, true]], "an event stored after the new durable: no read");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
