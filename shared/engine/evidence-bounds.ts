// How much of an agent's rows one finding may carry. Every value in a row is the agent's (agents run on the hosts
// being investigated), and a finding travels whole: in a `finding.discovered` event and in a chunk of the findings
// bucket, each one NATS message. A detection that cites every matching row (all the logins from one address) over
// rows an agent made large would otherwise make a finding larger than NATS's max_payload, and the whole
// investigation, every other host's findings with it, would fail on every attempt.
import { boundText } from "../investigations/bounded.js";
import type { EvidenceRow } from "./detections/detection.js";
import type { Row } from "./types.js";

/** Bytes of evidence JSON one finding carries at most. */
export const EVIDENCE_MAX_BYTES = 32 * 1024;
/** A finding's summary (often made of row values), in characters at most. */
export const SUMMARY_MAX_CHARS = 2_000;
/** A text value of a row too large for the finding is cut to this many characters. */
const VALUE_MAX_CHARS = 512;

export const boundSummary = (text: string): string => boundText(text, SUMMARY_MAX_CHARS);

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** The row with every text value longer than VALUE_MAX_CHARS cut (what a row too large for a finding is shown as). */
function shortened(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = typeof v === "string" && v.length > VALUE_MAX_CHARS ? `${v.slice(0, VALUE_MAX_CHARS)} … (cut)` : v;
  return out;
}

/**
 * The evidence rows a finding keeps, in order, within EVIDENCE_MAX_BYTES: a row too large alone is kept with its long
 * text values cut, if that fits; `left` counts the rows left out.
 */
export function boundEvidence(rows: readonly EvidenceRow[], collectedAt: string): { kept: Array<EvidenceRow & { collected_at: string }>; left: number } {
  const kept: Array<EvidenceRow & { collected_at: string }> = [];
  let bytes = 2;
  for (const [i, e] of rows.entries()) {
    let entry = { table: e.table, row: e.row, collected_at: collectedAt };
    let size = bytesOf(entry) + 1;
    if (bytes + size > EVIDENCE_MAX_BYTES) {
      entry = { ...entry, row: shortened(e.row) };
      size = bytesOf(entry) + 1;
    }
    if (bytes + size > EVIDENCE_MAX_BYTES) return { kept, left: rows.length - i };
    kept.push(entry);
    bytes += size;
  }
  return { kept, left: 0 };
}
