// The trigger's dependencies as every triggering service (gateway, ticker) builds them.
import type { AgentRecord } from "../agents/record.js";
import type { Clock } from "../clock.js";
import { engineFreshnessPlanner } from "../engine/planner.js";
import { workBacklog, type Runtime } from "../runtime.js";
import { BacklogGauge } from "./backlog.js";
import type { TriggerDeps } from "./trigger.js";

export interface TriggerDepsOptions {
  rt: Runtime;
  listAgents(): AgentRecord[];
  maxBacklog: number;
  clock: Clock;
}

export function triggerDeps(opts: TriggerDepsOptions): TriggerDeps {
  const { rt, clock } = opts;
  const backlog = new BacklogGauge(() => workBacklog(rt), clock);
  return {
    js: rt.js,
    investigations: rt.investigations,
    idempotency: rt.idempotency,
    listAgents: async () => opts.listAgents(),
    planner: engineFreshnessPlanner,
    backlog: () => backlog.current(),
    noteQueued: () => backlog.noteQueued(),
    maxBacklog: opts.maxBacklog,
    clock,
  };
}
