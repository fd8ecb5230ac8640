// The engine as the trigger path needs it: which tables a question reads, and how long they stay fresh.
import type { FreshnessPlanner } from "../investigations/freshness.js";
import { Lru } from "../lru.js";
import { tableTtlSeconds } from "./freshness.js";
import { routeQuery } from "./router.js";

/** Questions whose tables are remembered, and the longest question remembered (longer ones are routed each time). */
const REMEMBERED = 256;
const LONGEST_REMEMBERED = 2_048;

/**
 * Routing a question is a pure function of its text and depth (the detections are fixed at build time), and it was
 * about a tenth of the gateway's CPU per cached or auto POST. The same questions come back (curiosity items, an
 * inbound source's template, a team's usual questions), so the last REMEMBERED are kept, the least recently asked
 * forgotten first: at most 256 x 2 KB of text.
 */
export function rememberingPlanner(route: (query: string, depth: "quick" | "standard" | "deep") => readonly string[]): FreshnessPlanner {
  const remembered = new Lru<string, readonly string[]>(REMEMBERED);
  return {
    tablesFor(query, depth) {
      if (query.length > LONGEST_REMEMBERED) return route(query, depth);
      const key = `${depth}\u0000${query}`;
      const known = remembered.get(key);
      if (known !== undefined) return known;
      const tables = Object.freeze([...route(query, depth)]);
      remembered.set(key, tables);
      return tables;
    },
    ttlSeconds: tableTtlSeconds,
  };
}

export const engineFreshnessPlanner: FreshnessPlanner = rememberingPlanner((query, depth) => routeQuery(query, depth).tables);
