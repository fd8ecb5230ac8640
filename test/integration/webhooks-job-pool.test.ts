// The delivery consumer's job pool is shared by every subscription: subscriptions whose endpoints hang hold only
// their share of it, and a healthy subscription's jobs keep flowing however many of their jobs wait (no head-of-line
// blocking across subscribers). A real nats-server and the real consumer; `deliver` stands in for the POST.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { WEBHOOK_SUBJECTS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import type { JobAction } from "../../shared/webhooks/delivery-state.js";
import { DeliveryConsumer } from "../../services/dispatcher/delivery-consumer.js";
import type { Job } from "../../services/dispatcher/deliver.js";
import type { NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { webhookBus } from "../helpers/webhooks.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
});

const subId = (name: string) => `sub_${name.toUpperCase().padEnd(26, "0")}`;

test("two hanging subscriptions cannot fill the shared pool: a third one's jobs keep flowing", async (t) => {
  const hanging = new Set([subId("slowa"), subId("slowb")]);
  const healthy = subId("fast");
  const subscriptionOf = new Map<string, string>();
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  const handled = new Set<string>();
  const slowRunning = new Map<string, number>();
  const deliver = async (job: Job): Promise<JobAction> => {
    const sub = subscriptionOf.get(job.deliveryId) as string;
    if (hanging.has(sub)) {
      slowRunning.set(sub, (slowRunning.get(sub) ?? 0) + 1);
      await released; // an endpoint that never answers (until the test ends)
      return { kind: "ack" };
    }
    handled.add(job.deliveryId);
    return { kind: "ack" };
  };
  const consumer = new DeliveryConsumer({ js: stores.js, jsm: await jetstreamManager(nc), log, deliver }, { concurrency: 8, perSubscription: 2, ackWaitMs: 30_000 });
  await consumer.start();
  t.teardown(async () => {
    release();
    await consumer.stop();
  });

  const enqueue = async (sub: string, i: number): Promise<string> => {
    const id = `dlv_${sub.slice(4, 12)}${String(i).padStart(18, "0")}`;
    subscriptionOf.set(id, sub);
    await stores.js.publish(WEBHOOK_SUBJECTS.job(sub), JSON.stringify({ delivery_id: id, subscription_id: sub }), { msgID: id });
    return id;
  };
  // Both hanging subscriptions get more jobs than the whole pool holds, before the healthy one gets any.
  for (let i = 0; i < 12; i++) for (const sub of hanging) await enqueue(sub, i);
  await eventually(async () => ([...hanging].every((s) => (slowRunning.get(s) ?? 0) >= 2) ? true : undefined), 5_000, 20);
  await new Promise((r) => setTimeout(r, 300)); // their further jobs are admitted or handed back meanwhile
  const fast: string[] = [];
  for (let i = 0; i < 6; i++) fast.push(await enqueue(healthy, i));
  const allHandled = await eventually(async () => (fast.every((id) => handled.has(id)) ? true : undefined), 5_000, 20).catch(() => false);
  t.ok(allHandled, `every job of the healthy subscription ran while two others hang (${fast.filter((id) => handled.has(id)).length} of ${fast.length})`);
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
