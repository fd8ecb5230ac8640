// The engine as the runner and the trigger path use it.
import type { FreshnessPlanner } from "../../shared/investigations/freshness.js";
import { diffFindings, routeQuery, runInvestigation, tableTtlSeconds } from "./engine/index.js";
import type { Engine } from "./execute.js";

export const engine: Engine = { routeQuery, runInvestigation };

export const engineFreshnessPlanner: FreshnessPlanner = {
  tablesFor: (query, depth) => routeQuery(query, depth).tables,
  ttlSeconds: tableTtlSeconds,
};

export { diffFindings };
