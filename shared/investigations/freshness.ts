// How fresh the cached telemetry is for a question, and whether a live re-run is the better next step
// (docs/engine.md#modes-and-freshness).
import type { AgentRecord } from "../agents/record.js";
import { MAX_SCOPE_AGENT_IDS } from "../schemas/common.js";
import type { Freshness } from "../schemas/investigation.js";

export interface FreshnessPlanner {
  /** The osquery tables a question needs. */
  tablesFor(query: string, depth: "quick" | "standard" | "deep"): readonly string[];
  /** How long rows of a table stay trustworthy. */
  ttlSeconds(table: string): number;
}

export function computeFreshness(agents: AgentRecord[], tables: readonly string[], ttlSeconds: (t: string) => number, nowMs: number): Freshness {
  const ttl = tables.length === 0 ? 86_400 : Math.min(...tables.map(ttlSeconds));
  let oldest: number | null = null;
  const stale: string[] = [];
  const missing: string[] = [];
  for (const a of agents) {
    // A time that is no date (a record from before heartbeats were checked) is no snapshot: its NaN age would have
    // made the whole scope's data_age_seconds null.
    const at = a.snapshot_collected_at ? Date.parse(a.snapshot_collected_at) : NaN;
    if (Number.isNaN(at)) {
      missing.push(a.agent_id);
      continue;
    }
    const age = Math.max(0, Math.round((nowMs - at) / 1000));
    oldest = oldest === null ? age : Math.max(oldest, age);
    if (age > ttl) stale.push(a.agent_id);
  }
  // Only agents that can answer now are worth a live re-run.
  const online = new Set(agents.filter((a) => a.status === "online").map((a) => a.agent_id));
  const rerun = [...stale, ...missing].filter((id) => online.has(id)).sort();
  const reasons: string[] = [];
  if (agents.length === 0) reasons.push("no agent matches the scope");
  if (stale.length > 0) reasons.push(`${stale.length} agent(s) have snapshots older than the ${ttl}s time to live of the tables this question needs`);
  if (missing.length > 0) reasons.push(`${missing.length} agent(s) have no snapshot`);
  if (reasons.length === 0) reasons.push("every in-scope agent has a snapshot within the time to live of the tables this question needs");
  if (rerun.length === 0 && stale.length + missing.length > 0) reasons.push("none of them is online, so a live re-run would not help now");
  // The recommended scope is one a client sends back, and the record stores it: it names what a scope may, not the
  // whole fleet (30,000 ids made a record over max_payload, and every trigger without a scope failed).
  const recommended = rerun.slice(0, MAX_SCOPE_AGENT_IDS);
  if (recommended.length < rerun.length) {
    reasons.push(`the recommended scope names the first ${recommended.length} of the ${rerun.length} agents to re-run (a scope names ${MAX_SCOPE_AGENT_IDS} at most)`);
  }
  return {
    data_age_seconds: oldest,
    stale_agents: stale.length,
    agents_without_snapshot: missing.length,
    recommendation: {
      should_rerun_live: rerun.length > 0,
      recommended_scope: recommended.length > 0 ? { type: "selector", filter: { agent_ids: recommended } } : null,
      reason: reasons.join("; "),
    },
  };
}
