// Outbound deliveries end to end (docs/api.md#deliveries): gateway + two dispatchers + a real nats-server,
// a scripted local receiver, signatures checked with the standardwebhooks and svix libraries, every
// transition of the state table and the (scaled) retry schedule read back from the attempts' timestamps.
import { createHmac } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { test } from "tap";
import { connectTo, freePort } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { answer, startReceiver, type Answer, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, getDelivery, listDeliveries, makeEvent, publish, terminal, waitDelivery, type Json } from "../helpers/webhooks.js";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";

const DELAYS = [100, 200, 300, 400];
let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({
    services: ["gateway", "dispatcher"],
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: DELAYS.map((d) => `${d}ms`).join(","), INQUEST_DELIVERY_TIMEOUT: "500ms" },
  });
  // Two replicas share the durable consumers: every rule below must hold whichever one takes a job.
  stack.start("dispatcher", {}, "dispatcher-2");
  nc = await connectTo(stack.nats.url);
});

/** What `path` received of one event (subscriptions of the same type also get the other tests' events). */
const got = (path: string, id: string) => receiver.received(path).filter((r) => r.json?.event_id === id);

/** Gaps between consecutive attempts, each checked against the delay before it (from the attempts' `at`). */
function checkSchedule(t: { ok(value: unknown, message: string): unknown }, d: Json): void {
  const attempts = d.attempts as Array<{ at: string; duration_ms: number }>;
  for (let i = 1; i < attempts.length; i++) {
    const prev = attempts[i - 1] as { at: string; duration_ms: number };
    const gap = Date.parse((attempts[i] as { at: string }).at) - Date.parse(prev.at);
    const delay = DELAYS[i - 1] as number;
    // The delay counts from the end of the previous attempt.
    t.ok(gap >= delay + prev.duration_ms - 5, `attempt ${i + 1} waited its delay: gap ${gap} ms >= ${delay} ms + ${prev.duration_ms} ms`);
    t.ok(gap <= delay + prev.duration_ms + 1_000, `attempt ${i + 1} came on schedule: gap ${gap} ms`);
  }
}

test("a delivery carries every header of docs/api.md#webhooks and verifies with standardwebhooks, svix and X-Service-Signature-256", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/signed"), events: ["investigation.queued"] });
  // A real producer: the trigger endpoint publishes investigation.queued.
  const trig = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "anything listening on 4444?" } });
  t.equal(trig.status, 202);
  const [req] = await receiver.waitFor((all) => all.some((r) => r.path === "/signed")).then(() => receiver.received("/signed"));
  if (!req) throw new Error("nothing received");
  const h = req.headers;
  t.equal(h["content-type"], "application/json");
  t.match(h["user-agent"], /^Inquest-Webhooks\/\d+\.\d+\.\d+/);
  t.equal(h["x-service-event"], "investigation.queued");
  t.match(h["x-service-delivery"], /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.equal(h["webhook-id"], req.json.event_id);
  t.match(h["webhook-timestamp"], /^\d{10}$/);
  t.ok(Math.abs(Number(h["webhook-timestamp"]) - Date.now() / 1000) < 60, "timestamp is now, in unix seconds");
  t.equal(h["x-service-signature-256"], `sha256=${createHmac("sha256", sub.secret).update(req.body).digest("hex")}`, "HMAC of the raw body keyed with the whole secret");
  const sigHeaders = { "webhook-id": String(h["webhook-id"]), "webhook-timestamp": String(h["webhook-timestamp"]), "webhook-signature": String(h["webhook-signature"]) };
  t.same(new StandardWebhook(sub.secret).verify(req.body, sigHeaders), req.json, "standardwebhooks accepts");
  t.doesNotThrow(() => new SvixWebhook(sub.secret).verify(req.body, sigHeaders), "svix accepts");
  t.throws(() => new StandardWebhook(sub.secret).verify(req.body.replace("queued", "QUEUED"), sigHeaders), "a changed body fails");

  t.same(Object.keys(req.json).sort(), ["created_at", "data", "event_id", "type"], "envelope {event_id, type, created_at, data}");
  t.equal(req.json.type, "investigation.queued");
  t.match(req.json.event_id, /^evt_/);
  t.equal(req.json.data.investigation_id, trig.json.investigation_id);
  for (const k of ["investigation_id", "status", "query", "depth", "mode", "scope", "context", "started_at", "completed_at", "summary"]) t.ok(k in req.json.data, `data.${k}`);

  const d = await waitDelivery(stack, req.json.event_id, sub.id, terminal);
  t.equal(d.delivery_id, h["x-service-delivery"]);
  t.equal(d.status, "delivered");
  t.same(d.envelope, req.json, "the stored envelope is what was sent");
});

test("2xx is delivered whatever the body says; the stored body is cut at 4096 bytes", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/ok-error-body"), events: ["agent.connected"] });
  receiver.on("/ok-error-body", () => ({ status: 200, body: `{"error":"nope"}${"x".repeat(5000)}` }));
  const ev = makeEvent("agent.connected", { agent_id: "a1", hostname: "h1", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.attempt_count, 1);
  t.equal(d.last_response_code, 200);
  t.equal(Buffer.byteLength(d.last_response_body), 4096);
  t.ok(d.last_response_body.startsWith('{"error":"nope"}'));
  t.equal(d.last_error, null);
  t.equal(d.next_attempt_at, null, "terminal: no next attempt");
  t.same(d.attempts.map((a: Json) => [a.attempt, a.response_code, a.error]), [[1, 200, null]]);
  t.equal(d.event_type, "agent.connected");
  t.equal(d.replay_of, null);
});

test("500 five times: retried on the schedule, then failed_permanent (dead letter) with no further attempts", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/always-500"), events: ["agent.registered"] });
  receiver.on("/always-500", answer(500));
  const ev = makeEvent("agent.registered", { agent_id: "a2", hostname: "h2", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "failed_permanent");
  t.equal(d.attempt_count, 5);
  t.equal(d.last_response_code, 500);
  t.equal(d.last_error, "http_500");
  t.equal(d.next_attempt_at, null);
  t.same(d.attempts.map((a: Json) => a.attempt), [1, 2, 3, 4, 5]);
  checkSchedule(t, d);
  const dead = await listDeliveries(stack, "status=failed_permanent");
  t.ok(dead.some((x) => x.delivery_id === d.delivery_id), "listed in the dead-letter queue");
  await new Promise((r) => setTimeout(r, 800));
  t.equal(got("/always-500", ev.event_id).length, 5, "no sixth attempt");
});

test("429, 408 and 503 are retried; a later 2xx delivers", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/transient"), events: ["agent.registered"] });
  receiver.on("/transient", answer(429, 408, 503, 201));
  const ev = makeEvent("agent.registered", { agent_id: "a3", hostname: "h3", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.attempt_count, 4);
  t.same(d.attempts.map((a: Json) => a.response_code), [429, 408, 503, 201]);
  t.equal(d.last_response_code, 201);
  checkSchedule(t, d);
});

test("Retry-After on a 503 pushes the next attempt later, capped by the schedule's longest step", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/retry-after"), events: ["agent.registered"] });
  // Asks for 60 s; the schedule here is 100..400 ms, so the wait is its longest step, 400 ms, not the first, 100 ms.
  receiver.on("/retry-after", (_req, n) => (n === 1 ? { status: 503, body: "busy", headers: { "retry-after": "60" } } : { status: 200, body: "ok" }));
  const ev = makeEvent("agent.registered", { agent_id: "a10", hostname: "h10", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.same(d.attempts.map((a: Json) => a.response_code), [503, 200]);
  const [a1, a2] = d.attempts as Array<{ at: string; duration_ms: number }>;
  const gap = Date.parse(a2?.at ?? "") - Date.parse(a1?.at ?? "");
  const longest = Math.max(...DELAYS);
  t.ok(gap >= longest + (a1?.duration_ms ?? 0) - 5, `waited the longest step: gap ${gap} ms >= ${longest} ms`);
  t.ok(gap < 60_000, "not the 60 s asked for");
});

test("410 Gone turns the subscription off, announces subscription.disabled, and a PATCH turns it back on", async (t) => {
  const ops = await createSub(stack, { url: receiver.url("/ops"), events: ["subscription.disabled"] });
  const gone = await createSub(stack, { url: receiver.url("/gone"), events: ["agent.registered"] });
  receiver.on("/gone", answer(410));
  const ev = makeEvent("agent.registered", { agent_id: "a11", hostname: "h11", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, gone.id, terminal);
  t.equal(d.status, "failed_permanent");
  t.equal(d.last_error, "http_410");
  const sub = await eventually(async () => {
    const r = await api(stack.baseUrl, "GET", `/v1/webhooks/subscriptions/${gone.id}`, { key: stack.key });
    return r.json.active === false ? r.json : undefined;
  });
  t.equal(sub.disabled_reason, "endpoint_gone");
  // Another subscription hears of it, signed like any event.
  await receiver.waitFor((all) => all.some((r) => r.path === "/ops" && r.json?.data?.subscription_id === gone.id));
  const heard = receiver.received("/ops").filter((r) => r.json?.data?.subscription_id === gone.id);
  t.equal(heard.length, 1, "announced once");
  t.match(heard[0]?.json, { type: "subscription.disabled", data: { subscription_id: gone.id, url: receiver.url("/gone"), reason: "endpoint_gone", delivery_id: d.delivery_id } });
  t.ok(heard[0]?.headers["webhook-signature"], "signed");
  await waitDelivery(stack, heard[0]?.json.event_id, ops.id, terminal);
  // Off means no new deliveries: once the fan-out made the control subscription's delivery of the next event, it
  // had decided for every subscription.
  const control = await createSub(stack, { url: receiver.url("/control"), events: ["agent.registered"] });
  const later = makeEvent("agent.registered", { agent_id: "a12", hostname: "h12", tags: {}, status: "online" });
  await publish(nc, later);
  await waitDelivery(stack, later.event_id, control.id, terminal);
  t.same(await listDeliveries(stack, `event_id=${later.event_id}&subscription_id=${gone.id}`), [], "no delivery while disabled");
  const on = await api(stack.baseUrl, "PATCH", `/v1/webhooks/subscriptions/${gone.id}`, { key: stack.key, body: { active: true } });
  t.equal(on.status, 200);
  t.match(on.json, { active: true, disabled_reason: null });
});

test("every attempt is kept with a few of the answer's headers and the first 4 KiB of its body", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/history"), events: ["agent.registered"] });
  const big = "x".repeat(5_000);
  receiver.on("/history", (_req, n): Answer =>
    n === 1
      ? { status: 503, body: "busy, try later", headers: { "x-request-id": "req-1", "x-internal-token": "not-kept", "retry-after": "0" } }
      : { status: 200, body: big, headers: { "x-request-id": "r".repeat(400) } },
  );
  const ev = makeEvent("agent.registered", { agent_id: "a13", hostname: "h13", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  const r = await api(stack.baseUrl, "GET", `/v1/webhooks/deliveries/${d.delivery_id}/attempts`, { key: stack.key });
  t.equal(r.status, 200);
  t.equal(r.json.delivery_id, d.delivery_id);
  const [first, second] = r.json.attempts as Json[];
  t.match(first, { attempt: 1, response_code: 503, error: "http_503", response_body: "busy, try later", response_headers: { "x-request-id": "req-1", "retry-after": "0", "content-type": "text/plain" } });
  t.notOk("x-internal-token" in (first?.response_headers ?? {}), "only the listed headers are kept");
  t.match(second, { attempt: 2, response_code: 200, error: null });
  t.equal(second?.response_body.length, 4096, "the body cut at 4 KiB");
  t.equal(second?.response_headers["x-request-id"].length, 256, "a header value cut at 256 characters");
  t.same(Object.keys(first ?? {}).sort(), ["at", "attempt", "duration_ms", "error", "response_body", "response_code", "response_headers"]);
  // The list and the detail keep their shape: the answers are only here.
  const listed = await getDelivery(stack, d.delivery_id);
  t.notOk("response_headers" in (listed.attempts[0] ?? {}));
  const missing = await api(stack.baseUrl, "GET", "/v1/webhooks/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/attempts", { key: stack.key });
  t.equal(missing.status, 404);
  t.match(missing.json, { error: { code: "not_found" } });
});

test("a dead letter is announced as delivery.dead_lettered, once; a dead letter of that event is not", async (t) => {
  const ops = await createSub(stack, { url: receiver.url("/dead-ops"), events: ["delivery.dead_lettered"] });
  const failing = await createSub(stack, { url: receiver.url("/dead"), events: ["agent.registered"] });
  receiver.on("/dead", answer(404));
  const ev = makeEvent("agent.registered", { agent_id: "a15", hostname: "h15", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, failing.id, terminal);
  t.equal(d.status, "failed_permanent");
  await receiver.waitFor((all) => all.some((r) => r.path === "/dead-ops" && r.json?.data?.delivery_id === d.delivery_id));
  const heard = receiver.received("/dead-ops").filter((r) => r.json?.data?.delivery_id === d.delivery_id);
  t.equal(heard.length, 1);
  t.match(heard[0]?.json, { type: "delivery.dead_lettered", data: { subscription_id: failing.id, event_id: ev.event_id, event_type: "agent.registered", attempt_count: 1, last_response_code: 404, last_error: "http_404" } });
  // The announcing subscription fails too: its own dead letter is not announced again (no chain).
  receiver.on("/dead-ops", answer(404));
  const ev2 = makeEvent("agent.registered", { agent_id: "a16", hostname: "h16", tags: {}, status: "online" });
  await publish(nc, ev2);
  const d2 = await waitDelivery(stack, ev2.event_id, failing.id, terminal);
  const note = await eventually(async () => receiver.received("/dead-ops").find((r) => r.json?.data?.delivery_id === d2.delivery_id));
  const opsDelivery = await waitDelivery(stack, note.json.event_id, ops.id, terminal);
  t.equal(opsDelivery.status, "failed_permanent", "the announcement itself dead-lettered");
  const control = await createSub(stack, { url: receiver.url("/control-2"), events: ["agent.registered"] });
  const ev3 = makeEvent("agent.registered", { agent_id: "a17", hostname: "h17", tags: {}, status: "online" });
  await publish(nc, ev3);
  await waitDelivery(stack, ev3.event_id, control.id, terminal);
  const about = receiver.received("/dead-ops").filter((r) => r.json?.data?.delivery_id === opsDelivery.delivery_id);
  t.equal(about.length, 0, "no delivery.dead_lettered about a delivery.dead_lettered delivery");
});

test("an attempt without an HTTP answer keeps no headers or body", async (t) => {
  const port = await freePort();
  const sub = await createSub(stack, { url: `http://127.0.0.1:${port}/nobody`, events: ["agent.registered"] });
  const ev = makeEvent("agent.registered", { agent_id: "a14", hostname: "h14", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, (x) => x.attempt_count >= 1);
  const r = await api(stack.baseUrl, "GET", `/v1/webhooks/deliveries/${d.delivery_id}/attempts`, { key: stack.key });
  t.match(r.json.attempts[0], { attempt: 1, response_code: null, error: "connection_refused", response_headers: null, response_body: null });
});

test("a pending delivery shows the next attempt time", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/slow-retry"), events: ["agent.registered"] });
  receiver.on("/slow-retry", answer(500, 200));
  const ev = makeEvent("agent.registered", { agent_id: "a9", hostname: "h9", tags: {}, status: "online" });
  await publish(nc, ev);
  const pending = await waitDelivery(stack, ev.event_id, sub.id, (d) => d.attempt_count === 1 || d.status !== "pending");
  if (pending.status === "pending") {
    t.type(pending.next_attempt_at, "string");
    const a1 = pending.attempts[0];
    t.ok(Date.parse(pending.next_attempt_at) >= Date.parse(a1.at) + DELAYS[0]! - 5, "next_attempt_at is the end of attempt 1 plus the first delay");
  }
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.next_attempt_at, null);
});

test("another system's event id: 128 visible characters are delivered and found by the filter; a longer one, one with a space, or an envelope on another type's subject is refused", async (t) => {
  const path = "/foreign-ids";
  const sub = await createSub(stack, { url: receiver.url(path), events: ["agent.registered"] });
  receiver.on(path, answer(204));
  const data = { agent_id: "a9", hostname: "h9", tags: {}, status: "offline" };
  const tooLong = makeEvent("agent.registered", data, `ext:${"x".repeat(125)}`);
  const spaced = makeEvent("agent.registered", data, "ext:with space");
  const fine = makeEvent("agent.registered", data, `ext:${"y".repeat(124)}`);
  const misfiled = makeEvent("agent.registered", data, "ext:misfiled");
  await publish(nc, tooLong, "too-long");
  await publish(nc, spaced, "spaced");
  // Published on another type's subject: subscribers of agent.registered did not ask for what it carries.
  await jetstream(nc).publish("events.agent.connected", JSON.stringify(misfiled), { msgID: misfiled.event_id });
  await publish(nc, fine);
  const d = await waitDelivery(stack, fine.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(got(path, fine.event_id)[0]?.headers["webhook-id"], fine.event_id, "sent as webhook-id");
  t.equal((await listDeliveries(stack, `event_id=${encodeURIComponent(fine.event_id)}&subscription_id=${sub.id}`)).length, 1, "the filter finds it");
  await new Promise((r) => setTimeout(r, 500));
  t.same(receiver.received(path).map((r) => r.json?.event_id), [fine.event_id], "the malformed envelopes are refused by the fan-out, not sent");
});

test("an event stored again long after it happened is history to a newer subscription; a finding without a valid severity is below any minimum", async (t) => {
  const path = "/history";
  const older = await createSub(stack, { url: receiver.url(path), events: ["agent.registered"] });
  receiver.on(path, answer(204));
  const data = { agent_id: "a10", hostname: "h10", tags: {}, status: "offline" };
  // An announcement that happened three minutes ago, before `older` existed, stored now (as a late idempotent retry stores it).
  const old = { ...makeEvent("agent.registered", data), created_at: new Date(Date.now() - 180_000).toISOString() };
  const fresh = makeEvent("agent.registered", data);
  await publish(nc, old);
  await publish(nc, fresh);
  t.equal((await waitDelivery(stack, fresh.event_id, older.id, terminal)).status, "delivered");
  const bogus = await createSub(stack, { url: receiver.url(path), events: ["finding.discovered"], filters: { min_severity: "high" } });
  const extreme = makeEvent("finding.discovered", { investigation_id: "inv_01JC0000000000000000000000", finding: { severity: "extreme" } });
  const high = makeEvent("finding.discovered", { investigation_id: "inv_01JC0000000000000000000000", finding: { severity: "high" } });
  await publish(nc, extreme);
  await publish(nc, high);
  t.equal((await waitDelivery(stack, high.event_id, bogus.id, terminal)).status, "delivered");
  await new Promise((r) => setTimeout(r, 500));
  const ids = receiver.received(path).map((r) => r.json?.event_id);
  t.notOk(ids.includes(old.event_id), "the old event is not sent to the subscription made after it happened");
  t.notOk(ids.includes(extreme.event_id), "severity 'extreme' does not pass min_severity high");
  t.ok(ids.includes(fresh.event_id) && ids.includes(high.event_id));
});

test("4xx other than 408/429 fails permanently at once", async (t) => {
  const sent: string[] = [];
  for (const code of [400, 404, 410]) {
    const path = `/permanent-${code}`;
    const sub = await createSub(stack, { url: receiver.url(path), events: ["agent.disconnected"] });
    receiver.on(path, answer(code, 200));
    const ev = makeEvent("agent.disconnected", { agent_id: "a4", hostname: "h4", tags: {}, status: "offline" });
    await publish(nc, ev);
    sent.push(ev.event_id);
    const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
    t.equal(d.status, "failed_permanent", `${code}`);
    t.equal(d.attempt_count, 1, `${code}: the retry budget is not used`);
    t.equal(d.last_response_code, code);
    t.equal(d.next_attempt_at, null);
  }
  await new Promise((r) => setTimeout(r, 300));
  t.equal(got("/permanent-400", sent[0] as string).length, 1, "never attempted again");
});

test("a timeout is transient: no response code, last_error timeout, then retried", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/hang-once"), events: ["agent.connected"] });
  receiver.on("/hang-once", answer("hang", 200));
  const ev = makeEvent("agent.connected", { agent_id: "a5", hostname: "h5", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.attempt_count, 2);
  const [first] = d.attempts;
  t.equal(first.error, "timeout");
  t.equal(first.response_code, null);
  t.ok(first.duration_ms >= 450 && first.duration_ms < 3_000, `the attempt ended at the 500 ms timeout (${first.duration_ms} ms)`);
  checkSchedule(t, d);
});

test("connection refused: retried five times, then failed_permanent with last_response_code null", async (t) => {
  const port = await freePort(); // nothing listens here
  const sub = await createSub(stack, { url: `http://127.0.0.1:${port}/nobody`, events: ["agent.connected"] });
  const ev = makeEvent("agent.connected", { agent_id: "a6", hostname: "h6", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(stack, ev.event_id, sub.id, terminal);
  t.equal(d.status, "failed_permanent");
  t.equal(d.attempt_count, 5);
  t.equal(d.last_error, "connection_refused");
  t.equal(d.last_response_code, null);
  t.equal(d.last_response_body, null);
  t.ok(d.attempts.every((a: Json) => a.error === "connection_refused" && a.response_code === null));
  checkSchedule(t, d);
});

test("fan-out: event types and min_severity decide who gets what", async (t) => {
  const high = await createSub(stack, { url: receiver.url("/sev-high"), events: ["finding.discovered", "investigation.completed", "investigation.failed"], filters: { min_severity: "high" } });
  const all = await createSub(stack, { url: receiver.url("/sev-all"), events: ["finding.discovered", "investigation.completed", "investigation.failed"] });
  const agentsOnly = await createSub(stack, { url: receiver.url("/agents-only"), events: ["agent.connected"] });
  const finding = (severity: string) => makeEvent("finding.discovered", { investigation_id: "inv_X", finding: { finding_id: "fnd_X", severity, title: "t" } });
  const completed = (severity: string) => makeEvent("investigation.completed", { investigation_id: "inv_Y", status: "completed", summary: { severity } });
  const events = {
    low: finding("low"),
    high: finding("high"),
    critical: finding("critical"),
    medium: completed("medium"),
    completedCritical: completed("critical"),
    failed: makeEvent("investigation.failed", { investigation_id: "inv_Z", status: "failed", summary: null }),
  };
  for (const e of Object.values(events)) await publish(nc, e);
  await receiver.waitFor(() => receiver.received("/sev-all").length >= 6 && receiver.received("/sev-high").length >= 4);
  await new Promise((r) => setTimeout(r, 500)); // anything that should not come has had its chance
  const ids = (path: string) => new Set(receiver.received(path).map((r) => r.json.event_id as string));
  t.same(ids("/sev-all"), new Set(Object.values(events).map((e) => e.event_id)), "no filter: everything subscribed");
  t.same(ids("/sev-high"), new Set([events.high.event_id, events.critical.event_id, events.completedCritical.event_id, events.failed.event_id]), "min_severity high drops low and medium; events without severity pass");
  t.equal(receiver.received("/agents-only").length, 0, "other event types are not sent");
  const none = await listDeliveries(stack, `subscription_id=${high.id}&event_id=${events.low.event_id}`);
  t.same(none, [], "a filtered-out event creates no delivery");
  void all;
  void agentsOnly;
});

test("one delivery per (event, subscription) when the same event is stored again later", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/once"), events: ["agent.connected"] });
  const ev = makeEvent("agent.connected", { agent_id: "a7", hostname: "h7", tags: {}, status: "online" });
  await publish(nc, ev, `${ev.event_id}-a`);
  await eventually(async () => ((await listDeliveries(stack, `event_id=${ev.event_id}&subscription_id=${sub.id}`)).length === 1 ? true : undefined));
  await publish(nc, ev, `${ev.event_id}-b`); // a republish beyond the stream's duplicate window
  const sentinel = makeEvent("agent.connected", { agent_id: "a8", hostname: "h8", tags: {}, status: "online" });
  await publish(nc, sentinel);
  await eventually(async () => (receiver.received("/once").some((r) => r.json.event_id === sentinel.event_id) ? true : undefined));
  t.equal(got("/once", ev.event_id).length, 1, "sent once: the second copy finds the delivery's record");
  const list = await listDeliveries(stack, `event_id=${ev.event_id}&subscription_id=${sub.id}`);
  t.equal(list.length, 1, "one delivery record");
  t.equal(list[0]?.attempt_count, 1, "one attempt recorded");
});

test("the same event stored twice back to back: one delivery record, every POST with the same event_id", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/twice"), events: ["agent.connected"] });
  const ev = makeEvent("agent.connected", { agent_id: "a9", hostname: "h9", tags: {}, status: "online" });
  await publish(nc, ev, `${ev.event_id}-a`);
  await publish(nc, ev, `${ev.event_id}-b`);
  const sentinel = makeEvent("agent.connected", { agent_id: "a10", hostname: "h10", tags: {}, status: "online" });
  await publish(nc, sentinel);
  await eventually(async () => (receiver.received("/twice").some((r) => r.json.event_id === sentinel.event_id) ? true : undefined));
  const list = await listDeliveries(stack, `event_id=${ev.event_id}&subscription_id=${sub.id}`);
  t.equal(list.length, 1, "one delivery record");
  // Two dispatcher replicas may each take a copy at the same moment and make its first attempt (at-least-once,
  // docs/architecture.md#flow-events); within one replica the second copy waits for the first.
  const sent = got("/twice", ev.event_id);
  t.ok(sent.length >= 1 && sent.length <= 2, `sent at most once per replica (${sent.length})`);
  t.ok(sent.every((r) => r.headers["x-service-delivery"] === list[0]?.delivery_id), "every POST carries the one delivery id");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});

