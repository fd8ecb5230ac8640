// Dispatcher wiring: config, NATS, the subscription cache, the fan-out and delivery consumers, shutdown.
import { readFileSync } from "node:fs";
import { systemClock } from "../../shared/clock.js";
import { parseMasterKey } from "../../shared/secrets.js";
import { Registry } from "../../shared/ops/metrics.js";
import { opsComponents } from "../../shared/ops/wire.js";
import { bucketStream, coreStreams } from "../../shared/runtime.js";
import { connectService, runService } from "../../shared/service.js";
import { openWebhookStores, WEBHOOK_BUCKETS, WEBHOOK_CONSUMERS, WEBHOOK_STREAMS } from "../../shared/webhooks/catalog.js";
import { deliveryIdKey } from "../../shared/webhooks/fanout.js";
import { loadDispatcherConfig } from "./config.js";
import { deliverJob, postedDelivered, type DeliverDeps } from "./deliver.js";
import { EndpointHealth } from "./endpoint-health.js";
import { FirstAttempts } from "./first-attempt.js";
import { announceDeadLetter, disable, noteOutcome, type FailingDeps } from "./failing-endpoints.js";
import { deliveryMetrics, firstAttemptMetric, rateLimitedMetric } from "./metrics.js";
import { DeliveryConsumer } from "./delivery-consumer.js";
import { FanoutConsumer } from "./fanout-consumer.js";
import { KeySlots } from "./key-slots.js";
import { createSender } from "./sender.js";
import { RateGate } from "./rate-gate.js";
import { RecoveryConsumer } from "./recovery-consumer.js";
import { onResumed } from "./resume.js";
import { SubscriptionCache } from "./subscription-cache.js";

/**
 * A paused subscription's jobs look again after this long at first, then half as long as it has been paused, at
 * most the second (no attempt is spent while it stays paused). On resume they are published again at once
 * (resume.ts); the wait only bounds how late they go out when that fails (no dispatcher running at the resume).
 */
const PAUSED_RECHECK_MS = 2_000;
const PAUSED_RECHECK_MAX_MS = 60_000;
/** Concurrent event fan-outs per dispatcher. */
const FANOUT_CONCURRENCY = 64;
/** Deliveries whose first attempt the fan-out holds at once (running or waiting for the subscription's turn). */
const FIRST_ATTEMPTS_HELD = (FANOUT_CONCURRENCY * 3) / 4;
/** The same for a quick subscription (EndpointHealth.quick): all but a few of the fan-out, which keep other events moving. */
const QUICK_FIRST_ATTEMPTS_HELD = FANOUT_CONCURRENCY - 4;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

await runService("dispatcher", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadDispatcherConfig(process.env);
  const masterKey = parseMasterKey(config.INQUEST_MASTER_KEY);
  const clock = systemClock;
  const { nc, life, rt } = await connectService("dispatcher", config, log, register);
  const stores = await openWebhookStores(nc, rt.jsm, rt.js, rt.replicas);

  const subscriptions = new SubscriptionCache(stores.subscriptionsKv, stores.subscriptions, masterKey, log);
  // A resumed subscription's held jobs are published again at once instead of waiting out their pausedWait.
  subscriptions.whenResumed(onResumed({ js: rt.js, jsm: rt.jsm, deliveries: stores.deliveries, log }));
  const registry = new Registry();
  const observe = deliveryMetrics(registry);
  const rateLimited = rateLimitedMetric(registry);
  const failing: FailingDeps = { js: rt.js, subscriptions: stores.subscriptions, clock, log, failingWindowMs: config.INQUEST_DISABLE_FAILING_AFTER };
  const sender = createSender({ allowPrivate: config.INQUEST_ALLOW_PRIVATE_TARGETS });
  const requestSlots = new KeySlots(config.INQUEST_SUBSCRIPTION_CONCURRENCY);
  const userAgent = `Inquest-Webhooks/${packageVersion()}`;
  const rates = new RateGate(stores.ratesKv, clock);
  // Every POST, of a job or of the fan-out's first attempt, holds one of its subscription's request slots and tells
  // the subscription's health (slow or failing endpoints go back to the job path).
  const health = new EndpointHealth(clock);
  const deliverDeps: DeliverDeps = {
    deliveries: stores.deliveries,
    observe,
    deadLettered: (record) => announceDeadLetter({ js: rt.js, clock }, record),
    disableGone: (sub, record) => disable(failing, sub, record, "endpoint_gone"),
    noteOutcome: (sub, record, delivered, at) => noteOutcome(failing, sub, record, delivered, at),
    subscription: (id) => subscriptions.get(id),
    resumedAt: (id) => subscriptions.resumedAt(id),
    secretOf: (sub) => subscriptions.secretOf(sub),
    headersOf: (sub) => subscriptions.headersOf(sub),
    rateGate: async (id, limit) => {
      const waitMs = await rates.take(id, limit);
      if (waitMs > 0) rateLimited();
      return waitMs;
    },
    previousSecretOf: (sub, nowMs) => subscriptions.previousSecretOf(sub, nowMs),
    send: sender.send,
    requestSlot: (id, post) => requestSlots.run(id, () => health.watch(id, post, postedDelivered)),
    clock,
    log,
    retryDelaysMs: config.INQUEST_RETRY_DELAYS,
    timeoutMs: config.INQUEST_DELIVERY_TIMEOUT,
    pausedRecheckMs: PAUSED_RECHECK_MS,
    pausedRecheckMaxMs: PAUSED_RECHECK_MAX_MS,
    userAgent,
  };
  const deliveries = new DeliveryConsumer(
    { js: rt.js, jsm: rt.jsm, log, deliver: (job) => deliverJob(deliverDeps, job) },
    {
      concurrency: config.INQUEST_DISPATCHER_CONCURRENCY,
      perSubscription: config.INQUEST_SUBSCRIPTION_CONCURRENCY,
      // A job in hand is reported in progress (working()) every third of this, so an attempt with a longer
      // per-subscription timeout keeps its job; this bounds how long a killed dispatcher's jobs wait to be redelivered.
      ackWaitMs: config.INQUEST_DELIVERY_TIMEOUT + 5_000,
    },
  );
  const firstAttempts = new FirstAttempts(
    { deliver: deliverDeps, stores, health, observe: firstAttemptMetric(registry) },
    // First attempts hold at most three quarters of the fan-out (all but four events of it for a quick subscription);
    // the rest of the events are enqueued meanwhile.
    {
      perSubscription: config.INQUEST_SUBSCRIPTION_CONCURRENCY,
      waitingPerSubscription: Math.max(1, FIRST_ATTEMPTS_HELD - config.INQUEST_SUBSCRIPTION_CONCURRENCY),
      total: FIRST_ATTEMPTS_HELD,
      quickTotal: QUICK_FIRST_ATTEMPTS_HELD,
    },
  );
  const fanout = new FanoutConsumer(
    {
      js: rt.js,
      jsm: rt.jsm,
      stores,
      subscriptions: (since) => subscriptions.fresh(since),
      clock,
      log,
      deliveryIdKey: deliveryIdKey(masterKey),
      firstAttempt: (record, sub, firstCopy) => firstAttempts.attempt(record, sub, { firstCopy }),
    },
    { concurrency: FANOUT_CONCURRENCY },
  );
  const recoveries = new RecoveryConsumer({
    js: rt.js,
    jsm: rt.jsm,
    stores,
    subscription: (id) => subscriptions.get(id),
    deliveryIdKey: deliveryIdKey(masterKey),
    clock,
    log,
  });
  const streams = () => [...coreStreams(), ...Object.values(WEBHOOK_BUCKETS).map((b) => bucketStream(b.name)), ...Object.values(WEBHOOK_STREAMS).map((st) => st.name)];
  const ops = opsComponents({ config, nc, rt, life, log, registry, streams, consumers: Object.values(WEBHOOK_CONSUMERS) });
  await life.start([...ops, subscriptions, { name: "http-sender", start: async () => {}, stop: async () => sender.close() }, deliveries, fanout, recoveries]);
  log.info(
    { retry_delays_ms: config.INQUEST_RETRY_DELAYS, timeout_ms: config.INQUEST_DELIVERY_TIMEOUT, allow_private_targets: config.INQUEST_ALLOW_PRIVATE_TARGETS },
    "dispatcher ready",
  );
});
