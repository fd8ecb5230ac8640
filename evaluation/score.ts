// Scoring the engine on the corpus, per host, the way an analyst (and our independent measure) reads a report:
// a compromised host is found when a finding of severity low or higher on it has evidence naming one of its planted
// artifacts; precision is the share of such findings (>= low) that sit on compromised hosts. Every question of every
// scenario runs through routeQuery + runInvestigation exactly as the runner calls them.
import type { CorpusHost, Phrasing, Scenario, Split } from "../corpus/types.js";
import { routeQuery, runInvestigation } from "../shared/engine/index.js";
import type { Row, Severity } from "../shared/engine/index.js";

const ALERT: ReadonlySet<Severity> = new Set(["low", "medium", "high", "critical"]);

/** Whether any evidence value of the finding contains one of the host's artifacts. */
export function namesArtifact(finding: { evidence: ReadonlyArray<{ row: Row }> }, host: CorpusHost): boolean {
  if (host.artifacts.length === 0) return false;
  return finding.evidence.some((e) =>
    Object.values(e.row).some((v) => {
      const text = typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
      return text !== "" && host.artifacts.some((a) => text.includes(a));
    }),
  );
}

export interface Counts {
  /** Compromised (host, question) pairs found / missed. */
  found: number;
  missed: number;
  /** Alerting findings on compromised hosts / on clean hosts. */
  findings_on_compromised: number;
  findings_on_clean: number;
  /** Clean (host, question) pairs with no alerting finding / with one. */
  clean_quiet: number;
  clean_flagged: number;
  critical_on_clean: number;
}

export function emptyCounts(): Counts {
  return { found: 0, missed: 0, findings_on_compromised: 0, findings_on_clean: 0, clean_quiet: 0, clean_flagged: 0, critical_on_clean: 0 };
}

export function add(into: Counts, c: Counts): void {
  for (const k of Object.keys(into) as Array<keyof Counts>) into[k] += c[k];
}

export const recall = (c: Counts): number => ratio(c.found, c.found + c.missed);
export const precision = (c: Counts): number => ratio(c.findings_on_compromised, c.findings_on_compromised + c.findings_on_clean);

function ratio(n: number, d: number): number {
  return d === 0 ? 1 : Math.round((n / d) * 1000) / 1000;
}

/** Per detection: alerting hits that named an artifact, that sat on a compromised host without naming one, on clean hosts. */
export interface DetectionCounts {
  named: number;
  collateral: number;
  on_clean: number;
  info: number;
}

export interface QuestionOutcome {
  scenario: string;
  family: string;
  kind: Scenario["kind"];
  split: Split;
  question: string;
  phrasing: Phrasing;
  counts: Counts;
  missed_hosts: string[];
  false_findings: Array<{ agent_id: string; detection_id: string; severity: Severity; summary: string }>;
  /** The report's findings, for the determinism check. */
  fingerprint: string;
}

const NOW_MODE = "cached" as const;

export function scoreQuestion(s: Scenario, question: string, phrasing: Phrasing, perDetection: Map<string, DetectionCounts>): QuestionOutcome {
  const plan = routeQuery(question, "standard");
  const report = runInvestigation(plan, s.hosts, { mode: NOW_MODE, agents_targeted: s.hosts.length, agents_responded: s.hosts.length, unreachable: [] }, "standard");
  const byAgent = new Map(s.hosts.map((h) => [h.agent_id, h] as const));
  const counts = emptyCounts();
  const missed: string[] = [];
  const falseFindings: QuestionOutcome["false_findings"] = [];
  for (const f of report.findings) {
    const h = byAgent.get(f.agent_id);
    if (!h) continue;
    const d = perDetection.get(f.detection_id) ?? { named: 0, collateral: 0, on_clean: 0, info: 0 };
    perDetection.set(f.detection_id, d);
    if (!ALERT.has(f.severity)) {
      d.info++;
      continue;
    }
    if (h.compromised) {
      counts.findings_on_compromised++;
      if (namesArtifact(f, h)) d.named++;
      else d.collateral++;
    } else {
      counts.findings_on_clean++;
      d.on_clean++;
      if (f.severity === "critical") counts.critical_on_clean++;
      falseFindings.push({ agent_id: f.agent_id, detection_id: f.detection_id, severity: f.severity, summary: f.summary });
    }
  }
  for (const h of s.hosts) {
    const alerts = report.findings.filter((f) => f.agent_id === h.agent_id && ALERT.has(f.severity));
    if (h.compromised) {
      if (alerts.some((f) => namesArtifact(f, h))) counts.found++;
      else {
        counts.missed++;
        missed.push(h.agent_id);
      }
    } else if (alerts.length === 0) counts.clean_quiet++;
    else counts.clean_flagged++;
  }
  const fingerprint = JSON.stringify(report.findings.map((f) => [f.detection_id, f.agent_id, f.severity, f.summary]));
  return { scenario: s.id, family: s.family, kind: s.kind, split: s.split, question, phrasing, counts, missed_hosts: missed, false_findings: falseFindings, fingerprint };
}

export interface Evaluation {
  outcomes: QuestionOutcome[];
  bySplit: Record<Split, Counts>;
  byPhrasing: Record<Split, Record<string, Counts>>;
  byFamily: Record<Split, Record<string, Counts>>;
  byDetection: Record<Split, Record<string, DetectionCounts>>;
  scenarios: Record<Split, number>;
}

export function evaluate(corpus: readonly Scenario[]): Evaluation {
  const bySplit: Record<Split, Counts> = { calibrate: emptyCounts(), holdout: emptyCounts() };
  const byPhrasing: Evaluation["byPhrasing"] = { calibrate: {}, holdout: {} };
  const byFamily: Evaluation["byFamily"] = { calibrate: {}, holdout: {} };
  const det: Record<Split, Map<string, DetectionCounts>> = { calibrate: new Map(), holdout: new Map() };
  const scenarios: Record<Split, number> = { calibrate: 0, holdout: 0 };
  const outcomes: QuestionOutcome[] = [];
  for (const s of corpus) {
    scenarios[s.split]++;
    for (const q of s.questions) {
      const o = scoreQuestion(s, q.text, q.phrasing, det[s.split]);
      outcomes.push(o);
      add(bySplit[s.split], o.counts);
      add((byPhrasing[s.split][q.phrasing] ??= emptyCounts()), o.counts);
      add((byFamily[s.split][`${s.kind}:${s.family}`] ??= emptyCounts()), o.counts);
    }
  }
  const toRecord = (m: Map<string, DetectionCounts>): Record<string, DetectionCounts> =>
    Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { outcomes, bySplit, byPhrasing, byFamily, byDetection: { calibrate: toRecord(det.calibrate), holdout: toRecord(det.holdout) }, scenarios };
}
