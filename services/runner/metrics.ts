// The runner's metrics (docs/operations.md#metrics): the agents it sees by status. Investigation outcomes and
// durations are counted where runs end (runner.ts).
import type { AgentRecord } from "../../shared/agents/record.js";
import type { Registry } from "../../shared/ops/metrics.js";

export function agentMetrics(registry: Registry, list: () => AgentRecord[]): void {
  registry.gauge("inquest_agents", "Agents known to this runner, by status.", () => {
    const counts = new Map<string, number>([["online", 0], ["offline", 0]]);
    for (const a of list()) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
    return [...counts].map(([status, value]) => ({ labels: { status }, value }));
  });
}
