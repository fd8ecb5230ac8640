// The investigation engine's contract with the runner. The engine is pure: no I/O, no clock reads,
// no randomness. Same hosts + same question + same `now` => the same report, byte for byte.

import type { Severity } from "../severity.js";
export type { Severity } from "../severity.js";
export { SEVERITIES } from "../severity.js";

export type Depth = "quick" | "standard" | "deep";
export type Mode = "auto" | "cached" | "live";
export type Route = "detections" | "pathfinder" | "both";
export type Verdict = "malicious" | "suspicious" | "benign" | "inconclusive";
export type Maturity = "experimental" | "test" | "stable";

/** One osquery-shaped row. Column values are strings or numbers as osquery would emit them. */
export type Row = Record<string, unknown>;

/** What one agent returned (live plan answer) or its latest snapshot (cached). */
export interface HostData {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  /** RFC 3339 UTC time the rows were collected. */
  collected_at: string;
  tables: Record<string, Row[]>;
  /** Tables the agent says it cut short (a row cap, its message size): their rows are partial. */
  truncated?: string[];
}

export interface Evidence {
  table: string;
  row: Row;
  collected_at: string;
}

/** A finding as the engine produces it; the runner adds `finding_id`. */
export interface EngineFinding {
  detection_id: string;
  title: string;
  severity: Severity;
  /** 0..1, from the detection's measured precision. */
  confidence: number;
  agent_id: string;
  hostname: string;
  summary: string;
  evidence: Evidence[];
  attack: string[];
  path?: string[];
}

/** Entities pulled out of the question text. */
export interface QueryEntities {
  ips: string[];
  sha256: string[];
  advisories: string[];
  users: string[];
  ports: number[];
  paths: string[];
  /** Domains named in the question: the host of a URL, or a bare name under a public suffix (webhook.site). */
  domains: string[];
  /**
   * File names named bare, as threat reports give them (`libkeyutils.so.1.3.2`, `pam_sso_cache.so`, `kinsing.sh`):
   * matched against the last component of paths (absent in plans made before they were extracted).
   */
  files?: string[];
  /**
   * Cloud access key ids named in the question (AWS `AKIA...`/`ASIA...`, as GuardDuty and CloudTrail report them):
   * looked for as tokens in command lines, cron and shell history (absent in plans made before they were extracted).
   */
  access_keys?: string[];
  tags: Record<string, string>;
}

export interface RoutePlan {
  route: Route;
  detection_ids: string[];
  /** Every table the chosen detections and the pathfinder need (sorted, unique). */
  tables: string[];
  entities: QueryEntities;
  /** Human-readable reasons: which words matched which detection, or that the posture bundle ran. */
  routing_rationale: string[];
  /** The question as asked (set by routeQuery; used in the narrative). */
  query?: string;
  /** True when nothing specific was asked and every detection family ran (the broad sweep). */
  sweep?: boolean;
}

export interface CoverageInput {
  mode: Mode;
  agents_targeted: number;
  agents_responded: number;
  /** Agents in scope that gave no rows (offline, timed out, no snapshot). */
  unreachable: Array<{ agent_id: string; hostname: string; reason: string }>;
}

export interface EvidencePath {
  nodes: string[];
  score: number;
  explanation: string;
  /** Each node as people read it (`kswapd0 (pid 31337) on web-02`), beside its id in `nodes`. */
  labels?: string[];
  /** The relation between nodes[i] and nodes[i + 1]; `forward` false when the path walks it backwards. */
  links?: Array<{ type: string; forward: boolean }>;
}

export interface NextSteps {
  triage: string[];
  containment: string[];
  investigation: string[];
  remediation: string[];
}

export interface Report {
  route: Route;
  routing_rationale: string[];
  findings: EngineFinding[];
  severity: Severity;
  verdict: Verdict;
  narrative: string;
  /** Inputs to the severity so anyone can recompute it. */
  severity_inputs: Array<{
    detection_id: string;
    agent_id: string;
    impact: number;
    precision: number;
    asset_weight: number;
    score: number;
    /** The detection's default (or the hit's own) severity the impact came from. */
    base_severity?: Severity;
    maturity?: Maturity;
    /** True when the finding rests on an exact indicator (known-bad hash, an entity named in the question). */
    exact_ioc?: boolean;
    /** The severity the rules produced for this finding. */
    severity?: Severity;
  }>;
  paths: EvidencePath[];
  coverage_gaps: string[];
  next_steps: NextSteps;
  /** Agents reached by the pathfinder but not yet queried: a live re-run target. */
  proposed_scope: { type: "selector"; filter: { agent_ids: string[] } } | null;
  /** Graph nodes that several evidence paths pass through. */
  choke_points?: string[];
  /** Dated events taken from the evidence rows (process starts, logins), oldest first. */
  timeline?: TimelineEvent[];
  /** Why the investigation severity is what it is (highest finding, linked-findings step). */
  severity_reason?: string;
  /** What a benign baseline (or a tuning tag) kept from being flagged, and which one. */
  baseline_notes?: BaselineNote[];
}

export interface BaselineNote {
  detection_id: string;
  agent_id: string;
  hostname: string;
  /** The baseline's id (`kernel-modules:debian-...`, `tag:allowed_ports`). */
  baseline: string;
  summary: string;
}

export interface TimelineEvent {
  /** RFC 3339 UTC. */
  time: string;
  agent_id: string;
  hostname: string;
  event: string;
  detection_id: string;
}

/** A known agent that may not have been queried (for mapping IPs to agents in the pathfinder). */
export interface AgentDirectoryEntry {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
}

export interface InvestigationOptions {
  /** Every known agent (queried or not); tag `ip` maps addresses to agents for `proposed_scope`. */
  directory?: AgentDirectoryEntry[];
}
