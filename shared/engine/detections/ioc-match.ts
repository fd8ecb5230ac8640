// Exact matches of the indicators named in the question (IPs, sha256, paths) against the rows.
import { rowsOf, str } from "../rows.js";
import { normalizeIp } from "../net.js";
import type { HostData } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

/** Where each kind of indicator can appear: table -> columns. */
const IP_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  process_open_sockets: ["remote_address"],
  last: ["host"],
  logged_in_users: ["host"],
  etc_hosts: ["address"],
};
const PATH_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  processes: ["path"],
  hash: ["path"],
  suid_bin: ["path"],
};

function scan(host: HostData, columns: Readonly<Record<string, readonly string[]>>, wanted: (value: string) => string | undefined): Map<string, EvidenceRow[]> {
  const found = new Map<string, EvidenceRow[]>();
  for (const table of Object.keys(columns).sort()) {
    for (const row of rowsOf(host, table)) {
      for (const column of columns[table] ?? []) {
        const ioc = wanted(str(row, column));
        if (ioc !== undefined) found.set(ioc, [...(found.get(ioc) ?? []), { table, row }]);
      }
    }
  }
  return found;
}

export const iocMatch = defineDetection({
  id: "ioc-match",
  title: "Indicator from the question found",
  reads: { processes: ["path"], process_open_sockets: ["remote_address"], hash: ["path", "sha256"], last: ["host"], logged_in_users: ["host"], etc_hosts: ["address"], suid_bin: ["path"] },
  severity: "high",
  attack: [],
  maturity: "stable",
  category: "indicator",
  keywords: [],
  false_positives: "Indicators that are shared infrastructure (CDN or cloud addresses) rather than attacker-owned.",
  advice: {
    triage: ["Confirm the indicator's provenance (threat report, alert) and its first and last sighting on {hosts}."],
    containment: ["Block the indicator at the egress and isolate {hosts} if it is attacker infrastructure."],
    investigation: ["Follow the indicator through the pathfinder to the processes and hosts it touches."],
    remediation: ["Add the indicator to the blocklist and to standing questions."],
  },
  exact_ioc: true,
  evaluate(host, ctx) {
    if (!ctx) return [];
    const ips = new Set(ctx.entities.ips.map(normalizeIp));
    const hashes = new Set(ctx.entities.sha256.map((h) => h.toLowerCase()));
    const paths = ctx.entities.paths.filter((p) => p.length > 1);
    const hits: DetectionHit[] = [];
    const emit = (kind: string, found: Map<string, EvidenceRow[]>): void => {
      for (const ioc of [...found.keys()].sort()) {
        const evidence = found.get(ioc) ?? [];
        hits.push({
          summary: `The ${kind} ${ioc} from the question appears in ${evidence.length} row${evidence.length === 1 ? "" : "s"} (${[...new Set(evidence.map((e) => e.table))].join(", ")}).`,
          evidence,
          entity: `${kind === "address" ? "ip" : kind === "hash" ? "sha256" : "path"}:${ioc}`,
        });
      }
    };
    if (ips.size > 0) emit("address", scan(host, IP_COLUMNS, (v) => (ips.has(normalizeIp(v)) ? normalizeIp(v) : undefined)));
    if (hashes.size > 0) emit("hash", scan(host, { hash: ["sha256"] }, (v) => (hashes.has(v.toLowerCase()) ? v.toLowerCase() : undefined)));
    if (paths.length > 0) {
      emit("path", scan(host, PATH_COLUMNS, (v) => paths.find((p) => v === p || v.startsWith(p.endsWith("/") ? p : `${p}/`))));
    }
    return hits;
  },
});
