// Collecting from many agents at once puts one listener on the run's AbortSignal, not one per agent (which tripped
// MaxListenersExceededWarning past ten agents and kept listeners until every request ended); a cancel still ends
// every pending plan at once.
import { test } from "tap";
import { getEventListeners } from "node:events";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { collect } from "../../services/runner/collect.js";

let nats: NatsServer;
let nc: NatsConnection;
const AGENTS = 25;

function agent(id: string): AgentRecord {
  const now = new Date().toISOString();
  return { agent_id: id, hostname: id, tags: {}, edr_device_id: null, status: "online", registered_at: now, last_seen_at: now, snapshot_collected_at: null, heartbeat_interval_ms: 1_000 };
}

test("setup", async () => {
  nats = await startNats();
  nc = await connectTo(nats.url);
});

test(`a live collection from ${AGENTS} agents: one abort listener, none left after; no MaxListenersExceededWarning`, async (t) => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on("warning", onWarning);
  t.teardown(() => void process.off("warning", onWarning));
  const agents = Array.from({ length: AGENTS }, (_, i) => agent(`many-${i}`));
  let listening = 0;
  let asked = 0;
  const subs = agents.map((a) =>
    nc.subscribe(SUBJECTS.plan(a.agent_id), {
      callback: (_e, m) => {
        asked++;
        // Every request is in flight before the first answer: the moment the old code held one listener per agent.
        if (asked === AGENTS) listening = getEventListeners(controller.signal, "abort").length;
        setTimeout(() => m.respond(JSON.stringify({ agent_id: a.agent_id, collected_at: new Date().toISOString(), tables: {} })), 100);
      },
    }),
  );
  t.teardown(() => subs.forEach((s) => s.unsubscribe()));
  await nc.flush();
  const controller = new AbortController();
  const handed: string[] = [];
  const result = await collect(
    { nc, jsm: await jetstreamManager(nc) },
    { investigationId: "inv_many", agents, tables: ["processes"], mode: "live", deadlineMs: 5_000, signal: controller.signal },
    { responded: (host) => handed.push(host.agent_id), unreachable: () => {} },
  );
  await new Promise((r) => setImmediate(r));
  t.equal(result.responded, AGENTS, "every agent answered");
  t.same(handed.sort(), agents.map((a) => a.agent_id).sort(), "each answer was handed on as it came, once");
  t.equal(listening, 1, "one listener while every plan is pending");
  t.equal(getEventListeners(controller.signal, "abort").length, 0, "released once the collection ended");
  t.notOk(warnings.includes("MaxListenersExceededWarning"), `no listener-leak warning (${warnings.join(", ")})`);
});

test("answers an agent made to hurt the run are refused for that host alone: a collected_at that is no date, rows nested 100,000 deep", async (t) => {
  const deep = (n: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  const answers: Record<string, string> = {
    // Built as text: JSON.stringify itself cannot write a value nested this deep.
    "deep-1": `{"agent_id":"deep-1","collected_at":"${new Date().toISOString()}","tables":{"last":[{"username":"root","junk":${"[".repeat(100_000)}1${"]".repeat(100_000)}}]}}`,
    "long-date": JSON.stringify({ agent_id: "long-date", collected_at: `2026-01-01T00:00:00Z${"x".repeat(3_000)}`, tables: { last: [] } }),
    "not-a-date": JSON.stringify({ agent_id: "not-a-date", collected_at: "yesterday", tables: { last: [] } }),
    "a-little-nested": JSON.stringify({ agent_id: "a-little-nested", collected_at: new Date().toISOString(), tables: { last: [{ username: "root", extra: deep(7) }] } }),
    honest: JSON.stringify({ agent_id: "honest", collected_at: new Date().toISOString(), tables: { last: [{ username: "root" }] } }),
  };
  const agents = Object.keys(answers).map(agent);
  const subs = agents.map((a) => nc.subscribe(SUBJECTS.plan(a.agent_id), { callback: (_e, m) => void m.respond(answers[a.agent_id] ?? "") }));
  t.teardown(() => subs.forEach((s) => s.unsubscribe()));
  await nc.flush();
  const handed: string[] = [];
  const result = await collect(
    { nc, jsm: await jetstreamManager(nc) },
    { investigationId: "inv_hostile", agents, tables: ["last"], mode: "live", deadlineMs: 5_000, signal: new AbortController().signal },
    { responded: (host) => handed.push(host.agent_id), unreachable: () => {} },
  );
  t.same(handed.sort(), ["a-little-nested", "honest"], "the two honest answers are kept");
  const why = Object.fromEntries(result.unreachable.map((u) => [u.agent_id, u.reason]));
  t.match(why["deep-1"], /nested over 8 deep/);
  t.equal(why["long-date"], "invalid plan answer");
  t.equal(why["not-a-date"], "invalid plan answer");
});

test("a cancel ends every pending plan at once", async (t) => {
  const agents = Array.from({ length: 12 }, (_, i) => agent(`slow-${i}`));
  const subs = agents.map((a) => nc.subscribe(SUBJECTS.plan(a.agent_id), { callback: () => {} })); // never answer
  t.teardown(() => subs.forEach((s) => s.unsubscribe()));
  await nc.flush();
  const controller = new AbortController();
  let settled = 0;
  const run = collect(
    { nc, jsm: await jetstreamManager(nc) },
    { investigationId: "inv_cancel", agents, tables: ["processes"], mode: "live", deadlineMs: 60_000, signal: controller.signal },
    { responded: () => t.fail("no agent answers"), unreachable: () => void settled++ },
  );
  setTimeout(() => controller.abort("cancelled"), 200);
  const result = await run;
  t.equal(result.unreachable.length, 12);
  t.equal(settled, 0, "none told to the sink as unreachable: the progress a cancel leaves is what was done before it");
  t.ok(result.unreachable.every((u) => u.reason === "cancelled"), "each pending plan ends as cancelled");
  t.equal(getEventListeners(controller.signal, "abort").length, 0);
});

test("auto: an online agent whose snapshot the stream does not hold (published without an ack, lost) is asked live", async (t) => {
  const { openRuntime } = await import("../../shared/runtime.js");
  await openRuntime(nc, { replicas: 1 }); // the snapshots stream, empty
  const said = { ...agent("lost-snap"), snapshot_collected_at: new Date().toISOString() };
  const offline = { ...agent("gone-snap"), status: "offline" as const, snapshot_collected_at: new Date().toISOString() };
  let asked = 0;
  const sub = nc.subscribe(SUBJECTS.plan(said.agent_id), {
    callback: (_e, m) => {
      asked++;
      m.respond(JSON.stringify({ agent_id: said.agent_id, collected_at: new Date().toISOString(), tables: { processes: [] } }));
    },
  });
  t.teardown(() => sub.unsubscribe());
  await nc.flush();
  const jsm = await jetstreamManager(nc);
  const run = (mode: "auto" | "cached") =>
    collect(
      { nc, jsm },
      { investigationId: `inv_lost_${mode}`, agents: [said, offline], tables: ["processes"], mode, deadlineMs: 2_000, signal: new AbortController().signal },
      { responded: () => {}, unreachable: () => {} },
    );
  const auto = await run("auto");
  t.equal(auto.responded, 1, "auto: the online agent answered live");
  t.same(auto.unreachable.map((u) => [u.agent_id, u.reason]), [["gone-snap", "no snapshot"]], "an offline one is not asked");
  t.equal(asked, 1);
  const cached = await run("cached");
  t.equal(cached.responded, 0, "cached: snapshots only");
  t.equal(asked, 1, "no plan in cached mode");
});

test("a collected_at ahead of the answer's arrival (or naming no instant) is replaced by the arrival: the runner's receipt of a plan answer, the stream's storage of a snapshot", async (t) => {
  const { openRuntime } = await import("../../shared/runtime.js");
  await openRuntime(nc, { replicas: 1 });
  const soon = new Date(Date.now() + 10_000).toISOString();
  const claims: Record<string, string> = {
    "plan-ahead": "2999-01-01T00:00:00Z",
    "plan-leap": "2026-12-31T23:59:60Z", // a date-time by RFC 3339, but no instant
    "plan-offset": "2026-01-01T00:00:00+14:00",
    "plan-soon": soon, // a fast clock within the skew
  };
  const live = Object.keys(claims).map(agent);
  const subs = live.map((a) => nc.subscribe(SUBJECTS.plan(a.agent_id), { callback: (_e, m) => void m.respond(JSON.stringify({ agent_id: a.agent_id, collected_at: claims[a.agent_id], tables: { last: [] } })) }));
  t.teardown(() => subs.forEach((s) => s.unsubscribe()));
  const stored = { ...agent("snap-ahead"), snapshot_collected_at: new Date().toISOString() };
  nc.publish(SUBJECTS.snapshot(stored.agent_id), JSON.stringify({ agent_id: stored.agent_id, hostname: stored.hostname, collected_at: "2999-01-01T00:00:00Z", tables: { last: [] } }));
  await nc.flush();
  const jsm = await jetstreamManager(nc);
  const storedAt = (await jsm.streams.getMessage(STREAMS.snapshots.name, { last_by_subj: SUBJECTS.snapshot(stored.agent_id) }))?.time.getTime();
  const at: Record<string, string> = {};
  const before = Date.now();
  for (const [mode, agents] of [["live", live], ["cached", [stored]]] as const) {
    await collect(
      { nc, jsm },
      { investigationId: `inv_ahead_${mode}`, agents: [...agents], tables: ["last"], mode, deadlineMs: 5_000, signal: new AbortController().signal },
      { responded: (host) => void (at[host.agent_id] = host.collected_at), unreachable: () => t.fail("every answer is kept") },
    );
  }
  const after = Date.now();
  const received = (id: string) => Date.parse(at[id] ?? "") >= before && Date.parse(at[id] ?? "") <= after && at[id] === new Date(Date.parse(at[id] ?? "")).toISOString();
  t.ok(received("plan-ahead"), `a plan answer from 2999: the runner's receipt time (${at["plan-ahead"]})`);
  t.ok(received("plan-leap"), `23:59:60: the receipt time (${at["plan-leap"]})`);
  t.equal(at["plan-offset"], "2025-12-31T10:00:00.000Z", "a time in the past is kept, in UTC with milliseconds");
  t.equal(at["plan-soon"], soon, "10 s ahead is within the skew: kept");
  t.equal(at["snap-ahead"], new Date(storedAt ?? NaN).toISOString(), "a snapshot from 2999: when the stream stored it");
});

test("teardown", async () => {
  await nc.close();
  await nats.stop();
});
