// The agent registry (services/runner/registry.ts) against one agent flooding its own subjects, on a real
// nats-server: everything an agent sends is attacker-controlled, and its credential lets it publish its own hello,
// heartbeat and bye as fast as it likes. The registry must keep the work it takes on bounded (a few messages of one
// agent in hand at once, a bounded number in all), keep the writes of the agent's record to a trickle, and go on
// answering the other agents' heartbeats in time meanwhile.
import { KvWatchInclude } from "@nats-io/kv";
import { connect, type Msg, type NatsConnection } from "@nats-io/transport-node";
import { test, type Test } from "tap";
import { Agent } from "../../services/agent/agent.js";
import { refusedMessageMetric } from "../../services/runner/metrics.js";
import { AgentRegistry } from "../../services/runner/registry.js";
import { DEFAULT_REGISTRY_LIMITS, type RegistryLimitOptions } from "../../services/runner/registry-limits.js";
import { AgentDirectory } from "../../shared/agents/directory.js";
import { DEFAULT_PRESENCE_WRITER, onlyPresence, PresenceWriter } from "../../shared/agents/presence.js";
import { AGENT_SUBJECTS, type Ack } from "../../shared/agents/protocol.js";
import { createLogger } from "../../shared/log.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { agentInboxPrefix, FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";
import { Registry, type Counter } from "../../shared/ops/metrics.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

const log = createLogger("test", "silent");
const clock = { now: () => Date.now() };
/** How long an agent waits for the registry's answer (services/agent/agent.ts REGISTRY_TIMEOUT_MS). */
const AGENT_TIMEOUT_MS = 2_000;
const HONEST_INTERVAL_MS = 200;

let nats: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
let directory: AgentDirectory;
let writer: PresenceWriter;

test("setup", async () => {
  nats = await startNats();
  nc = await connect({ servers: nats.url, inboxPrefix: FLEET_INBOX_PREFIX });
  rt = await openRuntime(nc, { replicas: 1 });
  // Wired as the runner wires it (services/runner/main.ts): a live copy of the bucket and presence batches.
  directory = new AgentDirectory(rt.agents.kv, log);
  await directory.start();
  writer = new PresenceWriter(rt.js, { ...DEFAULT_PRESENCE_WRITER, flushMs: 20 }); // a beat answered sooner: shorter tests
});

/** A registry wired as the runner wires it, for this test alone; its refusals counted in the returned counter. */
async function startRegistry(t: Test, limits: RegistryLimitOptions = DEFAULT_REGISTRY_LIMITS, presence = writer): Promise<Counter> {
  const refused = refusedMessageMetric(new Registry());
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, known: (id) => directory.versioned(id), presence, refused, limits, clock, log });
  await registry.start();
  t.teardown(() => registry.stop());
  return refused;
}

const refusals = (c: Counter) => ({ busy: c.get({ reason: "busy" }), agent_busy: c.get({ reason: "agent_busy" }), writes: c.get({ reason: "writes" }) });

function helloOf(id: string, tags: Record<string, string> = { env: "test" }, intervalMs = HONEST_INTERVAL_MS) {
  return { agent_id: id, hostname: `${id}.example`, tags, edr_device_id: null, heartbeat_interval_ms: intervalMs };
}

async function ask(subject: string, body: unknown): Promise<Ack> {
  return decodeJson<Ack>((await nc.request(subject, encodeJson(body), { timeout: AGENT_TIMEOUT_MS })).data);
}

/** The code of a refused answer, "ok", or "timeout" when none came in the agent's time. */
async function outcome(subject: string, body: unknown): Promise<string> {
  try {
    const ack = await ask(subject, body);
    return ack.ok ? "ok" : ack.error.code;
  } catch {
    return "timeout";
  }
}

/** Honest agents beating at their interval, one beat in flight each, until `until` resolves. */
async function beatWhile(ids: string[], until: Promise<unknown>): Promise<{ outcomes: Map<string, number>; slowestMs: number }> {
  const outcomes = new Map<string, number>();
  let slowestMs = 0;
  let done = false;
  void until.finally(() => (done = true));
  await Promise.all(
    ids.map(async (id) => {
      while (!done) {
        const started = Date.now();
        const result = await outcome(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: null });
        slowestMs = Math.max(slowestMs, Date.now() - started);
        outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, HONEST_INTERVAL_MS));
      }
    }),
  );
  return { outcomes, slowestMs };
}

function honestAgent(id: string, tags: Record<string, string>, heartbeatMs = 100): Agent {
  const telemetry = { snapshotTables: ["users"], collect: async () => ({ collected_at: new Date().toISOString(), tables: { users: [] } }) };
  return new Agent({ nc, clock, log }, { agent_id: id, hostname: `${id}.example`, tags, edr_device_id: null }, telemetry, { heartbeatMs, snapshotIntervalMs: 0, online: true, retryMs: 50 });
}

/** Counts the writes of `key`'s record from now until `stop` is called (its outbox flushed after a change counts too). */
async function countWrites(key: string): Promise<{ stop(): Promise<number> }> {
  let writes = 0;
  // The record's revision when counting starts: with no write since, there is nothing to wait for.
  let seen = (await rt.agents.kv.get(key))?.revision ?? 0;
  const watch = await rt.agents.kv.watch({ key, include: KvWatchInclude.UpdatesOnly });
  const counting = (async () => {
    for await (const e of watch) {
      if (e.operation === "PUT") writes++;
      seen = Math.max(seen, e.revision);
    }
  })();
  return {
    async stop() {
      // Every write up to the record's latest revision has been seen (on a loaded machine a notice can take longer
      // than any fixed wait), then stop: a count that cannot come up short.
      const latest = (await rt.agents.kv.get(key))?.revision ?? 0;
      const deadline = Date.now() + 15_000;
      while (seen < latest && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      watch.stop();
      await counting;
      return writes;
    },
  };
}

async function registerHonest(ids: string[]): Promise<void> {
  for (const id of ids) {
    if ((await outcome(AGENT_SUBJECTS.hello(id), helloOf(id))) !== "ok") throw new Error(`hello of ${id} refused`);
    if ((await outcome(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: null })) !== "ok") throw new Error(`first beat of ${id} refused`);
  }
  // Online with its outbox flushed, as the directory has it: only then does a beat go to presence. Its first beat is
  // answered once the record is written twice (online with agent.connected queued, then the outbox emptied), but the
  // directory may have seen only the first write: a beat then needs a handler (a CI run counted one "busy").
  await eventually(async () => (ids.every((id) => isOnlyPresence(id)) ? true : undefined), 5_000, 20);
}

function isOnlyPresence(id: string): boolean {
  const known = directory.versioned(id)?.value;
  return known !== undefined && onlyPresence(known, null, Date.now());
}

test("one agent sending 5,000 hellos with changing tags as fast as it can: a few writes of its record, and the others' heartbeats still answered in time", async (t) => {
  const runnerWriter = new PresenceWriter(rt.js); // the runner's: a beat waits up to 200 ms for its batch
  t.teardown(() => runnerWriter.stop());
  const refused = await startRegistry(t, DEFAULT_REGISTRY_LIMITS, runnerWriter);
  const honest = Array.from({ length: 10 }, (_, i) => `honest-${i}`);
  await registerHonest(honest);
  const flooder = "flood-1";
  t.equal(await outcome(AGENT_SUBJECTS.hello(flooder), helloOf(flooder)), "ok");
  const writes = await countWrites(flooder);

  // The flooding agent on its own connection, with its own inbox, as its credential allows.
  const attacker = await connect({ servers: nats.url, inboxPrefix: agentInboxPrefix(flooder) });
  t.teardown(() => attacker.close());
  const inbox = `${agentInboxPrefix(flooder)}.flood`;
  const answers = new Map<string, number>();
  let answered = 0;
  let allAnswered!: () => void;
  const flooded = new Promise<void>((resolve) => (allAnswered = resolve));
  const FLOOD = 5_000;
  attacker.subscribe(inbox, {
    callback: (_err, msg: Msg) => {
      const ack = decodeJson<Ack>(msg.data);
      const code = ack.ok ? "ok" : ack.error.code;
      answers.set(code, (answers.get(code) ?? 0) + 1);
      if (++answered === FLOOD) allAnswered();
    },
  });
  await attacker.flush();

  const flood = (async () => {
    for (let i = 0; i < FLOOD; i++) {
      attacker.publish(AGENT_SUBJECTS.hello(flooder), encodeJson(helloOf(flooder, { n: String(i) })), { reply: inbox });
      if (i % 500 === 499) await attacker.flush(); // as fast as the connection takes them
    }
    await attacker.flush();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([flooded, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
    clearTimeout(timer);
  })();
  const beats = await beatWhile(honest, flood);
  await flood;
  const written = await writes.stop();

  t.comment(`flooder: ${answered} answers ${JSON.stringify([...answers])}, ${written} writes of its record; honest beats ${JSON.stringify([...beats.outcomes])}, slowest ${beats.slowestMs} ms`);
  t.equal(answered, FLOOD, "every one of the flood's messages was answered");
  t.ok(written <= 12, `the flooder's record was written ${written} times for ${FLOOD} changing hellos (its burst, not one per message)`);
  t.same([...beats.outcomes.keys()], ["ok"], "every honest heartbeat meanwhile was acknowledged");
  t.ok(beats.slowestMs < AGENT_TIMEOUT_MS / 2, `the slowest honest heartbeat took ${beats.slowestMs} ms (an agent waits ${AGENT_TIMEOUT_MS} ms)`);
  t.same(new Set(answers.keys()), new Set(["ok", "unavailable"]), "the flood heard ok for its first few, then unavailable: send it again later");
  const counted = refusals(refused);
  t.ok(counted.agent_busy > 0, `its refusals are counted by reason: ${JSON.stringify(counted)}`);
  t.equal(counted.agent_busy + counted.writes + counted.busy, answers.get("unavailable"), "each one");
});

/** Sends `count` messages four at a time, each once the one before it is answered: as many as an agent may have in hand. */
async function fourAtATime(count: number, send: (i: number) => Promise<string>): Promise<Map<string, number>> {
  const results = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const result = await send(next++);
        results.set(result, (results.get(result) ?? 0) + 1);
      }
    }),
  );
  return results;
}

test("one agent changing its tags, or its snapshot time, with every message, as fast as it is answered: a few writes of its record", async (t) => {
  const refused = await startRegistry(t);
  const [tagger, snapper] = ["tagflood-1", "snapflood-1"];
  await registerHonest([tagger, snapper]);

  const tagWrites = await countWrites(tagger);
  const hellos = await fourAtATime(400, (i) => outcome(AGENT_SUBJECTS.hello(tagger), helloOf(tagger, { n: String(i) })));
  const tagsWritten = await tagWrites.stop();
  t.comment(`hellos: ${JSON.stringify([...hellos])}, ${tagsWritten} writes`);
  t.ok(tagsWritten <= 12, `${tagsWritten} writes of its record for 400 hellos with new tags`);
  t.equal(hellos.get("unavailable"), 400 - tagsWritten, "each hello past them told to send it again later");

  const snapWrites = await countWrites(snapper);
  const base = Date.now() - 3_600_000;
  const beats = await fourAtATime(400, (i) => outcome(AGENT_SUBJECTS.heartbeat(snapper), { agent_id: snapper, snapshot_collected_at: new Date(base + i * 1000).toISOString() }));
  const snapsWritten = await snapWrites.stop();
  t.same([...beats], [["ok", 400]], "every beat acknowledged: the agent is online, which is all a beat must tell");
  t.ok(snapsWritten <= 12, `${snapsWritten} writes of its record for 400 new snapshot times`);
  t.equal((await rt.agents.get(snapper))?.value.status, "online");
  t.equal(refusals(refused).writes, 800 - tagsWritten - snapsWritten, "every write not made is counted");
});

test("past its handlers in flight a registry answers unavailable at once; a beat waiting for its presence batch is none", async (t) => {
  const refused = await startRegistry(t, { ...DEFAULT_REGISTRY_LIMITS, handlers: 2 });
  const honest = Array.from({ length: 20 }, (_, i) => `fast-${i}`);
  await registerHonest(honest); // one message at a time: within the bound
  const [hellos, beats] = await Promise.all([
    Promise.all(Array.from({ length: 20 }, (_, i) => outcome(AGENT_SUBJECTS.hello(`new-${i}`), helloOf(`new-${i}`)))),
    Promise.all(honest.map((id) => outcome(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: null }))),
  ]);
  t.ok(hellos.includes("ok") && hellos.includes("unavailable"), `20 new agents' hellos at once: ${hellos.filter((h) => h === "ok").length} taken, the rest told to send them again`);
  t.equal(refusals(refused).busy, hellos.filter((h) => h === "unavailable").length, "each refusal counted as busy");
  t.same(new Set(beats), new Set(["ok"]), "the beats meanwhile all acknowledged: they need no handler");
});

test("honest agents at their heartbeat interval, restarting and changing tags now and then, are never refused", async (t) => {
  const refused = await startRegistry(t);
  const agents = Array.from({ length: 20 }, (_, i) => honestAgent(`steady-${i}`, { env: "test" }));
  await Promise.all(agents.map((a) => a.start()));
  for (let round = 0; round < 3; round++) {
    await new Promise((r) => setTimeout(r, 1_000)); // ten beats each
    await Promise.all(agents.map((a) => a.stop()));
    // Restarted, a third of them with new tags: a bye and a changed hello each time.
    agents.forEach((a, i) => (agents[i] = honestAgent(a.identity.agent_id, { env: i % 3 === 0 ? `round-${round}` : "test" })));
    await Promise.all(agents.map((a) => a.start()));
  }
  t.teardown(() => Promise.all(agents.map((a) => a.stop())));
  // Back online once the dwell after their last bye is over (registry.ts MIN_OFFLINE_DWELL_MS), by a heartbeat.
  const ids = agents.map((a) => a.identity.agent_id);
  await eventually(async () => (ids.every((id) => directory.versioned(id)?.value.status === "online") ? true : undefined), 10_000, 100);
  t.same(refusals(refused), { busy: 0, agent_busy: 0, writes: 0 }, "nothing refused");
  t.equal(directory.versioned("steady-0")?.value.tags.env, "round-2", "the last tags taken");
});

test("an agent whose hello is refused for its writes sends it again, waiting longer each time, and is registered once it has one again", async (t) => {
  const refused = await startRegistry(t, { ...DEFAULT_REGISTRY_LIMITS, writeBurst: 1, writeEveryMs: 1_000 });
  const id = "retry-1";
  t.equal(await outcome(AGENT_SUBJECTS.hello(id), helloOf(id, { env: "a" }, 100)), "ok", "created: no write of its budget");
  t.equal(await outcome(AGENT_SUBJECTS.hello(id), helloOf(id, { env: "b" }, 100)), "ok", "changed: its one write");
  t.equal(await outcome(AGENT_SUBJECTS.hello(id), helloOf(id, { env: "c" }, 100)), "unavailable", "changed again at once: refused");
  const started = Date.now();
  const a = honestAgent(id, { env: "d" }, 100);
  await a.start();
  t.teardown(() => a.stop());
  t.ok(Date.now() - started >= 500, `registered after ${Date.now() - started} ms, once a write came back`);
  t.equal((await rt.agents.get(id))?.value.tags.env, "d");
  t.ok(refusals(refused).writes >= 2, "the refused hellos are counted");
});

test("teardown", async () => {
  await writer.stop();
  await directory.stop();
  await nc.close();
  await nats.stop();
});
