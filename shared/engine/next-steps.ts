// Next steps grouped as triage, containment, investigation, remediation, from the detections' own advice.
import type { Detection } from "./detections/detection.js";
import type { EngineFinding, NextSteps } from "./types.js";

const GROUPS = ["triage", "containment", "investigation", "remediation"] as const;

export interface NextStepsInput {
  findings: readonly EngineFinding[];
  detections: ReadonlyMap<string, Detection>;
  unreachable: readonly string[];
  proposedAgents: readonly string[];
  missingTables: number;
}

export function buildNextSteps(input: NextStepsInput): NextSteps {
  const steps: NextSteps = { triage: [], containment: [], investigation: [], remediation: [] };
  const order: string[] = [];
  const hostsBy = new Map<string, Set<string>>();
  for (const f of input.findings) {
    if (!hostsBy.has(f.detection_id)) order.push(f.detection_id);
    hostsBy.set(f.detection_id, (hostsBy.get(f.detection_id) ?? new Set<string>()).add(f.hostname));
  }
  for (const id of order) {
    const advice = input.detections.get(id)?.advice ?? {};
    const hosts = [...(hostsBy.get(id) ?? [])].sort().join(", ");
    for (const group of GROUPS) {
      for (const line of advice[group] ?? []) {
        const text = line.replaceAll("{hosts}", hosts);
        if (!steps[group].includes(text)) steps[group].push(text);
      }
    }
  }
  if (input.proposedAgents.length > 0) {
    steps.investigation.push(`Run the question live on the agents the pathfinder reached but did not query: ${input.proposedAgents.join(", ")}.`);
  }
  if (input.unreachable.length > 0) {
    steps.investigation.push(`Re-run live on the unreachable agents when they are back: ${input.unreachable.join(", ")}.`);
  }
  if (input.missingTables > 0) {
    steps.investigation.push(`Collect the missing tables on ${input.missingTables} host${input.missingTables === 1 ? "" : "s"} (check the agent's table support) and re-run.`);
  }
  if (input.findings.length === 0) {
    steps.triage.push("No finding to triage; keep the question as a standing question to catch changes.");
  }
  return steps;
}
