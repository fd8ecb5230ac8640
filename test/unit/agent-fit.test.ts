// Telemetry is cut to fit one NATS message instead of crashing the agent.
import { test } from "tap";
import { fitTables, VALUE_MAX_CHARS } from "../../services/agent/fit.js";
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

test("text values are cut to 16 KiB first: 300 processes with 960 KB of arguments each fit, quickly, without a throw", async (t) => {
  const huge = Array.from({ length: 300 }, (_, i) => ({ pid: String(i), name: "sh", cmdline: `sh ${"A".repeat(960_000)}` }));
  const msg = { agent_id: "a", collected_at: "x", tables: { processes: [{ pid: "1", name: "init", cmdline: "/sbin/init" }, ...huge] } };
  const bytes = fitTables(msg, 1024 * 1024);
  t.ok(bytes.length <= 1024 * 1024, `${bytes.length} bytes`);
  const out = JSON.parse(Buffer.from(bytes).toString()) as { tables: { processes: Array<{ cmdline: string }> }; truncated: string[] };
  t.same(out.truncated, ["processes"]);
  t.equal(out.tables.processes[0]?.cmdline, "/sbin/init", "short values untouched");
  t.equal(out.tables.processes[1]?.cmdline.length, VALUE_MAX_CHARS + 1, "a long one keeps its first 16 KiB and a mark");
});

test("the table taking the most bytes is halved first, not the one with the most rows", async (t) => {
  const wide = Array.from({ length: 40 }, (_, i) => ({ pid: String(i), cmdline: "x".repeat(15_000) }));
  const many = Array.from({ length: 2_000 }, (_, i) => ({ pid: String(i), fd: "3" }));
  const bytes = fitTables({ agent_id: "a", collected_at: "x", tables: { processes: wide, process_open_sockets: many } }, 400 * 1024);
  const out = JSON.parse(Buffer.from(bytes).toString()) as { tables: Record<string, unknown[]>; truncated: string[] };
  t.same(out.truncated, ["processes"]);
  t.equal(out.tables.process_open_sockets?.length, 2_000, "the table of many small rows is kept whole");
});

test("agent ids must be subject-safe", async (t) => {
  t.doesNotThrow(() => assertAgentId("web-01_a"));
  for (const bad of ["a.b", "a b", "", "x".repeat(129), "a*", "a>"]) t.throws(() => assertAgentId(bad), bad);
});
