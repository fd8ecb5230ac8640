// Per-subscription options (docs/api.md#subscription-options): custom headers (sealed, never shown, never in
// place of a signature header), a per-subscription timeout, and a deliveries-per-second limit that spends no
// attempt. Real gateway, dispatcher, nats-server and a scripted receiver.
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { test, type Test } from "tap";
import { connectTo } from "../helpers/nats.js";
import { freePort } from "../../shared/net.js";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, makeEvent, publish, terminal, waitDelivery } from "../helpers/webhooks.js";

let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;
let opsPort: number;
const SUBS = "/v1/webhooks/subscriptions";

const IN_FLIGHT = 2;

test("setup", async () => {
  receiver = await startReceiver();
  opsPort = await freePort();
  stack = await startStack({
    services: ["gateway", "dispatcher"],
    // The ops port is the dispatcher's (the gateway serves /metrics on its API port and ignores it).
    // Two requests in flight per subscription (the default dispatcher pool, so more jobs than that run at once).
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "200ms,200ms,200ms,200ms", INQUEST_DELIVERY_TIMEOUT: "5s", INQUEST_OPS_PORT: String(opsPort), INQUEST_SUBSCRIPTION_CONCURRENCY: String(IN_FLIGHT) },
  });
  nc = await connectTo(stack.nats.url);
});

const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });
const agentEvent = (id: string) => makeEvent("agent.registered", { agent_id: id, hostname: id, tags: {}, status: "online" });

test("bad options are 400 validation_failed naming the field, on create and on PATCH, and nothing is written", async (t) => {
  const base = { url: receiver.url("/v"), events: ["agent.registered"] };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ headers: { "X-Service-Signature-256": "sha256=forged" } }, "/headers/X-Service-Signature-256"],
    [{ headers: { "webhook-signature": "v1,forged" } }, "/headers/webhook-signature"],
    [{ headers: { "Content-Type": "text/plain" } }, "/headers/Content-Type"],
    [{ headers: { Host: "elsewhere" } }, "/headers/Host"],
    [{ headers: { "X-Team": "a", "x-team": "b" } }, "/headers/x-team"],
    [{ headers: { "X-Inject": "a\r\nX-Evil: 1" } }, "/headers/X-Inject"],
    [{ headers: { "bad name": "a" } }, "/headers"],
    [{ headers: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`X-H${i}`, "v"])) }, "/headers"],
    [{ timeout_seconds: 0 }, "/timeout_seconds"],
    [{ timeout_seconds: 31 }, "/timeout_seconds"],
    [{ timeout_seconds: 2.5 }, "/timeout_seconds"],
    [{ rate_limit_per_second: 0 }, "/rate_limit_per_second"],
    [{ rate_limit_per_second: 1001 }, "/rate_limit_per_second"],
  ];
  const before = (await call("GET", `${SUBS}?limit=100`)).json.subscriptions.length;
  const good = (await call("POST", SUBS, base)).json;
  for (const [extra, path] of cases) {
    const created = await call("POST", SUBS, { ...base, ...extra });
    t.equal(created.status, 400, `create ${JSON.stringify(extra)}`);
    t.equal(created.json.error.code, "validation_failed");
    t.ok(
      created.json.error.details.some((d: { path: string }) => d.path.startsWith(path)),
      `create names ${path}: ${JSON.stringify(created.json.error.details)}`,
    );
    const patched = await call("PATCH", `${SUBS}/${good.id}`, extra);
    t.equal(patched.status, 400, `patch ${JSON.stringify(extra)}`);
  }
  t.equal((await call("GET", `${SUBS}?limit=100`)).json.subscriptions.length, before + 1, "only the good one was created");
  const unchanged = (await call("GET", `${SUBS}/${good.id}`)).json;
  t.same([unchanged.header_names, unchanged.timeout_seconds, unchanged.rate_limit_per_second], [[], null, null], "the PATCHes changed nothing");
  await call("DELETE", `${SUBS}/${good.id}`);
});

test("custom headers arrive with every POST, beside the signature headers; the values are sealed and never shown", async (t) => {
  const token = "Bearer receiver-token-7f3a9c";
  const sub = await createSub(stack, { url: receiver.url("/headers"), events: ["agent.registered"], headers: { Authorization: token, "X-Team": "blue" } });
  const shown = (await call("GET", `${SUBS}/${sub.id}`)).json;
  t.same(shown.header_names, ["Authorization", "X-Team"]);
  t.notOk(JSON.stringify(shown).includes("receiver-token"), "get never shows a value");
  t.notOk(JSON.stringify((await call("GET", `${SUBS}?limit=100`)).json).includes("receiver-token"), "nor does the list");
  const raw = await (await new Kvm(nc).open("inq_webhook_subscriptions")).get(sub.id);
  t.notOk(new TextDecoder().decode(raw?.value).includes("receiver-token"), "sealed at rest");

  const ev = agentEvent("h1");
  await publish(nc, ev);
  await waitDelivery(stack, ev.event_id, sub.id, terminal);
  const got = receiver.received("/headers").find((r) => r.json?.event_id === ev.event_id);
  t.equal(got?.headers.authorization, token);
  t.equal(got?.headers["x-team"], "blue");
  t.match(got?.headers["x-service-signature-256"], /^sha256=/, "the signature is still Inquest's");
  t.equal(got?.headers["content-type"], "application/json");

  // PATCH replaces them as a whole; {} removes them.
  const cleared = await call("PATCH", `${SUBS}/${sub.id}`, { headers: {} });
  t.same(cleared.json.header_names, []);
  const ev2 = agentEvent("h2");
  await publish(nc, ev2);
  await waitDelivery(stack, ev2.event_id, sub.id, terminal);
  const after = receiver.received("/headers").find((r) => r.json?.event_id === ev2.event_id);
  t.equal(after?.headers.authorization, undefined, "no longer sent");
  t.equal(after?.headers["x-team"], undefined);
  // null removes them too, as it resets timeout_seconds and rate_limit_per_second.
  t.same((await call("PATCH", `${SUBS}/${sub.id}`, { headers: { "X-Team": "red" } })).json.header_names, ["X-Team"]);
  const nulled = await call("PATCH", `${SUBS}/${sub.id}`, { headers: null });
  t.equal(nulled.status, 200);
  t.same(nulled.json.header_names, []);
});

test("a custom header named like an object's own members (__proto__, constructor) is sent like any other", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/proto-headers"), events: ["agent.registered"], headers: JSON.parse('{"__proto__":"p","constructor":"c","X-Plain":"v"}') as Record<string, string> });
  t.same((await call("GET", `${SUBS}/${sub.id}`)).json.header_names, ["__proto__", "constructor", "X-Plain"]);
  const ev = agentEvent("proto");
  await publish(nc, ev);
  await waitDelivery(stack, ev.event_id, sub.id, terminal);
  const got = receiver.received("/proto-headers").find((r) => r.json?.event_id === ev.event_id);
  const sent = new Map<string, string>();
  for (let i = 0; i + 1 < (got?.rawHeaders.length ?? 0); i += 2) sent.set((got?.rawHeaders[i] ?? "").toLowerCase(), got?.rawHeaders[i + 1] ?? "");
  t.equal(sent.get("__proto__"), "p", "stored, so delivered");
  t.equal(sent.get("constructor"), "c");
  t.equal(sent.get("x-plain"), "v");
});

test("timeout_seconds: an answer slower than the subscription's timeout is a timeout attempt; the default waits longer", async (t) => {
  receiver.on("/slow", () => ({ status: 200, body: "late", delayMs: 1_500 }));
  // Answered far later than the 1 s timeout, so a late timer cannot let the answer through first.
  receiver.on("/slower", () => ({ status: 200, body: "late", delayMs: 4_500 }));
  const short = await createSub(stack, { url: receiver.url("/slower"), events: ["agent.registered"], timeout_seconds: 1 });
  t.equal((await call("GET", `${SUBS}/${short.id}`)).json.timeout_seconds, 1);
  const ev = agentEvent("t1");
  await publish(nc, ev);
  const timedOut = await waitDelivery(stack, ev.event_id, short.id, (d) => d.attempt_count >= 1);
  t.equal(timedOut.attempts[0].error, "timeout");
  t.ok(timedOut.attempts[0].duration_ms >= 900 && timedOut.attempts[0].duration_ms < 4_000, `gave up after about 1 s, not the default 5 s (${timedOut.attempts[0].duration_ms} ms)`);
  await call("DELETE", `${SUBS}/${short.id}`);

  // Back to the default (null): the dispatcher's 5 s here, so the same answer is delivered.
  const patient = await createSub(stack, { url: receiver.url("/slow"), events: ["agent.registered"], timeout_seconds: 1 });
  t.equal((await call("PATCH", `${SUBS}/${patient.id}`, { timeout_seconds: null })).json.timeout_seconds, null);
  const ev2 = agentEvent("t2");
  await publish(nc, ev2);
  const d = await waitDelivery(stack, ev2.event_id, patient.id, terminal);
  t.equal(d.status, "delivered");
  t.equal(d.attempt_count, 1);
});

/**
 * Publishes `count` events at once for subscription `subId` (whose URL is the receiver's `path`), checks each was
 * delivered on its first attempt, and gives the times their POSTs reached the receiver, earliest first.
 */
async function burstTo(t: Test, subId: string, path: string, count: number): Promise<number[]> {
  const events = Array.from({ length: count }, (_, i) => agentEvent(`${path.slice(1)}-${i}`));
  await Promise.all(events.map((ev) => publish(nc, ev)));
  const deliveries = await Promise.all(events.map((ev) => waitDelivery(stack, ev.event_id, subId, terminal, 30_000)));
  t.same(
    deliveries.map((d) => [d.status, d.attempt_count]),
    events.map(() => ["delivered", 1]),
    "every one delivered on its first attempt",
  );
  const arrivals = receiver
    .received(path)
    .map((r) => r.at)
    .sort((a, b) => a - b);
  t.equal(arrivals.length, count);
  return arrivals;
}

test("rate_limit_per_second: POSTs are spread over seconds, none in excess, and waiting spends no attempt", async (t) => {
  const limit = 2;
  const count = 8;
  const sub = await createSub(stack, { url: receiver.url("/limited"), events: ["agent.registered"], rate_limit_per_second: limit });
  t.equal((await call("GET", `${SUBS}/${sub.id}`)).json.rate_limit_per_second, limit);
  const arrivals = await burstTo(t, sub.id, "/limited", count);
  // 8 POSTs at 2 per calendar second need at least 4 seconds' windows: more than 2 s from first to last.
  const span = (arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0);
  t.ok(span >= 2_000, `spread over ${span} ms`);
  // Within any 1 s, at most two windows' worth (the limit in each of two adjacent calendar seconds).
  for (let i = 0; i + 2 * limit < arrivals.length; i++) {
    const a = arrivals[i] ?? 0;
    const b = arrivals[i + 2 * limit] ?? 0;
    t.ok(b - a >= 900, `no ${2 * limit + 1} POSTs within a second (${b - a} ms)`);
  }
  const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const waited = Number(/^inquest_delivery_rate_limited_total (\d+)/m.exec(metrics)?.[1] ?? 0);
  // The jobs reach the dispatcher within a fraction of a second, which may straddle a calendar second: at most
  // two seconds' worth (2 × limit) can go out without waiting, so at least count − 2 × limit waited.
  t.ok(waited >= count - 2 * limit, `the waits are counted (inquest_delivery_rate_limited_total ${waited})`);
});

test("INQUEST_SUBSCRIPTION_CONCURRENCY: at most that many requests in flight to one endpoint, however many jobs run", async (t) => {
  const answerMs = 300;
  const count = 8;
  receiver.on("/busy", () => ({ status: 200, body: "ok", delayMs: answerMs }));
  const sub = await createSub(stack, { url: receiver.url("/busy"), events: ["agent.registered"] });
  const arrivals = await burstTo(t, sub.id, "/busy", count);
  // Each request is answered after answerMs: a request arriving while IN_FLIGHT others are unanswered would start
  // less than answerMs after the one IN_FLIGHT places before it.
  for (let i = 0; i + IN_FLIGHT < arrivals.length; i++) {
    const gap = (arrivals[i + IN_FLIGHT] ?? 0) - (arrivals[i] ?? 0);
    t.ok(gap >= answerMs - 20, `request ${i + IN_FLIGHT + 1} started after request ${i + 1} was answered (${gap} ms later)`);
  }
  await call("DELETE", `${SUBS}/${sub.id}`);
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
