// What triggerInvestigation needs in tests: the runtime's buckets and stream, no agents, a planner that asks for
// `processes`, an empty backlog (its bound 1,000 unless overridden).
import type { Clock } from "../../shared/clock.js";
import type { TriggerDeps } from "../../shared/investigations/trigger.js";
import type { Runtime } from "../../shared/runtime.js";

export function testTriggerDeps(rt: Runtime, clock: Clock, overrides: Partial<TriggerDeps> = {}): TriggerDeps {
  return {
    js: rt.js,
    investigations: rt.investigations,
    idempotency: rt.idempotency,
    listAgents: async () => [],
    planner: { tablesFor: () => ["processes"], ttlSeconds: () => 3600 },
    backlog: async () => 0,
    maxBacklog: 1000,
    clock,
    ...overrides,
  };
}
