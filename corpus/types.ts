// The evaluation corpus: small simulated fleets, each planted with one attack or one benign look-alike, and the
// questions an analyst would ask about it. Scored per host: a compromised host is found when a finding of severity
// low or higher on it has evidence naming one of its planted artifacts; precision counts findings (>= low) that sit
// on compromised hosts. Nothing here knows the engine's detection ids: labels are hosts and artifacts, as an
// independent corpus would have them.
import type { HostData } from "../shared/engine/index.js";

/** How a question is phrased: named technique, reworded, open-ended, or naming an indicator. */
export type Phrasing = "direct" | "paraphrase" | "open" | "indicator";
export const PHRASINGS: readonly Phrasing[] = ["direct", "paraphrase", "open", "indicator"];

/** calibrate: detections may be tuned on it. holdout: never looked at while tuning; the reported figure. */
export type Split = "calibrate" | "holdout";

export interface CorpusHost extends HostData {
  /** True when something was planted on this host (it should be found). */
  compromised: boolean;
  /**
   * Strings that name what was planted (a path, a process name, an address, a key comment, a module name...).
   * A finding names the artifact when any evidence row value contains one of these (case-sensitive).
   * Empty on clean hosts.
   */
  artifacts: string[];
}

export interface CorpusQuestion {
  text: string;
  phrasing: Phrasing;
}

export interface Scenario {
  /** Stable id, e.g. `atk-kinsing-web-03` or `ben-node-exporter-07`. */
  id: string;
  /** Attack or look-alike family, e.g. `kinsing`, `webshell`, `dkms-module`. */
  family: string;
  kind: "attack" | "benign";
  /** ATT&CK technique ids the planted activity exercises (attack scenarios). */
  attack: string[];
  /** Public sources the scenario's facts come from (Atomic Red Team test, Sigma rule, write-up, osquery pack...). */
  sources: string[];
  split: Split;
  hosts: CorpusHost[];
  questions: CorpusQuestion[];
}
