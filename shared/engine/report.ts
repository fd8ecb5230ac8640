// runInvestigation: run the plan's detections and the pathfinder over the hosts' rows and assemble the report.
// InvestigationRun does the same a host at a time, as rows arrive.
import { BaselineNotes, byNoteOrder } from "./baseline-notes.js";
import { FLEET_COMMON_BASELINE, fleetCommon, fleetCommonSummary, fleetKeysOf } from "./fleet-common.js";
import { compareText } from "./order.js";
import { coverageSummary } from "./coverage.js";
import type { Detection, DetectionHit } from "./detections/detection.js";
import { getDetection } from "./detections/registry.js";
import { evidenceFingerprint } from "./diff.js";
import { boundEvidence, boundSummary, EVIDENCE_MAX_BYTES } from "./evidence-bounds.js";
import { buildGraph } from "./graph.js";
import { linkKeys } from "./links.js";
import { buildNarrative } from "./narrative.js";
import { buildNextSteps } from "./next-steps.js";
import { flat } from "./flat.js";
import { findPaths, lateralSeeds, nodesForEvidence, seedsFromEntities, type PathfinderResult } from "./pathfinder.js";
import { bySeverityDesc } from "./severity-scale.js";
import { PeerOutliers } from "./peer-outliers.js";
import { investigationSeverity, scoreFinding, verdictFor, type ScoredSeverity } from "./severity.js";
import { buildTimeline } from "./timeline.js";
import type { SeedSource } from "./narrative.js";
import type { BaselineNote, CoverageInput, Depth, EngineFinding, HostData, InvestigationOptions, Report, Row, RoutePlan } from "./types.js";

export { diffFindings, findingKey, markNewFindings, type FindingDiff } from "./diff.js";
export { tableTtlSeconds } from "./freshness.js";

interface Scored {
  finding: EngineFinding;
  scored: ScoredSeverity;
  detection: Detection;
  links: string[];
  fingerprint: string;
  /** The hit's fleet keys under its detection's id (fleet-common.ts); empty when it does not take part. */
  fleetKeys: string[];
}

/** Runs a detection; malformed rows that make it throw become a coverage gap instead of a failed investigation. */
function safeEvaluate(det: Detection, host: HostData, ctx: { entities: RoutePlan["entities"] }, errors: string[]): DetectionHit[] {
  try {
    return det.evaluate(host, ctx);
  } catch (err) {
    errors.push(`${det.id} could not evaluate the rows of ${host.hostname} (${host.agent_id}): ${err instanceof Error ? err.message : String(err)}.`);
    return [];
  }
}

/**
 * One host's detection hits, scored (unsorted), with the baseline notes and evaluation errors it gave. Hits that are
 * findings only by comparison with the host's peers go to `peers` instead (peer-outliers.ts).
 */
function evaluateHost(plan: RoutePlan, host: HostData, detections: readonly Detection[], errors: string[], notes: BaselineNotes, peers: PeerOutliers): Scored[] {
  const out: Scored[] = [];
  const ctx = { entities: plan.entities };
  for (const det of detections) {
    for (const hit of safeEvaluate(det, host, ctx, errors)) {
      if (hit.kept_by !== undefined) {
        notes.add({ detection_id: det.id, agent_id: host.agent_id, hostname: host.hostname, baseline: hit.kept_by, summary: flat(boundSummary(hit.summary)) });
        continue;
      }
      if (hit.peer !== undefined) {
        peers.add(det, host, hit);
        continue;
      }
      out.push(toScored(plan, det, host, hit, errors));
    }
  }
  return exact(out);
}

/** A hit as a scored finding, its evidence bounded. */
function toScored(plan: RoutePlan, det: Detection, host: HostData, hit: DetectionHit, errors: string[]): Scored {
  const scored = scoreFinding(det, hit, host, plan.entities);
  const evidence = boundEvidence(hit.evidence, host.collected_at);
  if (evidence.left > 0) {
    errors.push(`${det.id} on ${host.hostname} (${host.agent_id}): ${evidence.left} of ${hit.evidence.length} evidence rows left out of its finding (a finding carries at most ${EVIDENCE_MAX_BYTES / 1024} KB of rows).`);
  }
  const finding: EngineFinding = {
    detection_id: det.id,
    title: det.title,
    severity: scored.severity,
    confidence: Math.round(det.precision * 100) / 100,
    agent_id: host.agent_id,
    hostname: host.hostname,
    summary: flat(boundSummary(hit.summary)),
    evidence: exact(evidence.kept),
    attack: (hit.attack ?? det.attack).slice(),
  };
  const fleetKeys = fleetKeysOf(det.id, hit.fleet_key).map(flat);
  return { finding, scored, detection: det, links: exact(linkKeys(hit)), fingerprint: flat(evidenceFingerprint(finding)), fleetKeys: exact(fleetKeys) };
}

/** The peer-compared hits that are outliers, as findings whose summary says how the host's peers stand. */
function peerFindings(plan: RoutePlan, peers: PeerOutliers, errors: string[]): Scored[] {
  return peers.outliers().map(({ detection, host, hit, share }) => {
    const peersSay = `${share.majorityHosts} of the ${share.of} hosts compared with it have ${share.majority.slice(0, 16)}…${share.hosts > 1 ? `; ${share.hosts} hosts have this one` : "; no other host has this one"}.`;
    return toScored(plan, detection, host, { ...hit, summary: `${hit.summary} ${peersSay}`, peer: undefined }, errors);
  });
}

/**
 * The array at its length. V8 gives an array 17 slots at its first push; the arrays a run keeps per finding and per
 * host (evidence, links, the host's findings and errors) held 3 MB of empty slots over 10,000 hosts.
 */
function exact<T>(items: T[]): T[] {
  return items.length === 0 ? [] : items.slice();
}

/** Most severe first, then a total order of what tells findings apart (the report's order). */
function byReportOrder(a: Scored, b: Scored): number {
  return (
    bySeverityDesc(a.finding.severity, b.finding.severity) ||
    compareText(a.finding.detection_id, b.finding.detection_id) ||
    compareText(a.finding.agent_id, b.finding.agent_id) ||
    compareText(a.fingerprint, b.fingerprint) ||
    compareText(a.finding.summary, b.finding.summary)
  );
}

function runPathfinder(plan: RoutePlan, hosts: readonly HostData[], scored: readonly Scored[], depth: Depth, options: InvestigationOptions): { result: PathfinderResult; seedSource: SeedSource } {
  const graph = buildGraph([...hosts], options.directory ?? []);
  const flagged = new Set<string>();
  for (const s of scored) for (const e of s.finding.evidence) for (const id of nodesForEvidence(graph, s.finding.agent_id, e.table, e.row)) flagged.add(id);
  const fromEntities = seedsFromEntities(graph, plan.entities);
  if (fromEntities.length > 0) return { result: findPaths(graph, fromEntities, depth, flagged), seedSource: "entities" };
  if (flagged.size > 0) return { result: findPaths(graph, [...flagged], depth, flagged), seedSource: "findings" };
  return { result: findPaths(graph, lateralSeeds(graph), depth, flagged), seedSource: "lateral" };
}

/** Hosts whose tags carry every `key=value` named in the question (all hosts when none was named). */
function inTagScope(host: HostData, tags: Record<string, string>): boolean {
  return Object.entries(tags).every(([k, v]) => host.tags[k] === v);
}

/** The host with each table it returned, empty: what coverage reads once the detections ran. */
function withoutRows(host: HostData, shared: Map<string, HostData["tables"]>): HostData {
  const names = Object.keys(host.tables);
  const key = names.join("\n");
  let tables = shared.get(key);
  if (!tables) {
    // One frozen object per set of tables returned, shared by every host that returned that set.
    const none = Object.freeze([]) as unknown as Row[];
    tables = Object.freeze(Object.fromEntries(names.map((t) => [t, none])));
    shared.set(key, tables);
  }
  return { ...host, tables };
}

/** A host in the question's tag scope, as the investigation holds it: its rows and what they gave. */
interface HostResult {
  host: HostData;
  scored: Scored[];
  errors: string[];
}

/**
 * An investigation fed one host at a time, as each host's rows arrive, and finished once collection ends. Each
 * host's detections run when it is added, so most of the work is done while the other hosts are still answering;
 * what needs every host (ordering, severity, coverage, the pathfinder's cross-host graph) waits for `finish`. The
 * report depends only on the set of hosts added, not on the order they came in: it is runInvestigation's.
 */
export class InvestigationRun {
  private readonly detections: Detection[];
  private readonly results: HostResult[] = [];
  private readonly notes = new BaselineNotes();
  /** Hits judged against the host's peers once every host is in (peer-outliers.ts). */
  private readonly peers = new PeerOutliers();
  /** The emptied tables of hosts kept without their rows, one object per set of tables (withoutRows). */
  private readonly emptied = new Map<string, HostData["tables"]>();
  /** Hosts added, in the tag scope or not. */
  private seen = 0;

  constructor(private readonly plan: RoutePlan) {
    this.detections = [...new Set(plan.detection_ids)]
      .sort()
      .map((id) => getDetection(id))
      .filter((d): d is Detection => d !== undefined);
  }

  /** Runs the plan's detections over one host's rows; a host outside the question's tag scope is only counted. */
  add(host: HostData): void {
    this.seen++;
    if (!inTagScope(host, this.plan.entities.tags)) return;
    const errors: string[] = [];
    const scored = evaluateHost(this.plan, host, this.detections, errors, this.notes, this.peers);
    // Once its detections ran, only the pathfinder reads a host's rows (findings keep the rows they cite); without
    // it, the host is kept as who it is and which tables it returned (coverage), not 10,000 hosts' rows.
    this.results.push({ host: this.plan.route === "detections" ? withoutRows(host, this.emptied) : host, scored, errors: exact(errors) });
  }

  /** The report over every host added. */
  finish(coverage: CoverageInput, depth: Depth, options: InvestigationOptions = {}): Report {
    // Hosts in agent order (ties in the order they came), so nothing below depends on arrival order.
    const inScope = [...this.results].sort((a, b) => compareText(a.host.agent_id, b.host.agent_id));
    const peerErrors: string[] = [];
    const { scored, notes } = withoutFleetCommon(
      inScope.map((r) => r.host),
      [...inScope.flatMap((r) => r.scored), ...peerFindings(this.plan, this.peers, peerErrors)],
    );
    return assemble(this.plan, {
      hosts: inScope.map((r) => r.host),
      hostsSeen: this.seen,
      detections: this.detections,
      scored: scored.sort(byReportOrder),
      errors: [...inScope.flatMap((r) => r.errors), ...peerErrors],
      notes: [...this.notes.sorted(), ...notes].sort(byNoteOrder),
      coverage,
      depth,
      options,
    });
  }
}

/** The findings without those most hosts of the scope share (fleet-common.ts), and those as baseline notes. */
function withoutFleetCommon(hosts: readonly HostData[], all: Scored[]): { scored: Scored[]; notes: BaselineNote[] } {
  const common = fleetCommon(
    hosts,
    all.map((s) => ({ agent_id: s.finding.agent_id, keys: s.fleetKeys, table: s.finding.evidence[0]?.table ?? "" })),
  );
  if (common.size === 0) return { scored: all, notes: [] };
  const notes = new BaselineNotes();
  const scored: Scored[] = [];
  for (const s of all) {
    const share = s.fleetKeys.map((k) => common.get(k)).find((c) => c !== undefined);
    if (share === undefined) {
      scored.push(s);
      continue;
    }
    const f = s.finding;
    notes.add({ detection_id: f.detection_id, agent_id: f.agent_id, hostname: f.hostname, baseline: FLEET_COMMON_BASELINE, summary: fleetCommonSummary(f.summary, share) });
  }
  return { scored, notes: notes.sorted() };
}

export function runInvestigation(plan: RoutePlan, hosts: HostData[], coverage: CoverageInput, depth: Depth, options: InvestigationOptions = {}): Report {
  const run = new InvestigationRun(plan);
  for (const host of hosts) run.add(host);
  return run.finish(coverage, depth, options);
}

interface Evaluated {
  /** The hosts in the question's tag scope, in agent order. */
  hosts: HostData[];
  /** Every host that answered, in scope or not. */
  hostsSeen: number;
  detections: Detection[];
  /** In report order. */
  scored: Scored[];
  errors: string[];
  notes: BaselineNote[];
  coverage: CoverageInput;
  depth: Depth;
  options: InvestigationOptions;
}

function assemble(plan: RoutePlan, e: Evaluated): Report {
  const { hosts, detections, scored, errors, notes, coverage, depth, options } = e;
  const outOfScope = e.hostsSeen - hosts.length;
  const findings = scored.map((s) => s.finding);

  const walk = plan.route === "detections" ? null : runPathfinder(plan, hosts, scored, depth, options);
  const pathfinder = walk?.result ?? null;
  const queried = new Set(hosts.map((h) => h.agent_id));
  const proposed = (pathfinder?.reached_agents ?? []).filter((a) => !queried.has(a));

  const inv = investigationSeverity(scored.map((s) => ({ detection_id: s.finding.detection_id, agent_id: s.finding.agent_id, severity: s.finding.severity, links: s.links })));
  const cov = coverageSummary(plan.tables, hosts, coverage, detections, e.hostsSeen);
  const unknown = plan.detection_ids.filter((id) => getDetection(id) === undefined);
  const gaps = [...cov.gaps, ...errors, ...(unknown.length > 0 ? [`Unknown detection ids in the plan were skipped: ${unknown.join(", ")}.`] : [])];
  const verdict = verdictFor(inv.severity, findings.length, { coverage, hostsWithRows: hosts.length, tableCoverage: cov.tableCoverage });

  const byId = new Map(detections.map((d) => [d.id, d] as const));
  const unreachable = [...coverage.unreachable].map((u) => u.agent_id).sort();
  return {
    route: plan.route,
    routing_rationale: [...plan.routing_rationale],
    findings,
    severity: inv.severity,
    verdict,
    narrative: buildNarrative({
      plan,
      depth,
      coverage,
      hostsExamined: hosts.length,
      hostsOutOfTagScope: outOfScope,
      seedSource: walk?.seedSource ?? null,
      findings,
      pathfinder,
      gaps,
      severity: inv.severity,
      severityReason: inv.reason,
      verdict,
      proposedAgents: proposed,
    }),
    severity_inputs: scored.map((s) => ({
      detection_id: s.finding.detection_id,
      agent_id: s.finding.agent_id,
      impact: s.scored.impact,
      precision: s.scored.precision,
      asset_weight: s.scored.asset_weight,
      score: s.scored.score,
      base_severity: s.scored.base_severity,
      maturity: s.detection.maturity,
      exact_ioc: s.scored.exact_ioc,
      severity: s.scored.severity,
    })),
    paths: pathfinder?.paths ?? [],
    coverage_gaps: gaps,
    next_steps: buildNextSteps({ findings, detections: byId, unreachable, proposedAgents: proposed, missingTables: cov.missingTables.size }),
    proposed_scope: proposed.length > 0 ? { type: "selector", filter: { agent_ids: proposed } } : null,
    choke_points: pathfinder?.choke_points ?? [],
    timeline: buildTimeline(findings),
    severity_reason: inv.reason,
    baseline_notes: notes,
  };
}

