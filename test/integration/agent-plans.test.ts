// An agent's plan answers and scans against a real nats-server: an invalid plan is answered at once with an
// error (the runner does not wait out its deadline), and scans never overlap.
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type Test } from "tap";
import { Agent, type AgentOptions, type Collected, type Tables, type TelemetrySource } from "../../services/agent/agent.js";
import { DOCKER_SOCKET } from "../../services/agent/telemetry/containers.js";
import { collectLinux } from "../../services/agent/telemetry/linux.js";
import { AgentRegistry } from "../../services/runner/registry.js";
import { createLogger } from "../../shared/log.js";
import { STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { openRuntime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { hangingDocker } from "../helpers/hanging-docker.js";
import { FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";

let nats: NatsServer;
let nc: NatsConnection;

let registry: AgentRegistry;

test("setup", async () => {
  nats = await startNats();
  // The agents here share the services' connection, as a simulated fleet does: the registry answers only in an
  // agent's own inbox or the fleet's (shared/nats/permissions.ts isAgentInbox).
  nc = await connect({ servers: nats.url, inboxPrefix: FLEET_INBOX_PREFIX });
  const rt = await openRuntime(nc, { replicas: 1 });
  registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, clock: { now: () => Date.now() }, log: createLogger("test", "silent") });
  await registry.start();
});

/** Telemetry whose collections wait until released, counting how many run at once. */
class GatedTelemetry implements TelemetrySource {
  readonly snapshotTables = ["processes"];
  running = 0;
  most = 0;
  calls = 0;
  private waiting: Array<() => void> = [];
  gated = false;

  async collect(tables: readonly string[]): Promise<{ collected_at: string; tables: Tables }> {
    this.calls++;
    this.running++;
    this.most = Math.max(this.most, this.running);
    if (this.gated) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running--;
    const out: Tables = {};
    for (const t of tables) out[t] = [{ pid: 1 }];
    return { collected_at: new Date().toISOString(), tables: out };
  }

  release(): void {
    for (const w of this.waiting.splice(0)) w();
  }
}

async function agent(id: string, telemetry: TelemetrySource, opts: Partial<AgentOptions> = {}): Promise<Agent> {
  const a = new Agent(
    { nc, clock: { now: () => Date.now() }, log: createLogger("test", "silent") },
    { agent_id: id, hostname: id, tags: {}, edr_device_id: null },
    telemetry,
    { heartbeatMs: 60_000, snapshotIntervalMs: 0, online: true, ...opts },
  );
  await a.start();
  return a;
}

test("an invalid plan request is answered at once with an error, not left to time out", async (t) => {
  const a = await agent("plans-1", new GatedTelemetry());
  t.teardown(() => a.stop());
  for (const bad of [encodeJson({ tables: "processes" }), new TextEncoder().encode("not json")]) {
    const reply = await nc.request(SUBJECTS.plan("plans-1"), bad, { timeout: 2_000 });
    const body = decodeJson<{ agent_id?: string; error?: { code: string; message: string } }>(reply.data);
    t.equal(body.agent_id, "plans-1");
    t.equal(body.error?.code, "invalid_plan", JSON.stringify(body));
  }
});

test("scans do not overlap: a snapshot tick while a scan runs is skipped, and a plan waits for the scan", async (t) => {
  const telemetry = new GatedTelemetry();
  const a = await agent("plans-2", telemetry);
  t.teardown(() => a.stop());
  telemetry.gated = true;
  telemetry.calls = 0;
  const first = a.snapshot();
  const second = a.snapshot();
  const plan = nc.request(SUBJECTS.plan("plans-2"), encodeJson({ investigation_id: "inv_1", tables: ["processes"], deadline_ms: 5_000 }), { timeout: 5_000 });
  await new Promise((r) => setTimeout(r, 200));
  t.equal(telemetry.running, 1, "one scan at a time");
  telemetry.release();
  await Promise.all([first, second]);
  // The plan's scan begins once the snapshot's ends: released when it has begun, not after a guessed pause.
  for (const until = Date.now() + 5_000; telemetry.calls < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
  telemetry.release();
  const reply = decodeJson<{ tables: Tables }>((await plan).data);
  t.same(reply.tables, { processes: [{ pid: 1 }] });
  t.equal(telemetry.most, 1, "never two scans at once");
  t.equal(telemetry.calls, 2, "the overlapping snapshot was skipped; the plan ran after the scan");
});

/** The host agent's telemetry (as LinuxTelemetry reads it) on a fake root whose Docker socket never finishes an answer. */
class HangingHostTelemetry implements TelemetrySource {
  constructor(
    private readonly root: string,
    readonly snapshotTables: readonly string[],
  ) {}

  async collect(tables: readonly string[], budgetMs?: number): Promise<Collected> {
    const cut: string[] = [];
    const opts = { root: this.root, budgetMs, onCapped: (table: string) => cut.push(table) };
    const rows = (await collectLinux(tables, opts)) as Tables;
    return { collected_at: new Date().toISOString(), tables: rows, ...(cut.length > 0 ? { truncated: cut.sort() } : {}) };
  }
}

async function hangingRoot(t: Test): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inq-plans-"));
  fs.mkdirSync(path.join(root, "etc"));
  fs.writeFileSync(path.join(root, "etc/passwd"), "m:x:1000:1000::/home/m:/bin/bash\n");
  const docker = await hangingDocker(path.join(root, DOCKER_SOCKET));
  t.teardown(async () => {
    await docker.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return root;
}

const within = <T>(ms: number, work: Promise<T>): Promise<T | "still running"> =>
  Promise.race([work, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref())]);

test("a snapshot's scan stops at the agent's scan budget: what was read is published, the rest named in truncated", async (t) => {
  const root = await hangingRoot(t);
  const telemetry = new HangingHostTelemetry(root, ["docker_containers", "users"]);
  const started = await within(10_000, agent("plans-3", telemetry, { scanBudgetMs: 500 }));
  if (started === "still running") return t.fail("the agent's first snapshot was still being taken after 10 s");
  t.teardown(() => started.stop());
  const jsm = await jetstream(nc).jetstreamManager();
  const stored = await jsm.streams.getMessage(STREAMS.snapshots.name, { last_by_subj: SUBJECTS.snapshot("plans-3") });
  const snap = decodeJson<{ tables: Tables; truncated?: string[] }>(stored!.data);
  t.equal(snap.tables.users?.length, 1);
  t.same(snap.tables.docker_containers, []);
  t.same(snap.truncated, ["docker_containers"]);
});

test("a plan's scan stops in time to answer before the plan's deadline, whatever the scan budget", async (t) => {
  const root = await hangingRoot(t);
  const a = await agent("plans-4", new HangingHostTelemetry(root, ["users"]), { scanBudgetMs: 3_600_000 });
  t.teardown(() => a.stop());
  const plan = { investigation_id: "inv_2", tables: ["docker_containers", "users"], deadline_ms: 3_000 };
  const reply = await nc.request(SUBJECTS.plan("plans-4"), encodeJson(plan), { timeout: 3_000 }).catch((err: Error) => err);
  if (reply instanceof Error) return t.fail(`no answer within the plan's deadline: ${reply.message}`);
  const body = decodeJson<{ tables: Tables; truncated?: string[] }>(reply.data);
  t.equal(body.tables.users?.length, 1, "what was read is sent");
  t.same(body.tables.docker_containers, []);
  t.same(body.truncated, ["docker_containers"], "the table the deadline cut is named");
});

test("teardown", async () => {
  await registry.stop();
  await nc.close();
  await nats.stop();
});
