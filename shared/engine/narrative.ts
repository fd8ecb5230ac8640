// The templated narrative: what was asked, what ran and why, what was found where, coverage gaps, verdict.
import type { PathfinderResult } from "./pathfinder.js";
import type { CoverageInput, Depth, EngineFinding, RoutePlan, Severity, Verdict } from "./types.js";

export interface NarrativeInput {
  plan: RoutePlan;
  depth: Depth;
  coverage: CoverageInput;
  hostsExamined: number;
  /** Hosts that answered but whose tags do not match the question's `key=value` tags. */
  hostsOutOfTagScope: number;
  seedSource: SeedSource | null;
  findings: readonly EngineFinding[];
  pathfinder: PathfinderResult | null;
  gaps: readonly string[];
  severity: Severity;
  severityReason: string;
  verdict: Verdict;
  proposedAgents: readonly string[];
}

export type SeedSource = "entities" | "findings" | "lateral";

const MAX_LISTED = 5;

const SEED_TEXT: Readonly<Record<SeedSource, string>> = {
  entities: "from the entities in the question",
  findings: "from the findings' processes, files and addresses (no entity of the question was seen in the rows)",
  lateral: "from cross-host connections and shared keys or hashes (no entity or finding to start from)",
};

/** Detections named in the narrative's "Ran" line; a broad sweep runs more (its route line says so). */
const MAX_NAMED_DETECTIONS = 8;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  malicious: "malicious: at least one high-severity finding",
  suspicious: "suspicious: findings that need review, none high",
  benign: "benign: nothing above info fired and coverage was sufficient",
  inconclusive: "inconclusive: nothing above info fired, but too little of the scope was examined to call it clean",
};

export function buildNarrative(n: NarrativeInput): string {
  const out: string[] = [];
  if (n.plan.query !== undefined) out.push(`Asked: "${n.plan.query.trim()}" (depth ${n.depth}, mode ${n.coverage.mode}).`);
  else out.push(`Investigation at depth ${n.depth}, mode ${n.coverage.mode}.`);

  const how = n.plan.routing_rationale.length > 0 ? ` because ${n.plan.routing_rationale.join("; ")}` : "";
  out.push(`Route: ${n.plan.route}${how}.`.replace(/\.\.$/, "."));
  // A sweep's 40-odd ids would bury the rest of the story: the first few are named, and the route line above says
  // which families ran (the findings name the detections that fired).
  const ids = n.plan.detection_ids;
  const named = ids.length > MAX_NAMED_DETECTIONS ? `${ids.slice(0, MAX_NAMED_DETECTIONS).join(", ")} and ${ids.length - MAX_NAMED_DETECTIONS} more` : ids.join(", ");
  const ran = ids.length > 0 ? `${plural(ids.length, "detection")} (${named})` : "no detections";
  out.push(`Ran ${ran} over ${plural(n.hostsExamined, "host")} that answered, of ${n.coverage.agents_targeted} targeted.`);
  if (n.hostsOutOfTagScope > 0) {
    const tags = Object.entries(n.plan.entities.tags).map(([k, v]) => `${k}=${v}`).join(", ");
    out.push(`${plural(n.hostsOutOfTagScope, "host")} that answered did not carry ${tags} and were left out.`);
  }
  if (n.pathfinder) {
    const p = n.pathfinder;
    out.push(
      p.seeds.length === 0
        ? "The pathfinder found nothing to start from: no entity of the question, finding or cross-host link appears in the rows."
        : `The pathfinder started ${n.seedSource ? `${SEED_TEXT[n.seedSource]} ` : ""}with ${plural(p.seeds.length, "seed")}, visited ${plural(p.visited, "node")} within ${p.max_hops_used} hop${p.max_hops_used === 1 ? "" : "s"}${p.truncated ? " (node budget reached)" : ""} and kept ${plural(p.paths.length, "path")}${p.paths[0] ? `; strongest: ${p.paths[0].explanation}` : ""}.`,
    );
  }

  if (n.findings.length === 0) out.push(`No detection fired on the ${plural(n.hostsExamined, "host")} examined.`);
  else {
    const hosts = [...new Set(n.findings.map((f) => f.hostname))].sort();
    out.push(`Found ${plural(n.findings.length, "finding")} on ${plural(hosts.length, "host")} (${hosts.join(", ")}):`);
    for (const f of n.findings.slice(0, MAX_LISTED)) {
      out.push(`- [${f.severity}] ${f.title} on ${f.hostname} (confidence ${f.confidence.toFixed(2)}): ${f.summary}`);
    }
    if (n.findings.length > MAX_LISTED) out.push(`- and ${n.findings.length - MAX_LISTED} more.`);
  }
  if (n.proposedAgents.length > 0) out.push(`Reached but not queried: ${n.proposedAgents.join(", ")} (proposed scope for a live re-run).`);
  if (n.gaps.length > 0) out.push(`Coverage gaps (${n.gaps.length}): ${n.gaps.slice(0, 3).join(" ")}${n.gaps.length > 3 ? ` (${n.gaps.length - 3} more in coverage_gaps)` : ""}`);
  else out.push("Coverage: every targeted agent answered with every needed table.");
  out.push(`Verdict: ${VERDICT_TEXT[n.verdict]}. Severity ${n.severity}. ${n.severityReason}`);
  return out.join("\n");
}
