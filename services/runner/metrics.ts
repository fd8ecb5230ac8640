// The runner's metrics (docs/operations.md#metrics): the agents it sees by status, and how long the runs it ended
// took, by mode, depth and outcome (told by executeInvestigation's onSettled).
import type { AgentRecord } from "../../shared/agents/record.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { Counter, Registry } from "../../shared/ops/metrics.js";
import type { RunPhases } from "./execute.js";
import { REFUSALS } from "./registry-limits.js";

/** Seconds from the trigger to the end: a quick cached run to a deep live one waiting for its plans. */
const DURATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/** Observes each run this runner ends; returns the hook for ExecuteDeps.onSettled. */
export function investigationMetrics(registry: Registry): (record: InvestigationRecord) => void {
  const durations = registry.histogram(
    "inquest_investigation_duration_seconds",
    "From trigger to end, of the investigations this runner ended, by mode, depth and status (completed, failed, cancelled).",
    DURATION_BUCKETS,
  );
  return (r) => {
    const end = Date.parse(r.completed_at ?? "");
    const start = Date.parse(r.started_at);
    if (Number.isNaN(end) || Number.isNaN(start)) return; // no end time on the record: nothing to measure
    durations.observe(Math.max(0, (end - start) / 1000), { mode: r.mode, depth: r.depth, status: r.status });
  };
}

/** Seconds of each phase of the runs this runner worked to their end (execute.ts RunPhases). */
export function phaseMetrics(registry: Registry): (phases: RunPhases) => void {
  const seconds = registry.histogram(
    "inquest_investigation_phase_seconds",
    "How long each phase of the runs this runner worked took: collect (the agents), evaluate (the engine), store (findings and the terminal record), announce (events).",
    DURATION_BUCKETS,
  );
  return (phases) => {
    for (const [phase, ms] of Object.entries(phases)) seconds.observe(ms / 1000, { phase });
  };
}

export function agentMetrics(registry: Registry, list: () => AgentRecord[]): void {
  registry.gauge("inquest_agents", "Agents known to this runner, by status.", () => {
    const counts = new Map<string, number>([["online", 0], ["offline", 0]]);
    for (const a of list()) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
    return [...counts].map(([status, value]) => ({ labels: { status }, value }));
  });
}

/** Answers the agent registry did not send: the agent asked for them outside its own inbox (registry.ts). */
export function droppedReplyMetric(registry: Registry): Counter {
  const c = registry.counter("inquest_agent_replies_dropped_total", "Answers to agents' messages not sent because the reply subject was not the agent's own inbox (a misbehaving or compromised agent).");
  c.inc({}, 0); // 0 from the start, so increase() counts the first
  return c;
}

/** Agents' messages and record writes the agent registry refused, by reason (registry-limits.ts). */
export function refusedMessageMetric(registry: Registry): Counter {
  const c = registry.counter(
    "inquest_agent_messages_refused_total",
    "Agents' messages the agent registry refused at once, by reason: busy (its handlers at their bound), agent_busy (the agent had too many messages in hand), writes (the agent changed its record too often; a heartbeat is still acknowledged, its new snapshot time left for a later beat).",
  );
  for (const reason of REFUSALS) c.inc({ reason }, 0); // 0 from the start, so increase() counts the first
  return c;
}
