// Stacking: what most hosts of a question's scope share is how that fleet is configured, not an intrusion on each of
// them. A posture detection marks a hit with a `fleet_key` (the thing that would be the same on every host configured
// alike: a sudoers rule in its file, a module's name, the program holding a port); once every host has been
// evaluated, a key held by more than half the hosts that returned its table, and by at least FLEET_COMMON_MIN_HOSTS,
// turns those hits into baseline notes (`fleet:common`) instead of findings.
//
// Only hits a detection marks take part, and detections mark only what configuration management puts everywhere:
// never a known-bad name, a temp-directory program, a shell on a port, or anything else that is suspicious however
// many hosts have it (a worm on every host is still found by its behaviour). A fleet of one or two hosts has no
// majority to learn from: nothing is kept quiet there.

/** The fewest hosts sharing a key before it counts as the fleet's configuration. */
export const FLEET_COMMON_MIN_HOSTS = 3;
export const FLEET_COMMON_BASELINE = "fleet:common";

export interface FleetHit {
  agent_id: string;
  /** The hit's fleet keys under its detection's id (fleetKeysOf); empty when the hit does not take part. */
  keys: readonly string[];
  /** The table whose rows the key is about (the hit's first evidence row's). */
  table: string;
}

export interface FleetShare {
  hosts: number;
  of: number;
  table: string;
}

/**
 * A hit's `fleet_key` (one key, or several ways it may be the same as its peers') as a Scored entry keeps them: each
 * under the detection's id, so two detections' keys never meet.
 */
export function fleetKeysOf(detectionId: string, key: string | readonly string[] | undefined): string[] {
  const keys = key === undefined ? [] : typeof key === "string" ? [key] : [...key];
  return keys.filter((k) => k !== "").map((k) => `${detectionId}\n${k}`);
}

/**
 * The keys most hosts share, with how many hosts hold each and of how many that returned its table. `hosts` are the
 * hosts of the scope with the tables they returned (rows or not); each host counts once per key.
 */
export function fleetCommon(hosts: ReadonlyArray<{ tables: Readonly<Record<string, unknown>> }>, hits: Iterable<FleetHit>): Map<string, FleetShare> {
  const holders = new Map<string, { agents: Set<string>; table: string }>();
  for (const h of hits) {
    for (const key of h.keys) {
      const entry = holders.get(key) ?? { agents: new Set<string>(), table: h.table };
      entry.agents.add(h.agent_id);
      holders.set(key, entry);
    }
  }
  const common = new Map<string, FleetShare>();
  if (holders.size === 0) return common;
  const returned = new Map<string, number>();
  const ofTable = (table: string): number => {
    let n = returned.get(table);
    if (n === undefined) {
      n = hosts.reduce((count, host) => (host.tables[table] !== undefined ? count + 1 : count), 0);
      returned.set(table, n);
    }
    return n;
  };
  for (const [key, { agents, table }] of holders) {
    const of = ofTable(table);
    if (agents.size >= FLEET_COMMON_MIN_HOSTS && agents.size * 2 > of) common.set(key, { hosts: agents.size, of, table });
  }
  return common;
}

/** The note's sentence: the hit's own, then why it is not a finding. */
export function fleetCommonSummary(summary: string, share: FleetShare): string {
  return `${summary} The same on ${share.hosts} of the ${share.of} hosts that returned ${share.table}: how this fleet is configured, not a finding on one host.`;
}
