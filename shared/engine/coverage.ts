// Coverage gaps: unreachable agents, tables a host did not return or cut short, detections that ran without a
// baseline tag.
import { isCoreTable } from "./core-tables.js";
import { compareText } from "./order.js";
import type { Detection } from "./detections/detection.js";
import { hasTable } from "./rows.js";
import type { CoverageInput, HostData } from "./types.js";

export interface CoverageSummary {
  gaps: string[];
  /** Fraction of (host, needed table) pairs that came back, 1 when nothing was needed. */
  tableCoverage: number;
  /** agent_id -> tables it did not return. */
  missingTables: Map<string, string[]>;
}

function list(items: string[], max = 6): string {
  return items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}

/** `hosts` are the hosts examined; `answered` counts every host that answered (some may be outside the tag scope). */
export function coverageSummary(tables: readonly string[], hosts: readonly HostData[], coverage: CoverageInput, detections: readonly Detection[], answered = hosts.length): CoverageSummary {
  const gaps: string[] = [];
  const unreachable = [...coverage.unreachable].sort((a, b) => compareText(a.agent_id, b.agent_id));
  for (const u of unreachable) gaps.push(`${u.hostname} (${u.agent_id}) gave no rows: ${u.reason}.`);
  const unaccounted = coverage.agents_targeted - answered - unreachable.length;
  if (unaccounted > 0) gaps.push(`${unaccounted} targeted agent${unaccounted === 1 ? "" : "s"} neither answered nor were reported unreachable.`);
  if (hosts.length === 0) gaps.push(answered > 0 ? "No answering host matched the tags in the question: nothing was examined." : "No agent answered: nothing was examined.");

  // Only core tables count against coverage; a missing supplementary table is noted once for all hosts.
  const needed = tables.filter(isCoreTable);
  const supplementary = tables.filter((t) => !isCoreTable(t));
  const missingTables = new Map<string, string[]>();
  let present = 0;
  for (const host of hosts) {
    const missing = needed.filter((t) => !hasTable(host, t));
    present += needed.length - missing.length;
    if (missing.length > 0) {
      missingTables.set(host.agent_id, missing);
      gaps.push(`${host.hostname} (${host.agent_id}) returned no ${missing.join(", ")} table${missing.length === 1 ? "" : "s"}.`);
    }
  }
  const skipped = supplementary.filter((t) => hosts.some((h) => !hasTable(h, t)));
  if (skipped.length > 0) {
    const without = hosts.filter((h) => skipped.some((t) => !hasTable(h, t))).length;
    gaps.push(`${without} host${without === 1 ? "" : "s"} returned no ${skipped.join(", ")} (supplementary tables): the deeper checks that read them were skipped there.`);
  }
  // Rows the agents cut short (a row cap, their message size): what lies past the cut was never examined.
  const partial = hosts.filter((h) => (h.truncated?.length ?? 0) > 0);
  if (partial.length > 0) {
    const cut = [...new Set(partial.flatMap((h) => h.truncated ?? []))].sort();
    gaps.push(`${list(partial.map((h) => `${h.hostname} (${h.agent_id})`).sort())} sent only part of their ${cut.join(", ")} rows (cut to the agent's limits): what was past the cut was not examined.`);
  }
  const pairs = hosts.length * needed.length;
  const tableCoverage = pairs === 0 ? (hosts.length > 0 ? 1 : 0) : present / pairs;

  for (const d of [...detections].sort((a, b) => compareText(a.id, b.id))) {
    const tag = d.baseline_tag;
    if (tag === undefined) continue;
    const without = hosts.filter((h) => h.tags[tag] === undefined).map((h) => h.hostname).sort();
    if (without.length === 0) continue;
    gaps.push(`No ${tag} baseline tag on ${list(without)}: ${d.id} used its built-in defaults.`);
  }
  return { gaps, tableCoverage, missingTables };
}
