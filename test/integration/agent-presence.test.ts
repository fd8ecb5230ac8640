// Presence (shared/agents/presence.ts) against a real nats-server: a heartbeat that only says "still here" is
// batched into INQ_PRESENCE instead of rewriting the agent's record; every change of state, a new snapshot and a
// record older than the refresh period still write the record; readers see the later of the two times; the
// liveness sweep counts presence as heard and waits until its follower has caught up.
import { DeliverPolicy } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { isOverdue, LivenessMonitor, PRESENCE_GRACE_MS } from "../../services/runner/liveness.js";
import { AgentRegistry } from "../../services/runner/registry.js";
import { PresenceFollower, PresenceWriter, RECORD_REFRESH_MS, withPresence } from "../../shared/agents/presence.js";
import { AGENT_SUBJECTS, type Ack } from "../../shared/agents/protocol.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { createLogger } from "../../shared/log.js";
import { STREAMS } from "../../shared/nats/catalog.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";

/** Waits until `condition` holds (fails the test with `what` after 5 s). */
const until = (condition: () => boolean, what: string): Promise<true> =>
  eventually(async () => (condition() ? true : undefined), 5_000, 20).catch((err: unknown) => {
    throw new Error(`${what}: ${String(err)}`);
  });

const log = createLogger("test", "silent");
const T0 = Date.parse("2026-11-26T12:00:00.000Z");
/** A clock the test moves; the registry, the writer's readers and the sweep all read it. */
const clock = { ms: T0, now(): number { return this.ms; } };

let nats: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
let registry: AgentRegistry;
let writer: PresenceWriter;
let follower: PresenceFollower;
/** What the runner's directory would hold: the record with its revision, read fresh for each heartbeat. */
const known = new Map<string, { value: AgentRecord; revision: number }>();

test("setup", async () => {
  nats = await startNats();
  // The agents here share the services' connection, as a simulated fleet does: the registry answers only in an
  // agent's own inbox or the fleet's (shared/nats/permissions.ts isAgentInbox).
  nc = await connect({ servers: nats.url, inboxPrefix: FLEET_INBOX_PREFIX });
  rt = await openRuntime(nc, { replicas: 1 });
  follower = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock: { now: () => Date.now() } });
  await follower.start();
  writer = new PresenceWriter(rt.js, { flushMs: 20, maxBeats: 1_000 });
  registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, known: (id) => known.get(id), presence: writer, clock, log });
  await registry.start();
});

async function ask(subject: string, body: unknown): Promise<Ack> {
  return decodeJson<Ack>((await nc.request(subject, encodeJson(body), { timeout: 5_000 })).data);
}

async function beat(id: string, snapshot: string | null = null): Promise<void> {
  const current = await rt.agents.get(id);
  if (current) known.set(id, current);
  const ack = await ask(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: snapshot });
  if (!ack.ok) throw new Error(`heartbeat refused: ${ack.error.code}`);
}

async function hello(id: string, intervalMs = 5_000): Promise<void> {
  const ack = await ask(AGENT_SUBJECTS.hello(id), { agent_id: id, hostname: `${id}.example`, tags: {}, edr_device_id: null, heartbeat_interval_ms: intervalMs });
  if (!ack.ok) throw new Error(`hello refused: ${ack.error.code}`);
}

async function presenceMessages(): Promise<number> {
  return (await rt.jsm.streams.info(STREAMS.presence.name)).state.messages;
}

test("a heartbeat that changes nothing but the time goes to presence; the record is written on changes and after the refresh period", async (t) => {
  clock.ms = T0;
  await hello("pr-1");
  await beat("pr-1");
  const online = await rt.agents.get("pr-1");
  t.equal(online?.value.status, "online", "the first beat brings the agent online: a record write");
  t.equal(online?.value.last_seen_at, new Date(T0).toISOString());
  const batchesBefore = await presenceMessages();

  clock.ms = T0 + 5_000;
  await beat("pr-1");
  clock.ms = T0 + 10_000;
  await beat("pr-1");
  const after = await rt.agents.get("pr-1");
  t.equal(after?.revision, online?.revision, "two more beats: the record was not written");
  t.equal(await presenceMessages(), batchesBefore + 2, "each went out in a presence batch");
  await until(() => follower.lastSeen("pr-1") === T0 + 10_000, "the follower saw the latest beat");
  t.equal(withPresence(after!.value, follower.lastSeen("pr-1")).last_seen_at, new Date(T0 + 10_000).toISOString(), "readers show the later time");
  t.equal(withPresence(after!.value, undefined), after!.value, "no presence: the record as it is");

  clock.ms = T0 + 12_000;
  await beat("pr-1", new Date(T0 + 11_000).toISOString());
  const snapshot = await rt.agents.get("pr-1");
  t.ok((snapshot?.revision ?? 0) > (after?.revision ?? 0), "a new snapshot time is a record write");
  t.equal(snapshot?.value.snapshot_collected_at, new Date(T0 + 11_000).toISOString());

  clock.ms = T0 + 12_000 + RECORD_REFRESH_MS + 1;
  await beat("pr-1");
  const refreshed = await rt.agents.get("pr-1");
  t.ok((refreshed?.revision ?? 0) > (snapshot?.revision ?? 0), "a record older than the refresh period is written again");
  t.equal(refreshed?.value.last_seen_at, new Date(clock.ms).toISOString());
});

test("many agents' beats share one batch", async (t) => {
  clock.ms = T0;
  const ids = Array.from({ length: 50 }, (_, i) => `pr-many-${i}`);
  for (const id of ids) {
    await hello(id);
    await beat(id);
  }
  for (const id of ids) {
    const current = await rt.agents.get(id);
    if (current) known.set(id, current);
  }
  const before = await presenceMessages();
  clock.ms = T0 + 5_000;
  const acks = await Promise.all(ids.map((id) => ask(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: null })));
  t.ok(acks.every((a) => a.ok), "every beat acknowledged once its batch was stored");
  const batches = (await presenceMessages()) - before;
  t.ok(batches >= 1 && batches < 10, `50 beats in ${batches} batch(es)`);
  await until(() => ids.every((id) => follower.lastSeen(id) === T0 + 5_000), "the follower saw every beat");
});

test("an agent beating every 100 ms, each beat seen 400 ms late through presence, is not overdue (the grace covers the presence lag)", async (t) => {
  const record = { status: "online", last_seen_at: null, heartbeat_interval_ms: 100 } as unknown as AgentRecord;
  t.notOk(isOverdue(record, T0 + 400, T0), "400 ms after the last beat seen");
  t.notOk(isOverdue(record, T0 + 300 + PRESENCE_GRACE_MS, T0));
  t.ok(isOverdue(record, T0 + 300 + PRESENCE_GRACE_MS + 1, T0), "three intervals and the grace: overdue");
});

test("liveness: a presence time counts as heard; the agent goes offline three intervals after the last beat of either kind", async (t) => {
  clock.ms = T0;
  await hello("pr-live", 5_000);
  await beat("pr-live");
  clock.ms = T0 + 10_000;
  await beat("pr-live");
  await until(() => follower.lastSeen("pr-live") === T0 + 10_000, "presence holds the second beat");
  const record = (await rt.agents.get("pr-live"))!.value;
  t.equal(record.last_seen_at, new Date(T0).toISOString(), "the record still holds the first beat");

  const liveness = new LivenessMonitor({ agents: rt.agents, listAgents: () => [record], presence: follower, js: rt.js, clock, log }, 60_000);
  clock.ms = T0 + 20_000; // 20 s after the record's beat, 10 s after the presence beat
  await liveness.sweep();
  t.equal((await rt.agents.get("pr-live"))?.value.status, "online", "silent 10 s by presence: still online (the record alone would say 20 s)");
  clock.ms = T0 + 10_000 + 15_001;
  await liveness.sweep();
  t.equal((await rt.agents.get("pr-live"))?.value.status, "online", "three intervals after the presence beat, within the grace: online");
  clock.ms = T0 + 10_000 + 15_000 + PRESENCE_GRACE_MS + 1;
  await liveness.sweep();
  const offline = (await rt.agents.get("pr-live"))?.value;
  t.equal(offline?.status, "offline", "three intervals and the grace after the presence beat: offline");
  t.equal(offline?.last_seen_at, new Date(T0 + 10_000).toISOString(), "the record keeps the last beat presence saw");
  const disconnected = await rt.jsm.streams.getMessage(STREAMS.events.name, { last_by_subj: "events.agent.disconnected" });
  t.match(disconnected && decodeJson<{ data: unknown }>(disconnected.data).data, { agent_id: "pr-live", status: "offline", last_seen_at: new Date(T0 + 10_000).toISOString() }, "and so does its agent.disconnected event");

  const notReady = { upToDate: async () => false, lastSeen: () => undefined };
  await hello("pr-wait", 5_000);
  clock.ms = T0;
  await beat("pr-wait");
  const waitRecord = (await rt.agents.get("pr-wait"))!.value;
  const waiting = new LivenessMonitor({ agents: rt.agents, listAgents: () => [waitRecord], presence: notReady, js: rt.js, clock, log }, 60_000);
  clock.ms = T0 + 600_000;
  await waiting.sweep();
  t.equal((await rt.agents.get("pr-wait"))?.value.status, "online", "a sweep before presence has caught up marks nobody offline");
});

test("a follower started later catches up from the stream; one on an empty stream is ready at once", async (t) => {
  await until(() => follower.lastSeen("pr-1") !== undefined, "beats are in the stream");
  const late = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock: { now: () => Date.now() } });
  await late.start();
  t.teardown(() => late.stop());
  await until(() => late.ready, "caught up");
  t.equal(late.lastSeen("pr-1"), follower.lastSeen("pr-1"), "it knows what the first follower knows");
  t.equal(late.lastSeen("pr-many-7"), T0 + 5_000);

  await rt.jsm.streams.purge(STREAMS.presence.name);
  const fresh = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock: { now: () => Date.now() } });
  await fresh.start();
  t.teardown(() => fresh.stop());
  t.equal(fresh.ready, true, "an empty stream: nothing to wait for");
  t.equal(fresh.lastSeen("pr-1"), undefined);
});

test("a batch that does not match the schema is skipped, not trusted", async (t) => {
  await rt.js.publish("presence.beats", encodeJson({ beats: { "pr-x": "soon" } }));
  await rt.js.publish("presence.beats", encodeJson({ beats: { "pr-y": T0 + 1 } }));
  await until(() => follower.lastSeen("pr-y") === T0 + 1, "the valid batch after it was read");
  t.equal(follower.lastSeen("pr-x"), undefined);
  const consumer = await rt.js.consumers.get(STREAMS.presence.name, { deliver_policy: DeliverPolicy.All });
  t.ok(await consumer.next({ expires: 1_000 }), "the stream is readable by any service");
});

test("a follower is up to date only once it has read what the stream held when last asked", async (t) => {
  const other = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock: { now: () => Date.now() } });
  await other.start();
  await until(() => other.ready, "caught up");
  t.equal(await other.upToDate(), true, "caught up, and nothing asked before");
  await rt.js.publish("presence.beats", encodeJson({ beats: { "pr-z": T0 + 3 } }));
  await until(() => other.lastSeen("pr-z") === T0 + 3, "read the new batch");
  t.equal(await other.upToDate(), true, "it read the batch the stream held when asked");
  await other.stop(); // a follower that reads nothing more, as one stuck after a broker restart would
  await rt.js.publish("presence.beats", encodeJson({ beats: { "pr-z": T0 + 4 } }));
  t.equal(await other.upToDate(), true, "the batch came after it was last asked");
  t.equal(await other.upToDate(), false, "asked again: a batch it should have read is unread");
});

test("a follower goes on reading after nats-server restarts", async (t) => {
  await nats.restart();
  // Publish until JetStream takes it again after the restart.
  await eventually(async () => (await rt.js.publish("presence.beats", encodeJson({ beats: { "pr-after": T0 + 5 } })).then(() => true)), 20_000, 200);
  await eventually(async () => (follower.lastSeen("pr-after") === T0 + 5 ? true : undefined), 60_000, 100);
  t.equal(follower.lastSeen("pr-after"), T0 + 5, "the batch published after the restart was read");
  t.equal(await follower.upToDate(), true);
});

test("teardown", async () => {
  await registry.stop();
  await writer.stop();
  await follower.stop();
  await nc.close();
  await nats.stop();
});
