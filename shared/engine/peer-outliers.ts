// Peer comparison: what one host has where its peers agree on something else. A detection marks a hit with a `peer`
// group and value (a system binary's path and owning package version, and the binary's hash); the hit is a finding
// only when most hosts of the scope in that group share one value, at least PEER_MAJORITY_MIN of them, and this
// host's value is held by very few (at most PEER_OUTLIER_MAX hosts, and at most a tenth of the group). Everything
// else is dropped: a value most hosts share is the package's binary, and a group of hosts that disagree among
// themselves (local builds, a fleet mid-upgrade) says nothing about any one of them.
//
// Hosts are added one at a time and their rows are let go (report.ts keeps 10,000 hosts' findings, not their rows):
// per group and value this keeps a count and the first few hits, enough to report every outlier.
import type { Detection, DetectionHit } from "./detections/detection.js";
import type { HostData } from "./types.js";

export const PEER_MAJORITY_MIN = 3;
export const PEER_OUTLIER_MAX = 5;
/**
 * Distinct values per group whose hits are kept. Past it values are only counted: a group with hundreds of distinct
 * hashes (every host its own build) has no majority worth comparing with, and keeps no memory per host.
 */
export const PEER_VALUES_KEPT = 64;

export interface PeerHit {
  detection: Detection;
  host: HostData;
  hit: DetectionHit;
}

export interface PeerShare {
  /** Hosts in the group. */
  of: number;
  /** The value most of them hold, and how many do. */
  majority: string;
  majorityHosts: number;
  /** Hosts that hold this hit's value. */
  hosts: number;
}

interface ValueEntry {
  hosts: number;
  kept: PeerHit[];
}

export class PeerOutliers {
  private readonly groups = new Map<string, Map<string, ValueEntry>>();

  /** A hit with `peer` set, from a host whose rows may be dropped after this call (`host` is kept without them). */
  add(detection: Detection, host: HostData, hit: DetectionHit): void {
    const peer = hit.peer;
    if (peer === undefined) return;
    const key = `${detection.id}\n${peer.group}`;
    const values = this.groups.get(key) ?? new Map<string, ValueEntry>();
    this.groups.set(key, values);
    const entry = values.get(peer.value) ?? { hosts: 0, kept: [] };
    const keep = values.has(peer.value) || values.size < PEER_VALUES_KEPT;
    values.set(peer.value, entry);
    entry.hosts++;
    if (keep && entry.kept.length < PEER_OUTLIER_MAX) entry.kept.push({ detection, host: { ...host, tables: {} }, hit });
  }

  /** Every outlier hit with how its group stands. */
  outliers(): Array<PeerHit & { share: PeerShare }> {
    const out: Array<PeerHit & { share: PeerShare }> = [];
    for (const values of this.groups.values()) {
      let of = 0;
      let majority = "";
      let majorityHosts = 0;
      for (const [value, entry] of values) {
        of += entry.hosts;
        if (entry.hosts > majorityHosts || (entry.hosts === majorityHosts && value < majority)) [majority, majorityHosts] = [value, entry.hosts];
      }
      if (majorityHosts < PEER_MAJORITY_MIN || majorityHosts * 2 <= of) continue;
      const rare = Math.min(PEER_OUTLIER_MAX, Math.max(1, Math.floor(of / 10)));
      for (const [value, entry] of values) {
        if (value === majority || entry.hosts > rare) continue;
        for (const h of entry.kept) out.push({ ...h, share: { of, majority, majorityHosts, hosts: entry.hosts } });
      }
    }
    return out;
  }
}
