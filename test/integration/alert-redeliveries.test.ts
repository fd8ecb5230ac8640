// InquestRedeliveriesPiling (deploy/prometheus/alerts.yaml) is for workers that crash or fail on their messages. JetStream
// counts a message handed back with nak(delay) as redelivered (num_redelivered) for as long as it stays unacknowledged,
// and the delivery consumer's retry schedule, paused subscriptions and per-subscription back-off are all nak(delay):
// a real consumer and the real lag metric show what one failing endpoint's ordinary retries read as, and the rule is
// evaluated over it.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test, type Test } from "tap";
import { Registry } from "../../shared/ops/metrics.js";
import { RuntimeMetrics } from "../../shared/ops/runtime-metrics.js";
import { WEBHOOK_CONSUMERS, WEBHOOK_SUBJECTS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import type { JobAction } from "../../shared/webhooks/delivery-state.js";
import { DeliveryConsumer } from "../../services/dispatcher/delivery-consumer.js";
import type { Job } from "../../services/dispatcher/deliver.js";
import type { NatsServer } from "../helpers/nats.js";
import { alertExpr, evaluate, gaugeSamples } from "../helpers/promql.js";
import { eventually } from "../helpers/stack.js";
import { webhookBus } from "../helpers/webhooks.js";

const METRIC = "inquest_consumer_redelivered_messages";
const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;

test("setup", async () => {
  ({ server, nc, stores } = await webhookBus());
});

/** The runtime metrics of the deliveries consumer, sampled every 100 ms while the test runs. */
async function deliveriesMetrics(t: Test, jsm: JetStreamManager): Promise<Registry> {
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry, nc, jsm, [WEBHOOK_CONSUMERS.deliveries], log, 100);
  await metrics.start();
  t.teardown(() => metrics.stop());
  return registry;
}

test("one failing endpoint's ordinary retry schedule does not trip InquestRedeliveriesPiling", async (t) => {
  const JOBS = 60;
  const seen = new Map<string, number>();
  // Every attempt fails (the endpoint answers 503): the job is handed back for its next attempt, as deliverJob does.
  const deliver = async (job: Job): Promise<JobAction> => {
    seen.set(job.deliveryId, job.deliveryCount);
    return { kind: "nak", delayMs: job.deliveryCount === 1 ? 300 : 120_000 };
  };
  const jsm = await jetstreamManager(nc);
  const consumer = new DeliveryConsumer({ js: stores.js, jsm, log, deliver }, { concurrency: 256, perSubscription: 16, ackWaitMs: 15_000 });
  await consumer.start();
  t.teardown(() => consumer.stop());
  const registry = await deliveriesMetrics(t, jsm);

  const sub = `sub_${"FAILING".padEnd(26, "0")}`;
  for (let i = 0; i < JOBS; i++) {
    const id = `dlv_FAILING${String(i).padStart(19, "0")}`;
    await stores.js.publish(WEBHOOK_SUBJECTS.job(sub), JSON.stringify({ delivery_id: id, subscription_id: sub }), { msgID: id });
  }
  // Each job has made its second attempt and waits out the schedule's next delay: nothing crashed, nothing stalled.
  await eventually(async () => (seen.size === JOBS && [...seen.values()].every((n) => n >= 2) ? true : undefined), 10_000, 20);
  const samples = await eventually(async () => {
    const s = gaugeSamples(registry.render(), METRIC);
    return s.some((x) => x.labels.consumer === WEBHOOK_CONSUMERS.deliveries.durable && x.value >= JOBS) ? s : undefined;
  }, 5_000, 50);
  t.ok(samples.length > 0, `JetStream counts the scheduled retries as redelivered: ${JSON.stringify(samples)}`);
  const firing = evaluate(alertExpr("InquestRedeliveriesPiling"), METRIC, samples);
  t.same(firing, [], "no alert for a retry schedule doing its job");
});

test("delivery jobs no dispatcher takes trip InquestWebhookDeliveriesBacklog; the retries waiting out their delay do not", async (t) => {
  const PENDING = "inquest_consumer_pending_messages";
  const jsm = await jetstreamManager(nc);
  const registry = await deliveriesMetrics(t, jsm);
  const expr = alertExpr("InquestWebhookDeliveriesBacklog");
  const pendingNow = () => gaugeSamples(registry.render(), PENDING);
  // The first test's 60 jobs wait out their retry delay: taken, so not pending.
  const retrying = await eventually(async () => {
    const s = pendingNow();
    return s.some((x) => x.labels.consumer === WEBHOOK_CONSUMERS.deliveries.durable) ? s : undefined;
  }, 5_000, 50);
  const waiting = retrying.find((x) => x.labels.consumer === WEBHOOK_CONSUMERS.deliveries.durable)?.value;
  t.equal(waiting, 0, "jobs waiting out a retry delay were taken: none counts as pending, however many there are");
  // No dispatcher runs now: jobs published stay untaken.
  const sub = `sub_${"UNTAKEN".padEnd(26, "0")}`;
  for (let i = 0; i < 1_001; i++) {
    const id = `dlv_UNTAKEN${String(i).padStart(19, "0")}`;
    await stores.js.publish(WEBHOOK_SUBJECTS.job(sub), JSON.stringify({ delivery_id: id, subscription_id: sub }), { msgID: id });
  }
  const piled = await eventually(async () => {
    const s = pendingNow();
    return s.some((x) => x.labels.consumer === WEBHOOK_CONSUMERS.deliveries.durable && x.value > 1_000) ? s : undefined;
  }, 5_000, 50);
  t.equal(evaluate(expr, PENDING, piled).length, 1, "fires once over the threshold");
});

test("the work queues' redeliveries (crashes, runs handed back on errors) still trip it", async (t) => {
  const expr = alertExpr("InquestRedeliveriesPiling");
  const on = (stream: string, consumer: string, value: number) => ({ labels: { stream, consumer }, value });
  const firing = evaluate(expr, METRIC, [
    on("INQ_WORK", "runner", 120),
    on("EVENTS", "dispatcher-fanout", 80),
    on("INQ_WEBHOOK_RECOVERIES", "dispatcher-recoveries", 51),
    on("INQ_WEBHOOK_JOBS", "dispatcher-deliveries", 5_000),
  ]);
  t.same(firing.map((s) => s.labels.consumer).sort(), ["dispatcher-fanout", "dispatcher-recoveries", "runner"]);
  t.same(evaluate(expr, METRIC, [on("INQ_WORK", "runner", 10)]), [], "a few are not a pile");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
