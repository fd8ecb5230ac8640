// Anything an agent reports is attacker-controlled. A registered agent answers every plan with what fast-check makes
// (garbage bytes, JSON of any shape, answers shaped like a plan reply holding hostile rows: huge, deeply nested,
// numbers where text goes, control characters, another agent's id, a collected_at of any kind, nothing at all) and
// publishes snapshots of the same kinds, beside an honest agent running a cryptominer. Every investigation still
// ends, the runner stays up, the detail and the findings answer 200, and the honest host's finding is never lost.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import fc from "fast-check";
import { test } from "tap";
import { AGENT_SUBJECTS } from "../../shared/agents/protocol.js";
import { agentInboxPrefix } from "../../shared/nats/permissions.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { minerFleet } from "../helpers/fleets.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const HOSTILE = "evil-1";

const FLEET = minerFleet("honest-1", "honest-1.prod");

const TABLES = ["processes", "process_open_sockets", "listening_ports", "users", "crontab", "authorized_keys", "sudoers", "kernel_modules", "shell_history", "docker_containers"];

/**
 * A value a row may hold: anything JSON has, plus the lengths and characters that hurt. Long strings are drawn
 * rarely, so an answer mostly fits NATS's max_payload (1 MiB) and reaches the runner; one that does not is dropped
 * by the server, which is the silence case.
 */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 5_000, maxLength: 40_000 }) },
  { weight: 3, arbitrary: fc.constantFrom("\u0000", "\u202e/tmp/xmrig", "line1\nline2", "-1", "1e309", "NaN", "0x1f", "  7  ", "/tmp/" + "../".repeat(200), "stratum+tcp://" + "a".repeat(3_000)) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constant(nested(20)) },
);

function nested(depth: number): unknown {
  let v: unknown = "deep";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}

const hostileRow = fc.dictionary(fc.oneof(fc.constantFrom("pid", "name", "path", "cmdline", "uid", "parent", "port", "address", "remote_address", "remote_port", "local_port", "state", "on_disk"), fc.string({ maxLength: 20 })), hostileValue, { maxKeys: 10 });

const hostileTables = fc.dictionary(fc.oneof(fc.constantFrom(...TABLES), fc.string({ maxLength: 12 })), fc.array(hostileRow, { maxLength: 20 }), { maxKeys: 4 });

type Answer = { kind: "silence" } | { kind: "bytes"; data: Uint8Array } | { kind: "json"; value: unknown };

/** What the hostile agent answers a plan with, or publishes as its snapshot. */
const answer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Answer>({ kind: "silence" }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2_000 }).map((data): Answer => ({ kind: "bytes", data })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Answer => ({ kind: "json", value })) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        agent_id: fc.oneof({ weight: 4, arbitrary: fc.constant(HOSTILE) }, fc.constantFrom("honest-1", ""), fc.string({ maxLength: 200 })),
        hostname: fc.oneof(fc.constant("evil-1.prod"), fc.string({ maxLength: 300 })),
        collected_at: fc.oneof(fc.constant("now"), fc.constantFrom("2099-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "yesterday", ""), fc.jsonValue({ maxDepth: 1 })),
        tables: fc.oneof({ weight: 5, arbitrary: hostileTables }, fc.jsonValue({ maxDepth: 2 })),
        truncated: fc.option(fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }),
      })
      .map((r): Answer => ({ kind: "json", value: r.collected_at === "now" ? { ...r, collected_at: new Date().toISOString() } : r })),
  },
);

const encode = (a: Answer): Uint8Array | null => (a.kind === "silence" ? null : a.kind === "bytes" ? a.data : new TextEncoder().encode(JSON.stringify(a.value)));

let stack: Stack;
let nc: NatsConnection;
/** The answer the hostile agent gives its next plans. */
let next: Answer = { kind: "silence" };
let heartbeats: NodeJS.Timeout | undefined;
/** Plans the hostile agent was sent (live runs reach it: it is online). */
let plansHeard = 0;

test("setup: an honest agent with a miner, and a hostile agent registered beside it", async (t) => {
  stack = await startStack({ fleet: FLEET, env: { INQUEST_PLAN_TIMEOUT: "1s" } });
  nc = await connect({ servers: stack.nats.url, inboxPrefix: agentInboxPrefix(HOSTILE) });
  const hello = { agent_id: HOSTILE, hostname: "evil-1.prod", tags: { env: "prod" }, edr_device_id: null, heartbeat_interval_ms: 60_000 };
  const ack = JSON.parse(new TextDecoder().decode((await nc.request(AGENT_SUBJECTS.hello(HOSTILE), JSON.stringify(hello), { timeout: 5_000 })).data)) as { ok: boolean };
  t.ok(ack.ok, "the hostile agent is registered like any other");
  // Online from its first heartbeat, kept online by one every 20 s (it promised one a minute).
  const beat = () => nc.request(AGENT_SUBJECTS.heartbeat(HOSTILE), JSON.stringify({ agent_id: HOSTILE, snapshot_collected_at: null }), { timeout: 5_000 });
  await beat();
  heartbeats = setInterval(() => void beat().catch(() => undefined), 20_000);
  const plans = nc.subscribe(AGENT_SUBJECTS.plan(HOSTILE));
  void (async () => {
    for await (const msg of plans) {
      plansHeard++;
      const data = encode(next);
      if (data !== null) msg.respond(data);
    }
  })();
  let seen = "";
  await eventually(async () => {
    const r = await api(stack.baseUrl, "GET", "/v1/agents", { key: stack.key });
    seen = r.text;
    const online = (r.json.agents as Array<{ agent_id: string; status: string }>).filter((a) => a.status === "online").map((a) => a.agent_id);
    return online.includes("honest-1") && online.includes(HOSTILE) ? true : undefined;
  }).catch((err: unknown) => {
    throw new Error(`${String(err)}; the agents: ${seen.slice(0, 1_000)}`);
  });
});

test("whatever the hostile agent answers, every investigation ends, the runner stays up, and the miner is found", async (t) => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(answer, answer, fc.constantFrom("live", "cached"), async (plan, snapshot, mode) => {
      next = plan;
      const snap = encode(snapshot);
      // Published as an agent does (the stream sends agents no acks); over max_payload it is refused here, and any
      // other may be refused by the runner's reader: the run must not care.
      if (snap !== null) {
        try {
          nc.publish(AGENT_SUBJECTS.snapshot(HOSTILE), snap);
        } catch {
          // too large for the server: the silence case
        }
        await nc.flush();
      }
      const created = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "any cryptominers?", mode, scope: { type: "selector", filter: { tags: { env: "prod" } } } } });
      if (created.status !== 202) throw new Error(`POST ${created.status}: ${created.text.slice(0, 300)}`);
      const id = (created.json as { investigation_id: string }).investigation_id;
      const detail = await eventually(async () => {
        const r = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
        if (r.status !== 200) throw new Error(`GET ${r.status}: ${r.text.slice(0, 300)}`);
        return ["completed", "failed", "cancelled"].includes(r.json.status as string) ? (r.json as Record<string, unknown>) : undefined;
      }, 30_000);
      if (detail.status !== "completed") throw new Error(`the run ${detail.status}: ${JSON.stringify(detail).slice(0, 500)}`);
      const findings = await api(stack.baseUrl, "GET", `/v1/investigations/${id}/findings?limit=200`, { key: stack.key });
      if (findings.status !== 200) throw new Error(`findings ${findings.status}: ${findings.text.slice(0, 300)}`);
      const all = findings.json.findings as Array<{ agent_id: string; severity: string }>;
      if (!all.some((f) => f.agent_id === "honest-1" && ["high", "critical"].includes(f.severity))) throw new Error(`the miner on honest-1 was not found: ${JSON.stringify(all).slice(0, 500)}`);
      const summary = detail.summary as { narrative?: unknown } | null;
      if (typeof summary?.narrative !== "string") throw new Error(`no narrative: ${JSON.stringify(summary)}`);
      if (stack.services.get("runner")?.proc.exitCode !== null) throw new Error("the runner exited");
      runs++;
    }),
    { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261129), endOnFailure: true },
  );
  t.equal(runs, RUNS, `${RUNS} investigations, each ended with the miner found`);
  t.ok(plansHeard > 0, `the hostile agent was sent plans (${plansHeard}) and answered them as drawn`);
});

test("teardown", async () => {
  clearInterval(heartbeats);
  await nc?.close();
  await stack?.stop();
});
