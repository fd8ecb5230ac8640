// What each agent protocol message does to the agent's record (services/runner/registry.ts), without NATS.
import { test } from "tap";
import { beaten, claimedSnapshotTime, departed, MIN_OFFLINE_DWELL_MS, registered, reintroduced, SNAPSHOT_CLOCK_SKEW_MS } from "../../services/runner/registry.js";
import type { Hello } from "../../shared/agents/protocol.js";
import { subjectAgentId } from "../../shared/agents/protocol.js";
import { agentView } from "../../shared/agents/record.js";

const NOW = Date.parse("2026-01-01T00:00:00.000Z");
const hello: Hello = { agent_id: "web-1", hostname: "web-1.prod", tags: { env: "prod" }, edr_device_id: null, heartbeat_interval_ms: 5000 };

test("hello: a new record, offline until its first heartbeat, with agent.registered queued", async (t) => {
  const r = registered(hello, NOW);
  t.match(r, { agent_id: "web-1", hostname: "web-1.prod", status: "offline", registered_at: "2026-01-01T00:00:00.000Z", last_seen_at: null, snapshot_collected_at: null, heartbeat_interval_ms: 5000 });
  t.same(r.outbox?.map((e) => e.type), ["agent.registered"]);
});

test("hello again: identity refreshed, history and status kept; no write when nothing changed", async (t) => {
  const known = { ...registered(hello, NOW), status: "online" as const, last_seen_at: "2026-01-01T00:00:05.000Z", outbox: [] };
  t.equal(reintroduced(known, hello), null, "same identity: no write");
  const moved = reintroduced(known, { ...hello, tags: { env: "staging" } });
  t.match(moved, { tags: { env: "staging" }, status: "online", registered_at: known.registered_at, last_seen_at: known.last_seen_at });
  t.same(moved?.outbox, [], "no event");
});

test("heartbeat: online and seen now, agent.connected only when it was not online; the snapshot time kept when absent", async (t) => {
  const fresh = { ...registered(hello, NOW), outbox: [] };
  const first = beaten(fresh, { agent_id: "web-1", snapshot_collected_at: "2025-12-31T23:00:00.000Z" }, NOW + 1000);
  t.match(first, { status: "online", last_seen_at: "2026-01-01T00:00:01.000Z", snapshot_collected_at: "2025-12-31T23:00:00.000Z" });
  if (first === null) throw new Error("a fresh heartbeat applies");
  t.same(first.outbox?.map((e) => e.type), ["agent.connected"]);
  const second = beaten({ ...first, outbox: [] }, { agent_id: "web-1", snapshot_collected_at: null }, NOW + 2000);
  t.same(second?.outbox, [], "already online: no event");
  t.equal(second?.snapshot_collected_at, "2025-12-31T23:00:00.000Z");
});

test("a heartbeat applied more than an interval after it arrived does not bring an agent marked offline back", async (t) => {
  // It arrived while the agent was online; the liveness sweep marked the agent offline before it was applied.
  const marked = { ...registered(hello, NOW), status: "offline" as const, last_seen_at: "2026-01-01T00:00:00.000Z", outbox: [] };
  const arrived = NOW + 1000;
  t.equal(beaten(marked, { agent_id: "web-1", snapshot_collected_at: null }, arrived, arrived + 5001), null, "stale: no change, no agent.connected");
  t.equal(beaten(marked, { agent_id: "web-1", snapshot_collected_at: null }, arrived, arrived + 100)?.status, "online", "prompt: back online");
  const online = { ...marked, status: "online" as const };
  t.equal(beaten(online, { agent_id: "web-1", snapshot_collected_at: null }, arrived, arrived + 9000)?.last_seen_at, "2026-01-01T00:00:01.000Z", "an online agent still records it");
});

test("bye: offline with agent.disconnected; nothing when it was not online", async (t) => {
  const beat = beaten({ ...registered(hello, NOW), outbox: [] }, { agent_id: "web-1", snapshot_collected_at: null }, NOW);
  if (beat === null) throw new Error("a fresh heartbeat applies");
  const online = { ...beat, outbox: [] };
  const gone = departed(online, NOW + 1);
  t.equal(gone?.status, "offline");
  t.same(gone?.outbox?.map((e) => e.type), ["agent.disconnected"]);
  t.equal(departed({ ...online, status: "offline" }, NOW), null);
});

test("an agent that went offline stays offline for the dwell: one disconnected/connected pair per dwell however it flaps", async (t) => {
  const first = beaten({ ...registered(hello, NOW), outbox: [] }, { agent_id: "web-1", snapshot_collected_at: null }, NOW);
  if (first === null) throw new Error("a fresh heartbeat applies");
  const gone = departed({ ...first, outbox: [] }, NOW + 1);
  if (gone === null) throw new Error("an online agent departs");
  t.equal(gone.offline_since, "2026-01-01T00:00:00.001Z");
  const away = { ...gone, outbox: [] };
  const beat = { agent_id: "web-1", snapshot_collected_at: null };
  t.equal(beaten(away, beat, NOW + 1 + MIN_OFFLINE_DWELL_MS - 1), null, "within the dwell: no change, no agent.connected");
  const back = beaten(away, beat, NOW + 1 + MIN_OFFLINE_DWELL_MS);
  t.equal(back?.status, "online", "after it: back");
  t.same(back?.outbox?.map((e) => e.type), ["agent.connected"]);
  t.notOk("offline_since" in agentView(away), "not part of the API's view");
});

test("a heartbeat's snapshot time: kept in UTC; no news when ahead of the clock by more than the skew or no instant", async (t) => {
  t.equal(claimedSnapshotTime(null, NOW), null);
  t.equal(claimedSnapshotTime("2025-12-31T23:00:00Z", NOW), "2025-12-31T23:00:00.000Z");
  t.equal(claimedSnapshotTime("2026-01-01T01:00:00+01:00", NOW), "2026-01-01T00:00:00.000Z");
  t.equal(claimedSnapshotTime(new Date(NOW + SNAPSHOT_CLOCK_SKEW_MS).toISOString(), NOW), new Date(NOW + SNAPSHOT_CLOCK_SKEW_MS).toISOString(), "at the skew: taken");
  t.equal(claimedSnapshotTime(new Date(NOW + SNAPSHOT_CLOCK_SKEW_MS + 1).toISOString(), NOW), null, "past it: not");
  t.equal(claimedSnapshotTime("2025-12-31T23:59:60Z", NOW), null, "a leap second the schema lets through names no instant here");
});

test("the agent id a subject carries", async (t) => {
  t.equal(subjectAgentId("agents.web-1.hello"), "web-1");
  t.equal(subjectAgentId("snapshots.web_2"), "web_2");
  for (const bad of ["agents.web-1", "agents.a.b.hello", "agents..hello", "other.web-1.hello", "snapshots.a.b"]) t.equal(subjectAgentId(bad), null, bad);
});
