// Finding severity (impact x measured precision x asset weight, with the critical/experimental rules) and the
// investigation's severity and verdict.
import type { Detection, DetectionHit } from "./detections/detection.js";
import { normalizeIp } from "./net.js";
import { str } from "./rows.js";
import { maxSeverity, minSeverity, severityRank, stepUp } from "./severity-scale.js";
import type { CoverageInput, HostData, QueryEntities, Severity, Verdict } from "./types.js";

export const IMPACT: Readonly<Record<Severity, number>> = { info: 10, low: 25, medium: 50, high: 75, critical: 100 };
/** Score bands: score >= threshold gives the severity (critical still needs the critical rule). */
const BANDS: ReadonlyArray<[number, Severity]> = [
  [100, "critical"],
  [60, "high"],
  [30, "medium"],
  [0, "low"],
];

export function assetWeight(tags: Record<string, string>): number {
  return tags.env === "prod" || tags.env === "production" ? 1.5 : 1;
}

export interface ScoredSeverity {
  severity: Severity;
  base_severity: Severity;
  impact: number;
  precision: number;
  asset_weight: number;
  score: number;
  exact_ioc: boolean;
}

/**
 * Whether an evidence row carries an IP or sha256 named in the question. Paths named in the question are places
 * to look, not indicators: they never count here.
 */
export function mentionsEntity(hit: DetectionHit, e: QueryEntities): boolean {
  const ips = new Set(e.ips.map(normalizeIp));
  const hashes = new Set(e.sha256);
  if (ips.size + hashes.size === 0) return false;
  return hit.evidence.some(({ row }) => {
    for (const c of ["remote_address", "host", "address"]) if (ips.has(normalizeIp(str(row, c)))) return true;
    return hashes.has(str(row, "sha256").toLowerCase());
  });
}

/**
 * One finding's severity. `info` hits stay info (observed, not alerted on). Otherwise the score band decides, with
 * three rules on top: critical only for a known-bad match (curated intelligence) — independent detections agreeing
 * raise the investigation, not the finding; an IP or hash named in the question and found in the evidence lifts the
 * finding one step but not to critical (the question's words are not intelligence); experimental detections cap at
 * medium unless the hit is a known-bad match.
 */
export function scoreFinding(det: Detection, hit: DetectionHit, host: HostData, entities: QueryEntities): ScoredSeverity {
  const base = hit.severity ?? det.severity;
  const impact = IMPACT[base];
  const precision = det.precision;
  const weight = assetWeight(host.tags);
  const score = Math.round(impact * precision * weight * 100) / 100;
  const knownBad = hit.known_bad === true;
  const named = mentionsEntity(hit, entities);
  if (base === "info") return { severity: "info", base_severity: base, impact, precision, asset_weight: weight, score, exact_ioc: knownBad };
  let severity: Severity = BANDS.find(([min]) => score >= min)?.[1] ?? "low";
  if (named) severity = maxSeverity(severity, minSeverity(stepUp(base), "high"));
  if (knownBad) severity = maxSeverity(severity, base === "critical" ? "critical" : stepUp(base));
  else severity = minSeverity(severity, "high");
  if (det.maturity === "experimental" && !knownBad) severity = minSeverity(severity, "medium");
  severity = maxSeverity(severity, "low");
  return { severity, base_severity: base, impact, precision, asset_weight: weight, score, exact_ioc: knownBad };
}

export interface LinkableFinding {
  detection_id: string;
  agent_id: string;
  severity: Severity;
  /** Entity keys the finding touches (`pid:…`, `path:…`, `ip:…`, `sshkey:…`). */
  links: string[];
}

/**
 * Pairs of findings of different detections on one host that share an entity, ordered by (i, j). Only findings
 * on the same host can pair, so they are compared host by host: a fleet-wide run with one finding on each of
 * 10,000 hosts makes no comparisons rather than fifty million.
 */
export function linkedPairs(findings: readonly LinkableFinding[]): Array<[number, number, string]> {
  const byHost = new Map<string, number[]>();
  findings.forEach((f, i) => {
    const indexes = byHost.get(f.agent_id);
    if (indexes) indexes.push(i);
    else byHost.set(f.agent_id, [i]);
  });
  const pairs: Array<[number, number, string]> = [];
  for (const indexes of byHost.values()) {
    for (let x = 0; x < indexes.length; x++) {
      for (let y = x + 1; y < indexes.length; y++) {
        const i = indexes[x] as number;
        const j = indexes[y] as number;
        const a = findings[i] as LinkableFinding;
        const b = findings[j] as LinkableFinding;
        if (a.detection_id === b.detection_id) continue;
        const shared = a.links.find((k) => b.links.includes(k));
        if (shared !== undefined) pairs.push([i, j, shared]);
      }
    }
  }
  return pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}

export interface InvestigationSeverity {
  severity: Severity;
  linked: boolean;
  reason: string;
}

export function investigationSeverity(findings: readonly LinkableFinding[]): InvestigationSeverity {
  if (findings.length === 0) return { severity: "info", linked: false, reason: "No findings: severity info." };
  const highest = findings.reduce<Severity>((acc, f) => maxSeverity(acc, f.severity), "info");
  const pairMin = ([x, y]: [number, number, string]): number =>
    severityRank(minSeverity(findings[x]?.severity ?? "info", findings[y]?.severity ?? "info"));
  // Info findings are observations, not alerts: they corroborate nothing.
  const pairs = linkedPairs(findings)
    .filter((p) => pairMin(p) >= severityRank("low"))
    .sort((p, q) => pairMin(q) - pairMin(p));
  if (pairs.length === 0) return { severity: highest, linked: false, reason: `Highest finding severity: ${highest}.` };
  const [i, j, entity] = pairs[0] ?? [0, 0, ""];
  const a = findings[i];
  const b = findings[j];
  // Critical needs independent signals agreeing: two different detections, both high, on one entity.
  const bothHigh = a !== undefined && b !== undefined && severityRank(minSeverity(a.severity, b.severity)) >= severityRank("high");
  const raised = highest === "high" && !bothHigh ? "high" : stepUp(highest);
  const link = `${a?.detection_id} and ${b?.detection_id} share ${entity} on ${a?.agent_id}`;
  return {
    severity: raised,
    linked: true,
    reason:
      raised === highest
        ? `Highest finding severity ${highest} (critical needs two high findings that agree, or a known-bad match); ${link}.`
        : `Highest finding severity ${highest}, raised one step to ${raised} because ${link}.`,
  };
}

export interface CoverageVerdictInput {
  coverage: CoverageInput;
  hostsWithRows: number;
  /** Fraction of (host, needed table) pairs actually returned, 0..1. */
  tableCoverage: number;
}

/** True when missing hosts or tables outweigh what was seen. */
export function coverageOutweighs({ coverage, hostsWithRows, tableCoverage }: CoverageVerdictInput): boolean {
  const targeted = Math.max(coverage.agents_targeted, hostsWithRows + coverage.unreachable.length);
  if (targeted === 0 || hostsWithRows === 0 || coverage.agents_responded === 0) return true;
  if (coverage.unreachable.length * 2 > targeted) return true;
  return tableCoverage < 0.5;
}

/**
 * Findings of severity info are observations (Sigma's meaning), not alerts: a report with only those is judged as one
 * where nothing fired, benign or inconclusive by coverage, never "suspicious" at severity info.
 */
export function verdictFor(severity: Severity, findingsCount: number, coverageInput: CoverageVerdictInput): Verdict {
  if (findingsCount > 0 && severityRank(severity) >= severityRank("low")) return severityRank(severity) >= severityRank("high") ? "malicious" : "suspicious";
  return coverageOutweighs(coverageInput) ? "inconclusive" : "benign";
}
