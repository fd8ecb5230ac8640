// Files whose sha256 is on the known-bad list.
import { rowsOf, str } from "../rows.js";
import { KNOWN_BAD_SHA256 } from "../intel/known-hashes.js";
import { defineDetection, type DetectionHit } from "./detection.js";


export const knownBadHash = defineDetection({
  id: "known-bad-hash",
  title: "File matching a known-bad hash",
  reads: { hash: ["path", "sha256"] },
  severity: "critical",
  attack: ["T1204.002", "T1588.001"],
  maturity: "stable",
  category: "indicator",
  false_positives: "Antivirus test files (EICAR) placed on purpose; security tooling that stores samples.",
  advice: {
    triage: ["Confirm the file on {hosts} still exists and is not a quarantined copy."],
    containment: ["Isolate {hosts} and quarantine the file."],
    investigation: ["Find how the file arrived and whether it ran (processes with the same path, shell history)."],
    remediation: ["Remove the file and its persistence; reimage if it executed."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "hash")) {
      const sha = str(row, "sha256").toLowerCase();
      const known = KNOWN_BAD_SHA256[sha];
      if (known === undefined) continue;
      hits.push({
        summary: `${str(row, "path") || "A file"} has sha256 ${sha.slice(0, 16)}…, known as: ${known.name} (${known.source}).`,
        evidence: [{ table: "hash", row }],
        entity: `path:${str(row, "path")}`,
        known_bad: true,
      });
    }
    return hits;
  },
});
