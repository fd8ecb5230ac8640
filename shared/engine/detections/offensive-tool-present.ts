// Post-exploitation tools present on a host by file name: on disk (osquery's hash and file tables) or running
// (processes). The names come from intel/offensive-tools.ts, each with its public source; Sigma's Linux hack-tool
// rules (proc_creation_lnx_susp_hktl_execution) match the same kind of names. Names are weaker than hashes: a
// renamed copy escapes, and an admin's own pentest kit matches, so a file on disk is medium and a running tool high,
// never critical (critical needs a known-bad hash: known-bad-hash.ts).
import { offensiveToolFile, tunnelByArguments, type OffensiveTool } from "../intel/offensive-tools.js";
import { basename, rowsOf, str } from "../rows.js";
import type { Row } from "../types.js";
import { compareText } from "../order.js";
import { offensiveSecurityHost } from "../baselines/host-roles.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

const INTERPRETER = /^(?:ba|da|z|k)?sh$|^python[\d.]*$|^perl$|^ruby$/;

interface Sighting {
  tool: string;
  source: string;
  running: boolean;
  evidence: EvidenceRow[];
}

export const offensiveToolPresent = defineDetection({
  id: "offensive-tool-present",
  title: "Post-exploitation tool on the host",
  reads: {
    processes: ["pid", "name", "path", "cmdline"],
    hash: ["path", "sha256"],
    file: ["path", "size", "mtime"],
  },
  severity: "medium",
  attack: ["T1588.002", "T1105"],
  maturity: "test",
  category: "indicator",
  false_positives: "A penetration test or red-team exercise in progress; a security engineer's own toolkit (tag the host's owner and exercise window before running).",
  advice: {
    triage: ["Hash the tool's file on {hosts} and check who put it there (file owner, shell history, package database)."],
    containment: ["Kill a running tool and isolate {hosts} if no test was scheduled."],
    investigation: ["Look for what the tool did: tunnels (connections), dumped credentials, scans from {hosts} to other hosts."],
    remediation: ["Remove the tool; rotate credentials that were on {hosts} if a credential dumper ran."],
  },
  evaluate(host) {
    const byPath = new Map<string, Sighting>();
    const see = (path: string, table: string, row: Row, running: boolean, known?: OffensiveTool): void => {
      const tool = known ?? offensiveToolFile(path);
      if (tool === undefined) return;
      if (byPath.has(path) === false && byPath.size >= 20) return;
      const s = byPath.get(path) ?? { tool: tool.name, source: tool.source, running: false, evidence: [] };
      s.running ||= running;
      if (s.evidence.length < 4) s.evidence.push({ table, row });
      byPath.set(path, s);
    };
    for (const row of rowsOf(host, "processes")) {
      const argv = str(row, "cmdline").split(/\s+/);
      const exe = str(row, "path") || (argv[0] ?? "");
      see(exe, "processes", row, true);
      // Renamed, a tunnel is still known by the arguments only it takes.
      const tunnel = tunnelByArguments(argv.slice(1));
      if (tunnel !== undefined) see(exe, "processes", row, true, tunnel);
      // A script run by its interpreter: bash /root/mimipenguin.sh, python3 laZagne.py all.
      if (INTERPRETER.test(basename(exe))) see(argv.slice(1).find((a) => !a.startsWith("-")) ?? "", "processes", row, true);
    }
    for (const row of rowsOf(host, "hash")) see(str(row, "path"), "hash", row, false);
    for (const row of rowsOf(host, "file")) see(str(row, "path"), "file", row, false);
    const hits: DetectionHit[] = [];
    const offsec = offensiveSecurityHost(host.tags);
    for (const [path, s] of [...byPath.entries()].sort(([a], [b]) => compareText(a, b))) {
      if (offsec) {
        hits.push({ summary: `${path} is ${s.tool}${s.running ? ", running" : " (on disk)"}, on a host ${offsec.source} (${s.source}).`, evidence: s.evidence, entity: `path:${path}`, kept_by: offsec.baseline });
        continue;
      }
      hits.push({
        summary: `${path} is ${s.tool}, a post-exploitation tool${s.running ? ", and it is running" : " (on disk)"} (${s.source}).`,
        evidence: s.evidence,
        entity: `path:${path}`,
        ...(s.running ? { severity: "high" as const } : {}),
      });
    }
    return hits;
  },
});
