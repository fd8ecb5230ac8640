// Telemetry is cut to fit one NATS message instead of crashing the agent.
import { test } from "tap";
import { fitTables } from "../../services/agent/fit.js";
import { assertAgentId } from "../../shared/agents/record.js";

test("a message under the limit is sent as it is", async (t) => {
  const msg = { agent_id: "a", collected_at: "x", tables: { users: [{ uid: 0 }] } };
  t.same(JSON.parse(Buffer.from(fitTables(msg, 1024 * 1024)).toString()), msg);
});

test("an oversized message fits by halving the largest tables, and says which", async (t) => {
  const big = Array.from({ length: 20_000 }, (_, i) => ({ pid: i, cmdline: "x".repeat(100) }));
  const msg = { agent_id: "a", collected_at: "x", tables: { processes: big, users: [{ uid: 0 }] } };
  const bytes = fitTables(msg, 1024 * 1024);
  t.ok(bytes.length <= 1024 * 1024, `${bytes.length} bytes`);
  const out = JSON.parse(Buffer.from(bytes).toString()) as { tables: Record<string, unknown[]>; truncated: string[] };
  t.same(out.truncated, ["processes"]);
  t.ok(out.tables.processes!.length > 1000 && out.tables.processes!.length < 20_000);
  t.same(out.tables.users, [{ uid: 0 }], "small tables are kept whole");
});

test("agent ids must be subject-safe", async (t) => {
  t.doesNotThrow(() => assertAgentId("web-01_a"));
  for (const bad of ["a.b", "a b", "", "x".repeat(129), "a*", "a>"]) t.throws(() => assertAgentId(bad), bad);
});
