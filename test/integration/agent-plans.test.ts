// An agent's plan answers and scans against a real nats-server: an invalid plan is answered at once with an
// error (the runner does not wait out its deadline), and scans never overlap.
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { Agent, type Tables, type TelemetrySource } from "../../services/agent/agent.js";
import { AgentRegistry } from "../../services/runner/registry.js";
import { createLogger } from "../../shared/log.js";
import { SUBJECTS } from "../../shared/nats/catalog.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { openRuntime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";

let nats: NatsServer;
let nc: NatsConnection;

let registry: AgentRegistry;

test("setup", async () => {
  nats = await startNats();
  nc = await connect({ servers: nats.url });
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

async function agent(id: string, telemetry: TelemetrySource): Promise<Agent> {
  const a = new Agent(
    { nc, js: jetstream(nc), clock: { now: () => Date.now() }, log: createLogger("test", "silent") },
    { agent_id: id, hostname: id, tags: {}, edr_device_id: null },
    telemetry,
    { heartbeatMs: 60_000, snapshotIntervalMs: 0, online: true },
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
  await new Promise((r) => setTimeout(r, 50));
  telemetry.release();
  const reply = decodeJson<{ tables: Tables }>((await plan).data);
  t.same(reply.tables, { processes: [{ pid: 1 }] });
  t.equal(telemetry.most, 1, "never two scans at once");
  t.equal(telemetry.calls, 2, "the overlapping snapshot was skipped; the plan ran after the scan");
});

test("teardown", async () => {
  await registry.stop();
  await nc.close();
  await nats.stop();
});
