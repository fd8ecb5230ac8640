// What a detection is: metadata, the logic, and its measured precision/recall from the calibration table.
import type { HostData, Maturity, NextSteps, QueryEntities, Row, Severity } from "../types.js";
import { CALIBRATION } from "./calibration.js";

/** ATT&CK tactic a detection mostly speaks to; "persistence" drives the lexicon word "persistence". */
export type Category =
  | "persistence"
  | "execution"
  | "defense-evasion"
  | "privilege-escalation"
  | "command-and-control"
  | "impact"
  | "lateral-movement"
  | "exfiltration"
  | "credential-access"
  | "initial-access"
  | "vulnerability"
  | "indicator";

export interface EvidenceRow {
  table: string;
  row: Row;
}

export interface DetectionHit {
  summary: string;
  evidence: EvidenceRow[];
  /** Overrides the detection's default severity for this hit. */
  severity?: Severity;
  attack?: string[];
  /** The entity the hit is about (`pid:123`, `ip:1.2.3.4`, `user:root`, `path:/tmp/x`, `sshkey:<fp>`). */
  entity?: string;
  /**
   * The hit matches curated known-bad intelligence (a known malware hash, a known rootkit module name): the one
   * thing besides independent detections agreeing that lets a finding reach critical.
   */
  known_bad?: boolean;
  /**
   * Set when a benign baseline explains what would otherwise be flagged: the hit is not a finding; the report lists
   * it under `baseline_notes` so an analyst sees which baseline kept it quiet. The value is the baseline's id.
   */
  kept_by?: string;
  /**
   * What this hit would share with every host configured alike (a sudoers rule in its file, a module's name, the
   * program on a port; several when there are several ways to be the same), for hits that are configuration when
   * most of the fleet has them: such hits become baseline
   * notes (`fleet:common`) when most hosts of the scope hold the same key (shared/engine/fleet-common.ts). Absent on
   * anything suspicious however many hosts have it.
   */
  fleet_key?: string | readonly string[];
  /**
   * A hit that is a finding only when this host's `value` is rare among the scope's hosts of the same `group`
   * (shared/engine/peer-outliers.ts): a system binary's hash among hosts that run the same package version. Hits whose
   * value most peers share, or that have too few peers to compare with, are dropped.
   */
  peer?: { group: string; value: string };
}

/** What the question contributes (entities named in it: IOCs, advisories). */
export interface DetectionContext {
  entities: QueryEntities;
}

export interface DetectionSpec<Id extends string = string> {
  id: Id;
  title: string;
  /**
   * The osquery tables and columns the logic reads (table -> columns). Every one must exist in osquery's Linux
   * schema (reference/osquery-linux-schema.json); a test checks both that and that the logic reads nothing else.
   */
  reads: Readonly<Record<string, readonly string[]>>;
  severity: Severity;
  attack: readonly string[];
  maturity: Maturity;
  category: Category;
  false_positives: string;
  /** Advice for the report's next steps; `{hosts}` is replaced with the affected hostnames. */
  advice: Partial<NextSteps>;
  /** The host tag that carries this detection's baseline (its absence is a coverage gap). */
  baseline_tag?: string;
  evaluate(host: HostData, ctx?: DetectionContext): DetectionHit[];
}

export interface Detection<Id extends string = string> extends DetectionSpec<Id> {
  /** The tables of `reads`, sorted (what a plan asks the agents for). */
  tables: readonly string[];
  /** Measured on the scenario corpus (scenarios/); 0.5 prior when the detection is not calibrated yet. */
  precision: number;
  recall: number;
  calibrated: boolean;
}

export const UNCALIBRATED_PRECISION = 0.5;

export function defineDetection<const Id extends string>(spec: DetectionSpec<Id>): Detection<Id> {
  const measured = CALIBRATION[spec.id];
  return {
    ...spec,
    tables: Object.keys(spec.reads).sort(),
    precision: measured?.precision ?? UNCALIBRATED_PRECISION,
    recall: measured?.recall ?? 0,
    calibrated: measured !== undefined,
  };
}

/** Human wording for a category (exhaustive: a new category must be worded here). */
export function categoryLabel(category: Category): string {
  switch (category) {
    case "persistence":
      return "persistence";
    case "execution":
      return "suspicious execution";
    case "defense-evasion":
      return "defense evasion";
    case "privilege-escalation":
      return "privilege escalation";
    case "command-and-control":
      return "command and control";
    case "impact":
      return "resource hijacking";
    case "lateral-movement":
      return "lateral movement";
    case "exfiltration":
      return "unexpected egress";
    case "credential-access":
      return "credential access";
    case "initial-access":
      return "initial access";
    case "vulnerability":
      return "vulnerable software";
    case "indicator":
      return "indicator match";
    default: {
      const unreachable: never = category;
      return unreachable;
    }
  }
}
