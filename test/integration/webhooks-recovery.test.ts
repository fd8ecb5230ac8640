// Bulk recovery (docs/api.md#recovery): POST .../recover re-sends a window's dead letters and the events a paused
// subscription missed, as a background job whose progress is readable, idempotent per window, and which survives
// kill -9 of the dispatcher running it. Real gateway, dispatcher, nats-server and a scripted receiver.
import type { NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, listDeliveries, makeEvent, publish, terminal, waitDelivery, type Json } from "../helpers/webhooks.js";

let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;
const SUBS = "/v1/webhooks/subscriptions";
const DEAD = 600;
const MISSED = 300;

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({ services: ["gateway", "dispatcher"], env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "100ms,100ms,100ms,100ms" } });
  nc = await connectTo(stack.nats.url);
});

const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });
const agentEvent = (id: string) => makeEvent("agent.registered", { agent_id: id, hostname: id, tags: {}, status: "online" });
const iso = (ms: number) => new Date(ms).toISOString();

async function publishAll(events: Array<ReturnType<typeof agentEvent>>): Promise<void> {
  for (let i = 0; i < events.length; i += 100) await Promise.all(events.slice(i, i + 100).map((e) => publish(nc, e)));
}

test("a recovery window must be within the 30 days kept, in order, for a subscription that exists", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/w"), events: ["agent.registered"] });
  const now = Date.now();
  const bad: Array<[unknown, string]> = [
    [{}, "/since"],
    [{ since: "yesterday" }, "/since"],
    [{ since: iso(now - 31 * 86_400_000) }, "/since"],
    [{ since: iso(now + 60_000) }, "/since"],
    [{ since: iso(now - 60_000), until: iso(now - 120_000) }, "/until"],
    [{ since: iso(now - 60_000), extra: 1 }, "/extra"],
    // RFC 3339 allows a leap second; Date.parse does not read it: a 400, not a 500.
    [{ since: "2026-11-26T23:59:60Z" }, "/since"],
    [{ since: iso(now - 60_000), until: "2026-11-26T23:59:60+00:00" }, "/until"],
  ];
  for (const [body, path] of bad) {
    const r = await call("POST", `${SUBS}/${sub.id}/recover`, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json.error.code, "validation_failed");
    t.ok(r.json.error.details.some((d: { path: string }) => d.path === path), `names ${path}: ${JSON.stringify(r.json.error.details)}`);
  }
  t.equal((await call("POST", `${SUBS}/sub_01HZZZZZZZZZZZZZZZZZZZZZZZ/recover`, { since: iso(now - 60_000) })).status, 404);
  t.equal((await call("GET", "/v1/webhooks/recoveries/rcv_01HZZZZZZZZZZZZZZZZZZZZZZZ")).status, 404);
  t.equal((await call("GET", "/v1/webhooks/recoveries/nope")).status, 404);
  await call("DELETE", `${SUBS}/${sub.id}`);
});

test("dead letters and missed events are re-sent once, through a kill -9 of the dispatcher; the job is idempotent", async (t) => {
  const since = iso(Date.now() - 1_000);
  const sub = await createSub(stack, { url: receiver.url("/rec"), events: ["agent.registered"] });
  let up = false;
  receiver.on("/rec", () => (up ? { status: 200, body: "ok" } : { status: 400, body: "no" }));

  // Dead letters: a 400 is permanent, so each fails on its first attempt.
  const dead = Array.from({ length: DEAD, }, (_, i) => agentEvent(`d${i}`));
  await publishAll(dead);
  await eventually(async () => ((await listDeliveries(stack, `subscription_id=${sub.id}&status=failed_permanent`)).length >= DEAD ? true : undefined), 60_000, 250);
  // Missed: published while the subscription was paused, so the fan-out made no delivery of them.
  t.equal((await call("PATCH", `${SUBS}/${sub.id}`, { active: false })).status, 200);
  const missed = Array.from({ length: MISSED }, (_, i) => agentEvent(`m${i}`));
  await publishAll(missed);
  await new Promise((r) => setTimeout(r, 500));
  t.equal((await call("PATCH", `${SUBS}/${sub.id}`, { active: true })).status, 200);
  // Delivered already: left alone.
  up = true;
  const fine = agentEvent("ok");
  await publish(nc, fine);
  await waitDelivery(stack, fine.event_id, sub.id, terminal);
  const before = receiver.received("/rec").length;

  const asked = await call("POST", `${SUBS}/${sub.id}/recover`, { since });
  t.equal(asked.status, 202);
  t.match(asked.json, { subscription_id: sub.id, since: iso(Date.parse(since)), run: 1, dead_letters_found: DEAD, resent_dead_letters: 0, resent_missed: 0 });
  t.match(asked.json.recovery_id, /^rcv_/);
  t.ok(["queued", "running"].includes(asked.json.status));
  const again = await call("POST", `${SUBS}/${sub.id}/recover`, { since });
  t.equal(again.json.recovery_id, asked.json.recovery_id, "asked again while it runs: the same job");
  t.equal(again.json.run, 1);
  const id = asked.json.recovery_id as string;
  const progress = async (): Promise<Json> => (await call("GET", `/v1/webhooks/recoveries/${id}`)).json;

  // Killed in the middle of its run (or as early as it can be caught), then started again.
  await eventually(async () => {
    const p = await progress();
    return p.events_scanned > 0 || p.status === "completed" ? true : undefined;
  }, 30_000, 10);
  const atKill = await progress();
  await stack.services.get("dispatcher")?.kill("SIGKILL");
  t.comment(`dispatcher killed with the recovery ${atKill.status}, ${atKill.events_scanned}/${atKill.events_total ?? "?"} events scanned`);
  stack.start("dispatcher");

  const done = await eventually(async () => {
    const p = await progress();
    return p.status === "completed" ? p : undefined;
  }, 90_000, 250);
  t.equal(done.resent_dead_letters, DEAD, "every dead letter re-sent");
  t.equal(done.resent_missed, MISSED, "every missed event sent");
  t.ok(done.events_scanned >= DEAD + MISSED + 1, `${done.events_scanned} events scanned`);
  t.equal(done.error, null);
  t.match(done.completed_at, /^\d{4}-/);

  const wanted = new Set([...dead, ...missed].map((e) => e.event_id));
  const resent = () => new Set(receiver.received("/rec").slice(before).map((r) => r.json?.event_id as string));
  await receiver.waitFor(() => [...wanted].every((e) => resent().has(e)), 60_000);
  const arrivals = receiver
    .received("/rec")
    .slice(before)
    .map((r) => r.json?.event_id as string);
  const extra = arrivals.length - new Set(arrivals).size;
  t.notOk(arrivals.includes(fine.event_id), "the delivered event was not sent again");
  t.ok(extra <= 250, `${extra} duplicate arrivals (bounded by one progress save)`);
  t.comment(`${arrivals.length} arrivals after the recovery began, ${extra} duplicates`);
  const replays = await eventually(async () => {
    const list = (await listDeliveries(stack, `subscription_id=${sub.id}&status=delivered`)).filter((d: Json) => d.replay_of !== null);
    return list.length >= DEAD ? list : undefined;
  }, 15_000, 250);
  t.equal(replays.length, DEAD, "each dead letter's re-send names it in replay_of");

  // Asked again once finished: the next run, which leaves alone what the first one re-sent.
  const rerun = await call("POST", `${SUBS}/${sub.id}/recover`, { since });
  t.equal(rerun.status, 202);
  t.equal(rerun.json.recovery_id, id);
  t.equal(rerun.json.run, 2);
  const second = await eventually(async () => {
    const p = await progress();
    return p.status === "completed" && p.run === 2 ? p : undefined;
  }, 60_000, 250);
  t.same([second.resent_dead_letters, second.resent_missed], [0, 0], "nothing left to recover");
});

test("SIGTERM mid-run: the dispatcher saves its cursor, hands the job back and exits 0; the next one finishes it", async (t) => {
  const count = 1_200;
  const since = iso(Date.now() - 1_000);
  const sub = await createSub(stack, { url: receiver.url("/term"), events: ["agent.registered"] });
  let up = false;
  receiver.on("/term", () => (up ? { status: 200, body: "ok" } : { status: 400, body: "no" }));
  const dead = Array.from({ length: count }, (_, i) => agentEvent(`t${i}`));
  await publishAll(dead);
  await eventually(async () => ((await listDeliveries(stack, `subscription_id=${sub.id}&status=failed_permanent`)).length >= count ? true : undefined), 60_000, 250);
  up = true;
  const before = receiver.received("/term").length;
  const id = (await call("POST", `${SUBS}/${sub.id}/recover`, { since })).json.recovery_id as string;
  const progress = async (): Promise<Json> => (await call("GET", `/v1/webhooks/recoveries/${id}`)).json;
  await eventually(async () => {
    const p = await progress();
    return p.events_scanned > 0 || p.status === "completed" ? true : undefined;
  }, 30_000, 10);
  const code = await stack.services.get("dispatcher")?.kill("SIGTERM");
  t.equal(code, 0, "the dispatcher exits 0");
  const handedBack = await progress();
  t.comment(`stopped with the recovery ${handedBack.status}, ${handedBack.events_scanned}/${handedBack.events_total} events scanned`);
  if (handedBack.status !== "completed") {
    t.equal(handedBack.status, "running", "handed back unfinished, not failed");
    t.ok(handedBack.events_scanned > 0, "its progress was saved on the way out");
  }
  stack.start("dispatcher");
  const done = await eventually(async () => {
    const p = await progress();
    return p.status === "completed" ? p : undefined;
  }, 60_000, 250);
  t.equal(done.resent_dead_letters, count, "every dead letter re-sent once");
  const wanted = new Set(dead.map((e) => e.event_id));
  await receiver.waitFor(() => {
    const got = new Set(receiver.received("/term").slice(before).map((r) => r.json?.event_id as string));
    return [...wanted].every((e) => got.has(e));
  }, 60_000);
  const arrivals = receiver.received("/term").slice(before).map((r) => r.json?.event_id as string);
  t.equal(arrivals.length - new Set(arrivals).size, 0, "a clean stop duplicates nothing");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
