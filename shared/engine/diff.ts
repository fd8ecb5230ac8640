// "New since last run": a finding is new unless the previous run had one with the same key.
import { rowFingerprint, stableHash } from "./fingerprint.js";
import type { EngineFinding } from "./types.js";

export interface FindingDiff {
  /** detection_id + agent_id + evidence fingerprint. */
  key: string;
  is_new: boolean;
  finding: EngineFinding;
}

/** A fingerprint of the finding's evidence that survives re-collection (pids, counters, collected_at ignored). */
export function evidenceFingerprint(finding: EngineFinding): string {
  const parts = finding.evidence.map((e) => rowFingerprint(e.table, e.row)).sort();
  return stableHash([...new Set(parts)].join(","));
}

export function findingKey(finding: EngineFinding): string {
  return `${finding.detection_id}|${finding.agent_id}|${evidenceFingerprint(finding)}`;
}

/** For each current finding (same order): its key and whether the previous run lacked it. */
export function diffFindings(previous: readonly EngineFinding[], current: readonly EngineFinding[]): FindingDiff[] {
  const before = new Set(previous.map(findingKey));
  return current.map((finding) => {
    const key = findingKey(finding);
    return { key, is_new: !before.has(key), finding };
  });
}

/** The same as diffFindings, reduced to one boolean per current finding. */
export function markNewFindings(previous: readonly EngineFinding[], current: readonly EngineFinding[]): boolean[] {
  return diffFindings(previous, current).map((d) => d.is_new);
}
