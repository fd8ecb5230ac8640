// A resumed subscription's held deliveries go out within seconds (docs/architecture.md#flow-events): while it is
// paused its jobs are handed back with a wait of up to a minute, and resuming it must not leave them waiting that out.
// Gateway + two dispatcher replicas + a real nats-server and a scripted receiver; then the hand-over between a held
// job and its resumed copy, job by job with a fake far side.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encryptSecret, newWebhookSecret } from "../../shared/secrets.js";
import { openWebhookStores, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import { newSubscription } from "../../shared/webhooks/subscription.js";
import { deliverJob, type DeliverDeps, type Job } from "../../services/dispatcher/deliver.js";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, getDelivery, listDeliveries, makeEvent, publish } from "../helpers/webhooks.js";

let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;
let stores: WebhookStores;
const SUBS = "/v1/webhooks/subscriptions";
const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({ services: ["gateway", "dispatcher"], env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "1s,1s,1s,1s" } });
  // A second replica: both see the resume and publish the held jobs again.
  await stack.start("dispatcher", {}, "dispatcher-2").ready();
  nc = await connectTo(stack.nats.url);
  stores = await openWebhookStores(nc, await jetstreamManager(nc), jetstream(nc), 1);
});

test("resumed after a long pause: its held deliveries go out within seconds, each once", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/resume"), events: ["agent.connected"] });
  t.teardown(() => call("DELETE", `${SUBS}/${sub.id}`));
  // The first attempt fails, so its delivery has a retry (and a job that owns it) when the pause comes.
  receiver.on("/resume", (_r, n) => (n === 1 ? { status: 503 } : { status: 200 }));
  const event = makeEvent("agent.connected", { agent_id: "a1", hostname: "h1", tags: {}, status: "online" });
  await publish(nc, event);
  await receiver.waitFor(() => receiver.received("/resume").length === 1);

  t.equal((await call("PATCH", `${SUBS}/${sub.id}`, { active: false })).status, 200, "paused");
  // As if paused an hour ago: its jobs are handed back for the longest wait (a minute) at their next look.
  await stores.subscriptions.update(sub.id, (s) => ({ ...s, updated_at: new Date(Date.now() - 3_600_000).toISOString() }));
  // A delivery made while paused: it waits for the resume too, without a first attempt.
  const tested = await call("POST", `${SUBS}/${sub.id}/test`);
  t.equal(tested.status, 202);
  // The retry (due 1 s after the first attempt) and the test delivery's job each look, find it paused, and are
  // handed back for a minute.
  await new Promise((r) => setTimeout(r, 3_000));
  t.equal(receiver.received("/resume").length, 1, "nothing sent while paused");

  t.equal((await call("PATCH", `${SUBS}/${sub.id}`, { active: true })).status, 200, "resumed");
  const resumedAt = Date.now();
  const ids = [(await listDeliveries(stack, `event_id=${event.event_id}&subscription_id=${sub.id}`))[0].delivery_id as string, tested.json.delivery_id as string];
  // Well under the minute the held jobs were handed back for.
  const delivered = await eventually(async () => {
    const ds = await Promise.all(ids.map((id) => getDelivery(stack, id)));
    return ds.every((d) => d.status === "delivered") ? ds : undefined;
  }, 15_000, 100);
  t.comment(`delivered ${Date.now() - resumedAt} ms after the resume`);
  t.same(delivered.map((d) => d.attempt_count), [2, 1], "no attempt was spent while paused");
  const arrivals = receiver.received("/resume").slice(1).map((r) => r.headers["x-service-delivery"]);
  t.same([...arrivals].sort(), [...ids].sort(), "each sent once");
});

/** deliverJob with a fake far side that answers `answers` in turn (then 200), over the real deliveries bucket. */
let harnesses = 0;
function harness(answers: AttemptResult[]): { deps: DeliverDeps; sent: string[]; record: DeliveryRecord } {
  const now = Date.now();
  const n = String(harnesses++).padStart(19, "0");
  const sub = newSubscription(`sub_RESUMED${n}`, { url: "https://93.184.216.34/hook", events: ["agent.connected"] }, encryptSecret(Buffer.alloc(32, 3), newWebhookSecret()), now);
  const record = newDeliveryRecord({ deliveryId: `dlv_RESUMED${n}`, subscriptionId: sub.id, envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"], nowMs: now });
  const sent: string[] = [];
  const deps: DeliverDeps = {
    deliveries: stores.deliveries,
    subscription: async () => sub,
    secretOf: () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    send: async (req) => {
      sent.push(req.headers["X-Service-Delivery"] as string);
      return answers.shift() ?? { kind: "response", status: 200, body: "ok", durationMs: 1 };
    },
    clock: { now: () => Date.now() },
    log: pino({ level: "silent" }),
    retryDelaysMs: [1, 1, 1, 1],
    timeoutMs: 1_000,
    pausedRecheckMs: 2_000,
    pausedRecheckMaxMs: 60_000,
    userAgent: "Inquest-Webhooks/test",
  };
  return { deps, sent, record };
}

const job = (deliveryId: string, seq: number, resumes?: Job["resumes"]): Job => ({ deliveryId, seq, deliveryCount: 2, seed: null, ...(resumes ? { resumes } : {}) });
const failed: AttemptResult = { kind: "response", status: 500, body: "down", durationMs: 1 };

test("a resumed copy takes the delivery over from its held job, which is then dropped without sending", async (t) => {
  // Owned by the held job 10, one attempt made: the copy 20 sends it; 10, back from its wait, is acked away.
  const owned = harness([]);
  await stores.deliveries.create(owned.record.delivery_id, { ...owned.record, attempt_count: 1, internal: { job_seq: 10 } });
  t.same(await deliverJob(owned.deps, job(owned.record.delivery_id, 20, { seq: 10, attempts: 1 })), { kind: "ack" });
  t.same(await deliverJob(owned.deps, job(owned.record.delivery_id, 10)), { kind: "ack" }, "the held job finds it done");
  t.equal(owned.sent.length, 1, "sent once");

  // No attempt yet (no owner): the copy takes it over, fails, and keeps it; the held job is dropped.
  const fresh = harness([failed]);
  await stores.deliveries.create(fresh.record.delivery_id, fresh.record);
  t.equal((await deliverJob(fresh.deps, job(fresh.record.delivery_id, 21, { seq: 11, attempts: 0 }))).kind, "nak");
  t.equal((await stores.deliveries.get(fresh.record.delivery_id))?.value.internal.job_seq, 21, "the copy owns it");
  t.same(await deliverJob(fresh.deps, job(fresh.record.delivery_id, 11)), { kind: "ack" }, "the held job is dropped");
  t.equal(fresh.sent.length, 1);

  // The held job made an attempt after the copy was published (it came back first): the copy has nothing to do.
  const moved = harness([]);
  await stores.deliveries.create(moved.record.delivery_id, { ...moved.record, attempt_count: 2, internal: { job_seq: 12 } });
  t.same(await deliverJob(moved.deps, job(moved.record.delivery_id, 22, { seq: 12, attempts: 1 })), { kind: "ack" });
  t.equal(moved.sent.length, 0, "the copy sends nothing");
  t.equal((await stores.deliveries.get(moved.record.delivery_id))?.value.internal.job_seq, 12, "the held job keeps it");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
