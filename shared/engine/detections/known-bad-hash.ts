// Files whose sha256 is on the known-bad list.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** Known-bad sha256 values with a name. The EICAR test file is real; the others are the scenario corpus's IOCs. */
export const KNOWN_BAD_SHA256: Readonly<Record<string, string>> = {
  "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f": "EICAR antivirus test file",
  "4f1e2a3b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b": "xmrig 6.x dropper (corpus IOC)",
  "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4938271605f4e3d2c1b0a9f8e7d6c5b4a3": "kinsing loader (corpus IOC)",
  "d2a8e4f1c3b5a7968f0e1d2c3b4a59687766554433221100ffeeddccbbaa9988": "diamorphine rootkit module (corpus IOC)",
};

export const knownBadHash = defineDetection({
  id: "known-bad-hash",
  title: "File matching a known-bad hash",
  reads: { hash: ["path", "sha256"] },
  severity: "critical",
  attack: ["T1204.002", "T1588.001"],
  maturity: "stable",
  category: "indicator",
  keywords: ["malware", "known bad", "ioc", "iocs", "indicator", "indicators", "hash", "hashes", "sha256", "virus"],
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
      const name = KNOWN_BAD_SHA256[sha];
      if (name === undefined) continue;
      hits.push({
        summary: `${str(row, "path") || "A file"} has sha256 ${sha.slice(0, 16)}…, known as: ${name}.`,
        evidence: [{ table: "hash", row }],
        entity: `path:${str(row, "path")}`,
        known_bad: true,
      });
    }
    return hits;
  },
});
