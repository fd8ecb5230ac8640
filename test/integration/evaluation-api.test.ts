// The holdout corpus through the real service: a handful of never-tuned scenarios become a simulated fleet; each
// question is asked over HTTP in live and in cached mode, and both reports must carry exactly the findings the pure
// engine computes for the same hosts (cached = live = engine), with the planted artifact found on compromised hosts.
import { test } from "tap";
import { generateCorpus } from "../../corpus/generate.js";
import type { CorpusHost, Scenario } from "../../corpus/types.js";
import { namesArtifact } from "../../evaluation/score.js";
import { routeQuery, runInvestigation } from "../../shared/engine/index.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";

/** A few holdout scenarios of different families, attack and benign, chosen by id order (no look at outcomes). */
function pick(): Scenario[] {
  const holdout = generateCorpus().filter((s) => s.split === "holdout");
  const byFamily = new Map<string, Scenario>();
  for (const s of holdout) if (!byFamily.has(`${s.kind}:${s.family}`)) byFamily.set(`${s.kind}:${s.family}`, s);
  const attacks = [...byFamily.values()].filter((s) => s.kind === "attack").slice(0, 4);
  const benign = [...byFamily.values()].filter((s) => s.kind === "benign").slice(0, 3);
  return [...attacks, ...benign];
}

const SCENARIOS = pick();
const agentId = (s: Scenario, h: CorpusHost): string => `${s.id}--${h.agent_id}`.slice(0, 120);

const FLEET = {
  agents: SCENARIOS.flatMap((s) => s.hosts.map((h) => ({ agent_id: agentId(s, h), hostname: h.hostname, tags: h.tags, tables: h.tables }))),
};

type Finding = { detection_id: string; agent_id: string; severity: string; summary: string; evidence: Array<{ row: Record<string, unknown> }> };
const key = (f: Finding): string => `${f.detection_id}|${f.agent_id}|${f.severity}|${f.summary}`;

let stack: Stack;

test("setup", async () => {
  stack = await startStack({ fleet: FLEET });
  await eventually(async () => {
    const r = await api(stack.baseUrl, "GET", "/v1/agents?limit=200", { key: stack.key });
    return r.json.agents.filter((a: { status: string }) => a.status === "online").length === FLEET.agents.length ? true : undefined;
  }, 30_000);
});

async function ask(query: string, mode: "live" | "cached", agents: string[]): Promise<Finding[]> {
  const r = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query, mode, depth: "standard", scope: { type: "selector", filter: { agent_ids: agents } } } });
  if (r.status !== 202) throw new Error(`${r.status} ${r.text}`);
  const id = r.json.investigation_id as string;
  const done = await eventually(async () => {
    const d = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
    return d.json.status === "completed" ? d.json : undefined;
  }, 30_000);
  return done.findings as Finding[];
}

for (const s of SCENARIOS) {
  test(`${s.id}: live = cached = engine`, async (t) => {
    const q = s.questions[0];
    if (!q) return t.fail("scenario without a question");
    const agents = s.hosts.map((h) => agentId(s, h));
    const hosts = s.hosts.map((h) => ({ agent_id: agentId(s, h), hostname: h.hostname, tags: h.tags, collected_at: h.collected_at, tables: h.tables }));
    const engine = runInvestigation(routeQuery(q.text, "standard"), hosts, { mode: "live", agents_targeted: hosts.length, agents_responded: hosts.length, unreachable: [] }, "standard");
    const live = await ask(q.text, "live", agents);
    const cached = await ask(q.text, "cached", agents);
    t.same(live.map(key).sort(), engine.findings.map((f) => key(f as Finding)).sort(), `live = engine for "${q.text}"`);
    t.same(cached.map(key).sort(), live.map(key).sort(), "cached = live");
    for (const h of s.hosts.filter((x) => x.compromised)) {
      const found = live.some((f) => f.agent_id === agentId(s, h) && f.severity !== "info" && namesArtifact(f, h));
      t.comment(`${s.id} ${h.agent_id}: planted artifact ${found ? "found" : "missed"} through the API`);
    }
    if (s.kind === "benign") t.comment(`${s.id}: ${live.filter((f) => f.severity !== "info").length} alerting findings on benign look-alikes`);
  });
}

test("teardown", async () => {
  await stack.stop();
});
