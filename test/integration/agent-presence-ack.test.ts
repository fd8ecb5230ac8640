// A heartbeat on presence's fast path (shared/agents/presence.ts) against a real nats-server: the registry answers it
// only once the batch holding it is stored (a failed publish answers `unavailable`), and meanwhile holds only what it
// needs to answer. At 10,000 agents beating every 5 s a few thousand beats wait for their batch at once; each one
// holding its whole message and an async frame showed as ~4,000 Msg objects in a heap snapshot of a busy runner.
import type { JetStreamClient } from "@nats-io/jetstream";
import { connect, TimeoutError, type Msg, type NatsConnection, type SubscriptionOptions } from "@nats-io/transport-node";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { pino } from "pino";
import { test } from "tap";
import { AgentRegistry } from "../../services/runner/registry.js";
import { PresenceWriter } from "../../shared/agents/presence.js";
import { AGENT_SUBJECTS, type Ack } from "../../shared/agents/protocol.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { STREAMS } from "../../shared/nats/catalog.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

/** What the registry and the writer log (warnings and worse), parsed. */
const logged: Array<{ level: number; msg: string; beats?: number }> = [];
const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
const clock = { now: () => Date.now() };
const AGENTS = 100;

let nats: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
let registry: AgentRegistry;
let writer: PresenceWriter;
const known = new Map<string, { value: AgentRecord; revision: number }>();

/** The presence writer's publishes wait for `open` (or fail with `fail`); `stored` counts those the stream took. */
const gate = {
  waiting: [] as Array<{ resolve(): void; reject(err: Error): void }>,
  held: true,
  stored: 0,
  open(): void {
    this.held = false;
    for (const w of this.waiting.splice(0)) w.resolve();
  },
  failed: 0,
  fail(err: Error = new Error("JetStream did not take the batch")): void {
    for (const w of this.waiting.splice(0)) {
      this.failed++;
      w.reject(err);
    }
  },
};
const gatedJs = {
  publish: async (subject: string, data: Uint8Array) => {
    if (gate.held) await new Promise<void>((resolve, reject) => gate.waiting.push({ resolve, reject }));
    const ack = await rt.js.publish(subject, data);
    gate.stored++;
    return ack;
  },
} as unknown as JetStreamClient;

/** Every heartbeat message the registry was handed, weakly: which of them something still holds. */
const beatsHanded: Array<WeakRef<Msg>> = [];
function watchedConnection(real: NatsConnection): NatsConnection {
  return {
    subscribe: (subject: string, opts: SubscriptionOptions) =>
      real.subscribe(subject, {
        ...opts,
        callback: (err, msg) => {
          if (msg?.subject.endsWith(".heartbeat")) beatsHanded.push(new WeakRef(msg));
          opts.callback?.(err, msg);
        },
      }),
    flush: () => real.flush(),
    publish: (...args: Parameters<NatsConnection["publish"]>) => real.publish(...args),
  } as unknown as NatsConnection;
}

test("setup", async () => {
  nats = await startNats();
  nc = await connect({ servers: nats.url, inboxPrefix: FLEET_INBOX_PREFIX });
  rt = await openRuntime(nc, { replicas: 1 });
  writer = new PresenceWriter(gatedJs, { flushMs: 20, maxBeats: 1_000 }, log);
  registry = new AgentRegistry({ nc: watchedConnection(nc), js: rt.js, agents: rt.agents, known: (id) => known.get(id), presence: writer, clock, log });
  await registry.start();
  // Online agents whose next beats only say "still here": each goes to presence.
  for (let i = 0; i < AGENTS; i++) {
    const id = `ack-${i}`;
    await ask(AGENT_SUBJECTS.hello(id), { agent_id: id, hostname: `${id}.example`, tags: {}, edr_device_id: null, heartbeat_interval_ms: 5_000 });
    await ask(AGENT_SUBJECTS.heartbeat(id), { agent_id: id, snapshot_collected_at: null });
    known.set(id, (await rt.agents.get(id))!);
  }
});

async function ask(subject: string, body: unknown): Promise<Ack> {
  return decodeJson<Ack>((await nc.request(subject, encodeJson(body), { timeout: 10_000 })).data);
}

async function presenceMessages(): Promise<number> {
  return (await rt.jsm.streams.info(STREAMS.presence.name)).state.messages;
}

function beatAll(): Array<Promise<{ ack: Ack; storedBefore: number }>> {
  return Array.from({ length: AGENTS }, (_, i) =>
    ask(AGENT_SUBJECTS.heartbeat(`ack-${i}`), { agent_id: `ack-${i}`, snapshot_collected_at: null }).then((ack) => ({ ack, storedBefore: gate.stored })),
  );
}

test("a beat waiting for its presence batch holds only its reply subject, not its message; its ack comes once the batch is stored", async (t) => {
  const before = await presenceMessages();
  beatsHanded.length = 0;
  gate.held = true;
  const acks = beatAll();
  let answered = 0;
  for (const a of acks) void a.then(() => answered++);
  await eventually(async () => (beatsHanded.length === AGENTS && gate.waiting.length > 0 ? true : undefined), 5_000, 10);
  await new Promise((r) => setTimeout(r, 100)); // past the writer's 20 ms: every beat is in a batch waiting to be stored

  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const held = beatsHanded.filter((r) => r.deref() !== undefined).length;
  t.equal(held, 0, `${held} of ${AGENTS} heartbeat messages still held while their batch is being stored`);
  t.equal(answered, 0, "no beat answered before its batch is stored");
  t.equal(await presenceMessages(), before, "nothing stored yet");

  gate.open();
  const results = await Promise.all(acks);
  t.ok(results.every((r) => r.ack.ok), "every beat acknowledged");
  t.ok(results.every((r) => r.storedBefore > 0), "each ack came after the batch holding it was stored");
  t.ok((await presenceMessages()) > before, "the batches are in the stream");
});

test("a batch the stream did not take answers each of its beats `unavailable`", async (t) => {
  gate.held = true;
  const acks = beatAll();
  const failing = setInterval(() => gate.fail(), 10); // every batch the writer makes meanwhile
  const results = await Promise.all(acks);
  clearInterval(failing);
  t.same(new Set(results.map((r) => (r.ack.ok ? "ok" : r.ack.error.code))), new Set(["unavailable"]), "every beat told to send it again");
  gate.open();
});

test("a batch that failed because NATS is unavailable is logged once, with its count, not once per beat", async (t) => {
  gate.held = true;
  gate.failed = 0;
  logged.length = 0;
  const acks = beatAll();
  const failing = setInterval(() => gate.fail(new TimeoutError()), 10);
  const results = await Promise.all(acks);
  clearInterval(failing);
  gate.open();
  t.ok(results.every((r) => !r.ack.ok && r.ack.error.code === "unavailable"), "every beat still answered unavailable");
  t.ok(gate.failed > 0 && gate.failed < AGENTS, `${gate.failed} batches failed`);
  const warnings = logged.filter((l) => /unavailable/i.test(l.msg));
  t.equal(warnings.length, gate.failed, `one line per failed batch: ${warnings.length} lines for ${gate.failed} batches`);
  t.equal(
    warnings.reduce((sum, l) => sum + (l.beats ?? 0), 0),
    AGENTS,
    "the lines count every beat",
  );
});

test("teardown", async () => {
  await registry.stop();
  await writer.stop();
  await nc.close();
  await nats.stop();
});
