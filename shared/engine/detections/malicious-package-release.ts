// Installed Python distributions, and Debian and RPM packages, at a release its registry or distribution confirmed
// carried malware, or a project that was malware from its first upload (intel/malicious-releases.ts; ultralytics
// 8.3.41, xz 5.6.0 and 5.6.1, the typosquat fabrice):
// an exact indicator, like a known-bad hash. A vulnerable version is vulnerable-package's; this is a poisoned one.
import { rowsOf, str } from "../rows.js";
import { maliciousDistroRelease, maliciousPypiRelease } from "../intel/malicious-releases.js";
import { defineDetection, type DetectionHit } from "./detection.js";

export const maliciousPackageRelease = defineDetection({
  id: "malicious-package-release",
  title: "Package at a release that carried malware",
  reads: { python_packages: ["name", "version", "path", "directory"], deb_packages: ["name", "version"], rpm_packages: ["name", "version"] },
  severity: "high",
  attack: ["T1195.002"],
  maturity: "test",
  category: "indicator",
  false_positives: "A malware researcher's or scanner's sandbox that installs known-bad releases on purpose.",
  advice: {
    triage: ["Confirm the installed version on {hosts} (pip show) and whether it was imported: processes of its environment, their children and connections."],
    containment: ["Isolate {hosts} if the release's payload ran; rotate credentials the environment held."],
    investigation: ["Find what installed it (requirements, CI caches, images) and which other hosts pulled the same release."],
    remediation: ["Pin a clean release, rebuild the environment and images, and remove the payload's persistence."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "python_packages")) {
      const name = str(row, "name");
      const version = str(row, "version");
      const bad = maliciousPypiRelease(name, version);
      if (!bad) continue;
      const where = str(row, "path") || str(row, "directory");
      hits.push({
        summary: `Python package ${name} ${version}${where !== "" ? ` (${where})` : ""} is ${bad.versions === "every" ? "a project that was malware from its first upload" : "a release that carried malware"}: ${bad.what} (${bad.source}).`,
        evidence: [{ table: "python_packages", row }],
        entity: `package:${name}@${version}`,
        known_bad: true,
      });
    }
    for (const ecosystem of ["deb", "rpm"] as const) {
      const table = `${ecosystem}_packages`;
      for (const row of rowsOf(host, table)) {
        const name = str(row, "name");
        const version = str(row, "version");
        const bad = maliciousDistroRelease(ecosystem, name, version);
        if (!bad) continue;
        hits.push({
          summary: `Package ${name} ${version} is a release that carried malware: ${bad.what} (${bad.source}).`,
          evidence: [{ table, row }],
          severity: "critical",
          entity: `package:${name}@${version}`,
          known_bad: true,
        });
      }
    }
    return hits;
  },
});
