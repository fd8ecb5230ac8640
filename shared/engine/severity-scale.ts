// The ordered Sigma-style severity scale and small helpers over it.
import { SEVERITIES, type Severity } from "./types.js";

export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) >= severityRank(b) ? a : b;
}

export function minSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) <= severityRank(b) ? a : b;
}

/** One step up the scale (critical stays critical). */
export function stepUp(s: Severity): Severity {
  return SEVERITIES[Math.min(severityRank(s) + 1, SEVERITIES.length - 1)] ?? s;
}

/** Sort comparator: most severe first. */
export function bySeverityDesc(a: Severity, b: Severity): number {
  return severityRank(b) - severityRank(a);
}
