// The agent registry (services/runner/registry.ts) against a real nats-server: agents register by protocol
// message only, hello is sent until a registry acknowledges it (the registry may start after the agent), an
// agent can only speak for itself, and a registry that lost a record hears hello again.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { Agent, type TelemetrySource } from "../../services/agent/agent.js";
import { LivenessMonitor } from "../../services/runner/liveness.js";
import { AgentRegistry, MIN_OFFLINE_DWELL_MS } from "../../services/runner/registry.js";
import { AgentDirectory } from "../../shared/agents/directory.js";
import { resolveScope } from "../../shared/agents/record.js";
import type { TriggerInterpretation } from "../../shared/inbound/providers/types.js";
import { resolveTarget } from "../../shared/inbound/target.js";
import { AGENT_SUBJECTS, type Ack } from "../../shared/agents/protocol.js";
import { createLogger } from "../../shared/log.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";

const log = createLogger("test", "silent");
const clock = { now: () => Date.now() };
const telemetry: TelemetrySource = { snapshotTables: ["users"], collect: async () => ({ collected_at: new Date().toISOString(), tables: { users: [{ uid: 0 }] } }) };

let nats: NatsServer;
let nc: NatsConnection;
let rt: Runtime;

test("setup", async () => {
  nats = await startNats();
  // The agents here share the services' connection, as a simulated fleet does: the registry answers only in an
  // agent's own inbox or the fleet's (shared/nats/permissions.ts isAgentInbox).
  nc = await connect({ servers: nats.url, inboxPrefix: FLEET_INBOX_PREFIX });
  rt = await openRuntime(nc, { replicas: 1 });
});

function agent(id: string, opts: { online?: boolean; heartbeatMs?: number } = {}): Agent {
  return new Agent({ nc, clock, log }, { agent_id: id, hostname: `${id}.example`, tags: { env: "test" }, edr_device_id: null }, telemetry, {
    heartbeatMs: opts.heartbeatMs ?? 60_000,
    snapshotIntervalMs: 0,
    online: opts.online ?? true,
    retryMs: 50,
  });
}

async function ask(subject: string, body: unknown): Promise<Ack> {
  return decodeJson<Ack>((await nc.request(subject, encodeJson(body), { timeout: 2_000 })).data);
}

test("an agent that starts before any registry is registered once one starts; start resolves only then", async (t) => {
  const a = agent("early-1");
  let started = false;
  const starting = a.start().then(() => (started = true));
  await new Promise((r) => setTimeout(r, 400));
  t.equal(started, false, "not ready while nobody acknowledged its hello");
  t.equal(await rt.agents.get("early-1"), null, "agents write no record themselves");
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  await starting;
  const record = (await rt.agents.get("early-1"))?.value;
  t.equal(record?.status, "online", "registered and connected when start resolves");
  t.equal(record?.hostname, "early-1.example");
  t.ok(record?.snapshot_collected_at, "the start-up snapshot's time, from the first heartbeat");
  t.same(record?.outbox ?? [], [], "lifecycle events were published");
  await a.stop();
  t.equal((await rt.agents.get("early-1"))?.value.status, "offline", "bye: offline at once");
});

test("an agent speaks only for itself: a message whose agent id is not its subject's is refused", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const victim = agent("victim-1", { online: false });
  await victim.start();
  const before = await rt.agents.get("victim-1");
  const forged = { agent_id: "victim-1", hostname: "evil", tags: { env: "prod" }, edr_device_id: "stolen", heartbeat_interval_ms: 1000 };
  const hello = await ask(AGENT_SUBJECTS.hello("attacker-1"), forged);
  t.same(hello.ok ? null : hello.error.code, "agent_mismatch");
  const beat = await ask(AGENT_SUBJECTS.heartbeat("attacker-1"), { agent_id: "victim-1", snapshot_collected_at: null });
  t.same(beat.ok ? null : beat.error.code, "agent_mismatch");
  const bye = await ask(AGENT_SUBJECTS.bye("attacker-1"), { agent_id: "victim-1" });
  t.same(bye.ok ? null : bye.error.code, "agent_mismatch");
  t.same(await rt.agents.get("victim-1"), before, "the victim's record is untouched");
  t.equal(await rt.agents.get("attacker-1"), null);

  const invalid = await ask(AGENT_SUBJECTS.hello("odd-1"), { agent_id: "odd-1", hostname: "" });
  t.same(invalid.ok ? null : invalid.error.code, "invalid_message");
  const notJson = decodeJson<Ack>((await nc.request(AGENT_SUBJECTS.heartbeat("odd-1"), new TextEncoder().encode("{"), { timeout: 2_000 })).data);
  t.same(notJson.ok ? null : notJson.error.code, "invalid_message");
  const unknown = await ask(AGENT_SUBJECTS.heartbeat("never-said-hello"), { agent_id: "never-said-hello", snapshot_collected_at: null });
  t.same(unknown.ok ? null : unknown.error.code, "unknown_agent", "a heartbeat creates no record");
  t.equal(await rt.agents.get("never-said-hello"), null);
});

test("an agent whose hello the registry refuses stops with an error that names it (a fleet process says which of its agents)", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const refused = new Agent({ nc, clock, log }, { agent_id: "refused-1", hostname: "refused-1.example", tags: { "bad\nname": "v" }, edr_device_id: null }, telemetry, {
    heartbeatMs: 60_000,
    snapshotIntervalMs: 0,
    online: true,
    retryMs: 50,
  });
  await t.rejects(refused.start(), /the agent registry refused hello of agent refused-1: /);
  t.equal(await rt.agents.get("refused-1"), null, "nothing registered");
});

test("a registry that lost an agent's record hears hello again on the next heartbeat", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const a = agent("lost-1", { heartbeatMs: 200 });
  await a.start();
  t.teardown(() => a.stop());
  await rt.agents.delete("lost-1");
  const back = await eventually(async () => {
    const r = (await rt.agents.get("lost-1"))?.value;
    return r?.status === "online" ? r : undefined;
  }, 5_000);
  t.equal(back.hostname, "lost-1.example");
});

test("a record that does not match the record's shape (written by something else) is skipped by every reader, and hello repairs it", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const good = agent("shape-good", { heartbeatMs: 100 });
  await good.start();
  await good.stop();
  await ask(AGENT_SUBJECTS.heartbeat("shape-good"), { agent_id: "shape-good", snapshot_collected_at: null }); // online again, then silent
  // What an ack stored over a record became once a heartbeat was applied to it (the review's proof of concept).
  const junk = { ok: true, status: "online", last_seen_at: "2020-01-01T00:00:00.000Z", outbox: [{ event_id: "evt_x", type: "agent.connected", created_at: "2020-01-01T00:00:00.000Z", data: {} }] };
  const bad = agent("shape-bad", { heartbeatMs: 100 });
  await bad.start();
  await bad.stop();
  await rt.agents.kv.put("shape-bad", encodeJson(junk));
  const raw = await rt.agents.values();

  t.same(resolveScope(raw, { type: "selector", filter: { tags: { env: "test" } } }).map((a) => a.agent_id).filter((id) => id.startsWith("shape-")), ["shape-good"], "resolveScope skips it");

  const sweeper = new LivenessMonitor({ agents: rt.agents, listAgents: () => raw, js: rt.js, clock: { now: () => Date.now() + 60_000 }, log }, 60_000);
  await sweeper.sweep();
  t.equal((await rt.agents.get("shape-good"))?.value.status, "offline", "the liveness sweep goes on past it to the others");

  const directory = new AgentDirectory(rt.agents.kv, log);
  await directory.start();
  t.teardown(() => directory.stop());
  t.notOk(directory.list().some((a) => a.agent_id === undefined), "a live copy holds no such record");
  t.equal(directory.versioned("shape-bad"), undefined);

  const beat = await ask(AGENT_SUBJECTS.heartbeat("shape-bad"), { agent_id: "shape-bad", snapshot_collected_at: null });
  t.same(beat.ok ? null : beat.error.code, "unknown_agent", "a heartbeat for it is told to say hello again, not to retry forever");
  t.same((await rt.agents.get("shape-bad"))?.value, junk, "and writes nothing over it");
  const again = await ask(AGENT_SUBJECTS.hello("shape-bad"), { agent_id: "shape-bad", hostname: "shape-bad.example", tags: { env: "test" }, edr_device_id: null, heartbeat_interval_ms: 100 });
  t.same(again, { ok: true });
  t.match((await rt.agents.get("shape-bad"))?.value, { agent_id: "shape-bad", hostname: "shape-bad.example", status: "offline", outbox: [] }, "hello replaced it with a new record");
});

test("a heartbeat's snapshot time is a date-time, never ahead of the registry's clock: text is refused, a future time is not taken", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const hello = { agent_id: "when-1", hostname: "when-1.example", tags: {}, edr_device_id: null, heartbeat_interval_ms: 60_000 };
  t.same(await ask(AGENT_SUBJECTS.hello("when-1"), hello), { ok: true });
  const beat = (at: string | null) => ask(AGENT_SUBJECTS.heartbeat("when-1"), { agent_id: "when-1", snapshot_collected_at: at });
  const text = await beat("x");
  t.same(text.ok ? null : text.error.code, "invalid_message", "not a date-time: refused");
  t.equal((await rt.agents.get("when-1"))?.value.snapshot_collected_at, null, "and not recorded");

  t.same(await beat("2026-01-01T05:00:00+05:00"), { ok: true });
  t.equal((await rt.agents.get("when-1"))?.value.snapshot_collected_at, "2026-01-01T00:00:00.000Z", "recorded as UTC with milliseconds, as the API promises");

  const future = new Date(Date.now() + 3_600_000).toISOString();
  t.same(await beat(future), { ok: true }, "a time an hour ahead: the heartbeat still counts (a host's clock may be off)");
  const record = (await rt.agents.get("when-1"))?.value;
  t.equal(record?.status, "online");
  t.equal(record?.snapshot_collected_at, "2026-01-01T00:00:00.000Z", "but the time is not taken: the agent's data never looks fresh for ever");
  const soon = new Date(Date.now() + 5_000).toISOString();
  t.same(await beat(soon), { ok: true });
  t.equal((await rt.agents.get("when-1"))?.value.snapshot_collected_at, soon, "a few seconds ahead is clock skew, taken as it is");
});

test("an EDR alert for a device two agents claim targets both: an impersonator registered first does not hide the real host", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const hello = (id: string) => ({ agent_id: id, hostname: `${id}.example`, tags: { env: "prod" }, edr_device_id: "dev-claimed", heartbeat_interval_ms: 60_000 });
  t.same(await ask(AGENT_SUBJECTS.hello("impostor-1"), hello("impostor-1")), { ok: true }, "the impersonator says hello first");
  t.same(await ask(AGENT_SUBJECTS.hello("real-1"), hello("real-1")), { ok: true });
  const directory = new AgentDirectory(rt.agents.kv, log);
  await directory.start();
  t.teardown(() => directory.stop());
  const alert: TriggerInterpretation = { kind: "trigger", query: "Encoded PowerShell", depth: "quick", scope: null, target: { kind: "edr_device", device_id: "dev-claimed" }, trigger_id: "t" };
  const target = resolveTarget(alert, directory);
  t.same(target.scope, { type: "selector", filter: { agent_ids: ["impostor-1", "real-1"] } }, "both agents are investigated");
  t.equal(target.query, "2 agents claim EDR device id dev-claimed (impostor-1, real-1), so this investigation covers all of them. Encoded PowerShell", "and the question says why");
});

test("an agent flapping bye/heartbeat makes one disconnect and one reconnect per dwell, not a pair per flap", async (t) => {
  const time = { ms: Date.now() };
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock: { now: () => time.ms }, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const events: string[] = [];
  const lastSeen: Array<string | null> = [];
  const sub = nc.subscribe("events.agent.>", {
    callback: (_e, m) => {
      const { data } = decodeJson<{ data: { agent_id: string; last_seen_at: string | null } }>(m.data);
      if (data.agent_id !== "flap-1") return;
      events.push(m.subject);
      lastSeen.push(data.last_seen_at);
    },
  });
  t.teardown(() => sub.unsubscribe());
  await nc.flush();
  t.same(await ask(AGENT_SUBJECTS.hello("flap-1"), { agent_id: "flap-1", hostname: "flap-1", tags: {}, edr_device_id: null, heartbeat_interval_ms: 100 }), { ok: true });
  const beat = () => ask(AGENT_SUBJECTS.heartbeat("flap-1"), { agent_id: "flap-1", snapshot_collected_at: null });
  const bye = () => ask(AGENT_SUBJECTS.bye("flap-1"), { agent_id: "flap-1" });
  const firstBeatAt = time.ms;
  for (let i = 0; i < 20; i++) {
    t.match(await beat(), i === 0 ? { ok: true } : { ok: false, error: { code: "unavailable" } }, i === 0 ? "online" : "within the dwell: send it again");
    if (i === 0) time.ms += 50; // the first goodbye comes 50 ms after the beat
    t.same(await bye(), { ok: true });
    time.ms += 100;
  }
  await nc.flush();
  await new Promise((r) => setTimeout(r, 200));
  t.same(events, ["events.agent.registered", "events.agent.connected", "events.agent.disconnected"], "one pair for 20 flaps within the dwell");
  t.same(lastSeen.slice(1), [new Date(firstBeatAt).toISOString(), new Date(firstBeatAt + 50).toISOString()], "connected at its beat, disconnected seen last at its goodbye");
  t.equal((await rt.agents.get("flap-1"))?.value.status, "offline", "offline: it said bye last");
  time.ms += MIN_OFFLINE_DWELL_MS;
  t.same(await beat(), { ok: true });
  t.equal((await rt.agents.get("flap-1"))?.value.status, "online", "back online once the dwell has passed");
  await eventually(async () => (events.length === 4 ? true : undefined), 2_000, 20);
  t.equal(events[3], "events.agent.connected");
});

test("an agent restarted within the dwell is ready only once the registry holds it online", async (t) => {
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  const first = agent("restart-1");
  await first.start();
  await first.stop(); // a bye: offline at once, for the dwell
  t.equal((await rt.agents.get("restart-1"))?.value.status, "offline");
  const again = agent("restart-1");
  t.teardown(() => again.stop());
  await again.start();
  t.equal((await rt.agents.get("restart-1"))?.value.status, "online", "ready means online");
});

test("an agent provisions nothing: on an empty server it creates no stream or bucket while it waits", async (t) => {
  const empty = await startNats();
  const conn = await connect({ servers: empty.url });
  t.teardown(async () => {
    await conn.close();
    await empty.stop();
  });
  const a = new Agent({ nc: conn, clock, log }, { agent_id: "lonely-1", hostname: "lonely", tags: {}, edr_device_id: null }, telemetry, {
    heartbeatMs: 60_000,
    snapshotIntervalMs: 0,
    online: true,
    retryMs: 50,
  });
  const starting = a.start().catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  const names: string[] = [];
  for await (const name of (await jetstreamManager(conn)).streams.names()) names.push(name);
  t.same(names, [], "no stream, no KV bucket");
  await conn.drain();
  await starting;
});

test("teardown", async () => {
  await nc.close();
  await nats.stop();
});
