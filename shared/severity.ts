// The one severity scale (Sigma's meanings), ordered: the engine's findings, the API's schema and the webhook
// fan-out's min_severity filter all use this list.
export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The position on the scale; -1 for anything that is not a severity. */
export function severityRank(s: unknown): number {
  return typeof s === "string" ? (SEVERITIES as readonly string[]).indexOf(s) : -1;
}
