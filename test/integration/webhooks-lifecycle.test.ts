// Outbound webhooks over time (docs/api.md#webhooks): test deliveries, pausing, deleting, replaying,
// the deliveries list, and a slow subscriber that must not hold up the others. Gateway + dispatcher + a real
// nats-server and a scripted local receiver.
import type { NatsConnection } from "@nats-io/transport-node";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { test } from "tap";
import { Finding, InvestigationListItem } from "../../shared/schemas/investigation.js";
import { checker } from "../../shared/validate.js";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { answer, startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, getDelivery, listDeliveries, makeEvent, publish, terminal, waitDelivery, type Json, type Sub } from "../helpers/webhooks.js";

let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;
const SUBS = "/v1/webhooks/subscriptions";
const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });
const agentEvent = (type = "agent.connected") => makeEvent(type, { agent_id: "a1", hostname: "h1", tags: {}, status: "online" });

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({
    services: ["gateway", "dispatcher"],
    env: {
      INQUEST_ALLOW_PRIVATE_TARGETS: "true",
      INQUEST_RETRY_DELAYS: "50ms,50ms,50ms,50ms",
      INQUEST_DELIVERY_TIMEOUT: "3s",
      // Small on purpose: the isolation test shows a slow subscriber cannot take every slot.
      INQUEST_DISPATCHER_CONCURRENCY: "8",
      INQUEST_SUBSCRIPTION_CONCURRENCY: "2",
    },
  });
  nc = await connectTo(stack.nats.url);
});

/** A subscription that is deleted when the test ends, so later tests' events do not reach it. */
async function sub(t: { teardown(fn: () => unknown): void }, body: Record<string, unknown>): Promise<Sub> {
  const s = await createSub(stack, body);
  t.teardown(() => call("DELETE", `${SUBS}/${s.id}`));
  return s;
}

test("POST .../test: 202 {delivery_id}; a real-shaped envelope of the first subscribed type with \"test\": true, signed", async (t) => {
  const checks: Array<[string, (data: Json) => void]> = [
    [
      "finding.discovered",
      (data) => {
        t.same(Object.keys(data).sort(), ["finding", "investigation_id"]);
        t.ok(checker(Finding).check(data.finding).ok, "the finding has the Finding schema");
      },
    ],
    [
      "investigation.completed",
      (data) => {
        t.same(Object.keys(data).sort(), ["completed_at", "context", "depth", "investigation_id", "mode", "query", "scope", "started_at", "status", "summary"].sort());
        const shape = { ...data, running_at: data.started_at, progress: null, freshness: null, error: null, links: { self: "x", cancel: "x" } };
        t.ok(checker(InvestigationListItem).check(shape).ok, "investigation fields have the list item's schema");
        t.equal(data.status, "completed");
        t.type(data.summary.severity, "string");
      },
    ],
    ["agent.disconnected", (data) => t.match(data, { agent_id: String, hostname: String, tags: Object, status: "offline" })],
  ];
  for (const [type, check] of checks) {
    const path = `/test-${type}`;
    const s = await sub(t, { url: receiver.url(path), events: [type, "agent.registered"] });
    const r = await call("POST", `${SUBS}/${s.id}/test`);
    t.equal(r.status, 202, type);
    t.same(Object.keys(r.json), ["delivery_id"]);
    t.match(r.json.delivery_id, /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/);
    await receiver.waitFor(() => receiver.received(path).length > 0);
    const [req] = receiver.received(path);
    if (!req) throw new Error("no test delivery");
    t.equal(req.json.test, true, `${type}: "test": true`);
    t.equal(req.json.type, type, "the first subscribed type");
    t.match(req.json.event_id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    t.equal(req.headers["x-service-delivery"], r.json.delivery_id);
    t.equal(req.headers["x-service-event"], type);
    const headers = { "webhook-id": String(req.headers["webhook-id"]), "webhook-timestamp": String(req.headers["webhook-timestamp"]), "webhook-signature": String(req.headers["webhook-signature"]) };
    t.doesNotThrow(() => new StandardWebhook(s.secret).verify(req.body, headers), "signed like any delivery");
    check(req.json.data);
    const d = await eventually(async () => {
      const x = await getDelivery(stack, r.json.delivery_id);
      return terminal(x) ? x : undefined;
    });
    t.equal(d.status, "delivered");
    t.equal(d.envelope.test, true);
  }
});

test("a paused subscription gets no new deliveries, and its pending ones wait without spending attempts", async (t) => {
  const s = await sub(t, { url: receiver.url("/pause"), events: ["agent.connected"] });
  receiver.on("/pause", (_r, n) => (n === 1 ? { status: 500, delayMs: 300 } : { status: 200 }));
  const first = agentEvent();
  await publish(nc, first);
  await receiver.waitFor(() => receiver.received("/pause").length === 1);
  t.equal((await call("PATCH", `${SUBS}/${s.id}`, { active: false })).status, 200, "paused while attempt 1 is in flight");
  const during = agentEvent();
  await publish(nc, during);
  await new Promise((r) => setTimeout(r, 2_500)); // many retry delays (50 ms) and a paused re-check (2 s) go by
  const waiting = await getDelivery(stack, (await listDeliveries(stack, `event_id=${first.event_id}&subscription_id=${s.id}`))[0].delivery_id);
  t.equal(waiting.status, "pending", "still pending");
  t.equal(waiting.attempt_count, 1, "no attempt spent while paused");
  t.equal(receiver.received("/pause").length, 1, "nothing sent while paused");
  t.equal((await call("PATCH", `${SUBS}/${s.id}`, { active: true })).status, 200, "resumed");
  const d = await waitDelivery(stack, first.event_id, s.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.attempt_count, 2);
  t.same(await listDeliveries(stack, `event_id=${during.event_id}&subscription_id=${s.id}`), [], "the event published while paused made no delivery");
});

test("deleting a subscription ends its pending deliveries: failed_permanent, last_error subscription_deleted", async (t) => {
  const s = await createSub(stack, { url: receiver.url("/doomed"), events: ["agent.connected"] });
  // Attempt 1 fails at once; later ones take a second to answer, so the deletion lands while one is in flight.
  receiver.on("/doomed", (_r, n) => (n === 1 ? { status: 503 } : { status: 503, delayMs: 1_000 }));
  const ev = agentEvent();
  await publish(nc, ev);
  await waitDelivery(stack, ev.event_id, s.id, (d) => d.attempt_count >= 1);
  t.equal((await call("DELETE", `${SUBS}/${s.id}`)).status, 204);
  const d = await waitDelivery(stack, ev.event_id, s.id, terminal);
  t.equal(d.status, "failed_permanent");
  t.equal(d.last_error, "subscription_deleted");
  t.equal(d.next_attempt_at, null);
  const sent = receiver.received("/doomed").length;
  await new Promise((r) => setTimeout(r, 1_500));
  t.ok(receiver.received("/doomed").length <= sent + 1, "no new attempts after the deletion (at most the one already in flight)");
  t.equal((await getDelivery(stack, d.delivery_id)).status, "failed_permanent", "an attempt in flight does not revive it");
});

test("replay: a new delivery_id, the same event_id and envelope, replay_of, a fresh attempt budget", async (t) => {
  const s = await sub(t, { url: receiver.url("/replay"), events: ["agent.registered"] });
  receiver.on("/replay", answer(500, 500, 500, 500, 500, 200));
  const ev = agentEvent("agent.registered");
  await publish(nc, ev);
  const dead = await waitDelivery(stack, ev.event_id, s.id, terminal);
  t.equal(dead.status, "failed_permanent");
  t.equal(dead.attempt_count, 5, "the budget is spent");
  const r = await call("POST", `/v1/webhooks/deliveries/${dead.delivery_id}/replay`);
  t.equal(r.status, 202);
  t.same(Object.keys(r.json).sort(), ["delivery_id", "status"]);
  t.equal(r.json.status, "pending");
  t.not(r.json.delivery_id, dead.delivery_id, "a new delivery_id");
  const again = await eventually(async () => {
    const x = await getDelivery(stack, r.json.delivery_id);
    return terminal(x) ? x : undefined;
  });
  t.equal(again.status, "delivered", "a fresh budget: the first attempt of the replay is made");
  t.equal(again.attempt_count, 1);
  t.equal(again.event_id, ev.event_id, "the same event_id");
  t.equal(again.replay_of, dead.delivery_id);
  t.same(again.envelope, dead.envelope, "the same envelope");
  const bodies = receiver.received("/replay").map((x) => x.json.event_id);
  t.ok(bodies.every((id) => id === ev.event_id), "the subscriber sees one event_id to deduplicate on");
  t.equal((await getDelivery(stack, dead.delivery_id)).status, "failed_permanent", "the original is unchanged");
  // Any existing delivery can be replayed, a delivered one too.
  const twice = await call("POST", `/v1/webhooks/deliveries/${again.delivery_id}/replay`);
  t.equal(twice.status, 202);
  const third = await eventually(async () => {
    const x = await getDelivery(stack, twice.json.delivery_id);
    return terminal(x) ? x : undefined;
  });
  t.equal(third.status, "delivered");
  t.equal(third.replay_of, again.delivery_id);
});

test("GET /v1/webhooks/deliveries: filters, newest first, cursor pagination; the envelope only in the detail", async (t) => {
  const s = await sub(t, { url: receiver.url("/listing"), events: ["agent.disconnected"] });
  receiver.on("/listing", (r) => (r.json.data.agent_id === "bad" ? { status: 400 } : { status: 200 }));
  const events = [];
  for (let i = 0; i < 5; i++) {
    const ev = makeEvent("agent.disconnected", { agent_id: i === 2 ? "bad" : `a${i}`, hostname: "h", tags: {}, status: "offline" });
    events.push(ev);
    await publish(nc, ev);
    await waitDelivery(stack, ev.event_id, s.id, terminal);
  }
  const all = await listDeliveries(stack, `subscription_id=${s.id}`);
  t.same(all.map((d) => d.event_id), events.map((e) => e.event_id).reverse(), "newest first");
  const created = all.map((d) => d.created_at as string);
  t.same([...created].sort().reverse(), created);
  t.notOk(all.some((d) => "envelope" in d), "no envelope in the list");
  t.notOk(all.some((d) => "internal" in d), "no bookkeeping");
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await call("GET", `/v1/webhooks/deliveries?subscription_id=${s.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    t.ok(page.json.deliveries.length <= 2);
    seen.push(...(page.json.deliveries as Json[]).map((d) => d.delivery_id as string));
    cursor = page.json.next_cursor;
  } while (cursor);
  t.same(seen, all.map((d) => d.delivery_id), "pages walk the list without repeats or gaps");
  const dead = await listDeliveries(stack, `subscription_id=${s.id}&status=failed_permanent`);
  t.same(dead.map((d) => d.event_id), [events[2]?.event_id], "status filter (the dead-letter queue)");
  const delivered = await listDeliveries(stack, `status=delivered&subscription_id=${s.id}`);
  t.equal(delivered.length, 4);
  const byEvent = await listDeliveries(stack, `event_id=${events[1]?.event_id}`);
  t.equal(byEvent.length, 1, "event_id filter");
  const detail = await getDelivery(stack, byEvent[0].delivery_id);
  t.equal(detail.envelope.event_id, events[1]?.event_id);
  t.same(detail.envelope, events[1], "the detail carries the stored envelope");
  const fields = ["delivery_id", "event_id", "event_type", "subscription_id", "status", "attempt_count", "last_response_code", "last_response_body", "last_error", "next_attempt_at", "created_at", "updated_at", "replay_of", "attempts"];
  t.same(Object.keys(byEvent[0]).sort(), [...fields].sort(), "the record's fields (docs/api.md#webhooks)");
  t.same(Object.keys(byEvent[0].attempts[0]).sort(), ["at", "attempt", "duration_ms", "error", "response_code"]);
});

test("a slow subscriber does not hold up deliveries to others", async (t) => {
  const slow = await sub(t, { url: receiver.url("/slow"), events: ["agent.registered"] });
  const fast = await sub(t, { url: receiver.url("/fast"), events: ["investigation.failed"] });
  receiver.on("/slow", () => ({ status: 200, delayMs: 1_000 }));
  // The slow subscriber's events go first, more of them than the dispatcher has slots (8).
  for (let i = 0; i < 12; i++) await publish(nc, makeEvent("agent.registered", { agent_id: `s${i}`, hostname: "h", tags: {}, status: "online" }));
  await receiver.waitFor(() => receiver.received("/slow").length >= 1);
  for (let i = 0; i < 12; i++) await publish(nc, makeEvent("investigation.failed", { investigation_id: `inv_${i}`, status: "failed", summary: null }));
  await receiver.waitFor(() => receiver.received("/fast").length >= 12);
  const slowSoFar = receiver.received("/slow").length;
  t.ok(slowSoFar <= 4, `every fast delivery arrived while the slow subscriber had received only ${slowSoFar} of 12 (its limit is 2 at a time)`);
  void slow;
  void fast;
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
