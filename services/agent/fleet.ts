// Simulated agents from a fleet file (docs/api.md#agents): each answers plans and snapshots with the rows the
// file gives it. Unknown tables and columns are kept.
import { readFileSync } from "node:fs";
import { Type, type Static } from "typebox";
import { iso, type Clock } from "../../shared/clock.js";
import { AGENT_ID_PATTERN } from "../../shared/nats/catalog.js";
import { checker } from "../../shared/validate.js";
import type { AgentIdentity, TelemetrySource, Tables } from "./agent.js";

export const FleetFile = Type.Object({
  agents: Type.Array(
    Type.Object({
      agent_id: Type.String({ pattern: AGENT_ID_PATTERN }),
      hostname: Type.String({ minLength: 1 }),
      tags: Type.Optional(Type.Record(Type.String(), Type.String())),
      edr_device_id: Type.Optional(Type.String()),
      online: Type.Optional(Type.Boolean()),
      snapshot_age_seconds: Type.Optional(Type.Number({ minimum: 0 })),
      tables: Type.Optional(Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())))),
    }),
  ),
});
export type FleetFile = Static<typeof FleetFile>;
export type FleetAgent = FleetFile["agents"][number];

const fleetChecker = checker(FleetFile);

export function loadFleetFile(path: string): FleetFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read fleet file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const checked = fleetChecker.check(parsed);
  if (!checked.ok) throw new Error(`fleet file ${path} is not valid: ${checked.details.map((d) => `${d.path} ${d.message}`).join("; ")}`);
  const ids = new Set<string>();
  for (const a of checked.value.agents) {
    if (ids.has(a.agent_id)) throw new Error(`fleet file ${path}: agent_id ${a.agent_id} appears twice`);
    ids.add(a.agent_id);
  }
  return checked.value;
}

export function fleetIdentity(a: FleetAgent): AgentIdentity {
  return { agent_id: a.agent_id, hostname: a.hostname, tags: a.tags ?? {}, edr_device_id: a.edr_device_id ?? null };
}

/** Rows from the file; snapshots are dated `snapshot_age_seconds` in the past, live answers now. */
export class FileTelemetry implements TelemetrySource {
  readonly snapshotTables: readonly string[];
  private snapshotTaken = false;

  constructor(private readonly agent: FleetAgent, private readonly clock: Clock) {
    this.snapshotTables = Object.keys(agent.tables ?? {});
  }

  async collect(tables: readonly string[]): Promise<{ collected_at: string; tables: Tables }> {
    const all = (this.agent.tables ?? {}) as Tables;
    const out: Tables = {};
    for (const t of tables) if (all[t]) out[t] = all[t];
    // The first collection is the start-up snapshot: it carries the file's age.
    const age = this.snapshotTaken ? 0 : (this.agent.snapshot_age_seconds ?? 0);
    this.snapshotTaken = true;
    return { collected_at: iso(this.clock.now() - age * 1000), tables: out };
  }
}
