// What a run's end writes into its record: the findings it carries, the engine's bounded report and the summary.
// Pure, so what the record will hold (and its size) can be checked without running one.
import { iso } from "../../shared/clock.js";
import { newId } from "../../shared/ids.js";
import { DEFAULT_REPORT_BOUNDS } from "../../shared/investigations/bounded.js";
import type { FindingsBounds, FindingsRef } from "../../shared/investigations/findings.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { Finding, Progress } from "../../shared/schemas/investigation.js";
import type { BoundedReport, FindingsEncoding } from "./engine-protocol.js";

/** How the engine's thread encodes a run's findings and bounds its report (emitEvaluation), at `nowMs`. */
export function evaluationEncoding(bounds: FindingsBounds, nowMs: number): FindingsEncoding {
  // The report's lists grow with the findings and hosts too: bounded like the findings the record carries.
  return { idTimeMs: nowMs, chunkBytes: bounds.chunkBytes, reportBounds: { ...DEFAULT_REPORT_BOUNDS, maxItems: bounds.inlineCount } };
}

/** A run's results as its end writes them. */
export interface RunResults {
  /** The leading findings the record carries and how many there are in all. */
  stored: { findings: Finding[]; findings_total: number };
  report: BoundedReport;
  ref: FindingsRef;
  progress: Progress;
  endMs: number;
}

/**
 * `r` with the run's results: completed, or, when it was cancelled while collecting, still cancelled with what was
 * found as partial results. The caller decides whether `r` may take them (its lease, its status).
 */
export function withResults(r: InvestigationRecord, results: RunResults): InvestigationRecord {
  const { stored, report, ref, progress, endMs } = results;
  if (r.status === "cancelled") {
    return { ...r, ...stored, report: { ...report, partial: true }, progress: { ...progress, phase: "cancelled" }, internal: { ...r.internal, findings_ref: ref } };
  }
  return {
    ...r,
    status: "completed",
    completed_at: iso(endMs),
    progress: { ...progress, phase: "done" },
    summary: { narrative: report.narrative, severity: report.severity, verdict: report.verdict, findings_count: stored.findings_total, route: report.route },
    ...stored,
    report,
    internal: { ...r.internal, findings_ref: ref, events: { ...r.internal.events, terminal: newId("evt", endMs), findings: {} } },
  };
}
