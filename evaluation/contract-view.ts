// The corpus as a fleet that carries only the contract's core tables (the osquery tables every agent reports:
// docs/telemetry.md), without augeas, file, process_memory_map, docker_container_mounts and the rest. An independent
// fleet may not carry the extra tables, so the evaluation also reports this view: the drop shows how much recall rests
// on them. A compromised host whose artifacts all live in removed tables is not counted (nothing left to find).
import type { CorpusHost, Scenario } from "../corpus/types.js";
import { CORE_TABLES } from "../shared/engine/core-tables.js";


function contains(host: CorpusHost, needle: string): boolean {
  for (const rows of Object.values(host.tables)) for (const r of rows) for (const v of Object.values(r)) if (String(v).includes(needle)) return true;
  return false;
}

export function contractView(corpus: readonly Scenario[]): Scenario[] {
  return corpus.map((s) => ({
    ...s,
    hosts: s.hosts.map((h) => {
      const tables = Object.fromEntries(Object.entries(h.tables).filter(([t]) => CORE_TABLES.has(t)));
      const stripped: CorpusHost = { ...h, tables };
      const artifacts = h.artifacts.filter((a) => contains(stripped, a));
      return { ...stripped, artifacts, compromised: h.compromised && artifacts.length > 0 };
    }),
  }));
}
