// The engine as the trigger path needs it: which tables a question reads, and how long they stay fresh.
import type { FreshnessPlanner } from "../investigations/freshness.js";
import { tableTtlSeconds } from "./report.js";
import { routeQuery } from "./router.js";

export const engineFreshnessPlanner: FreshnessPlanner = {
  tablesFor: (query, depth) => routeQuery(query, depth).tables,
  ttlSeconds: tableTtlSeconds,
};
