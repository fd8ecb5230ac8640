// Installed Debian packages and RPMs inside an advisory's affected version range.
import { compareDebVersions, inVersionRange, parseDebVersion } from "../debversion.js";
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { ADVISORIES } from "./advisories.js";


/** A distribution build of the same upstream version at or above one that carries the fix. */
function fixedByBackport(version: string, backports: readonly string[]): boolean {
  const v = parseDebVersion(version);
  return backports.some((b) => {
    const fixed = parseDebVersion(b);
    return fixed.epoch === v.epoch && fixed.upstream === v.upstream && vendor(fixed.revision) === vendor(v.revision) && compareDebVersions(version, b) >= 0;
  });
}

/** Whose revision it is: Ubuntu's (`3ubuntu13.3`), a Debian stable update's (`2+deb12u3`) or Debian's own. */
function vendor(revision: string): string {
  return /ubuntu/.test(revision) ? "ubuntu" : /\+deb\d+u\d+/.test(revision) ? "debian-stable" : "debian";
}

export const vulnerablePackage = defineDetection({
  id: "vulnerable-package",
  title: "Vulnerable package in an advisory's range",
  reads: { deb_packages: ["name", "version"], rpm_packages: ["name", "version", "release"] },
  severity: "high",
  attack: ["T1190", "T1068"],
  maturity: "stable",
  category: "vulnerability",
  false_positives: "Internally rebuilt packages carrying a backported fix under a version the advisory does not know.",
  advice: {
    triage: ["Confirm the installed version on {hosts} (dpkg -l, rpm -q) and whether the vulnerable service is exposed."],
    containment: ["Restrict network exposure of the affected service on {hosts} until patched."],
    investigation: ["Look for exploitation traces for the advisory (crashes, unexpected children of the service)."],
    remediation: ["Upgrade the package to the fixed version and restart the affected services."],
  },
  evaluate(host, ctx) {
    const asked = new Set((ctx?.entities.advisories ?? []).map((a) => a.toUpperCase()));
    const known = ADVISORIES.filter((a) => asked.has(a.id.toUpperCase()));
    const advisories = known.length > 0 ? known : ADVISORIES;
    const hits: DetectionHit[] = [];
    const installed = [
      ...rowsOf(host, "deb_packages").map((row) => ({ row, table: "deb_packages", rpm: false, version: str(row, "version") })),
      ...rowsOf(host, "rpm_packages").map((row) => ({ row, table: "rpm_packages", rpm: true, version: str(row, "release") !== "" ? `${str(row, "version")}-${str(row, "release")}` : str(row, "version") })),
    ];
    for (const { row, table, rpm, version } of installed) {
      const name = str(row, "name");
      if (version === "" || version.startsWith("-")) continue;
      for (const adv of advisories) {
        if (adv.package !== name || (adv.rpm === true) !== rpm) continue;
        const range = adv.ranges.find((r) => inVersionRange(version, r.introduced, r.fixed));
        if (!range || fixedByBackport(version, adv.backports ?? [])) continue;
        hits.push({
          summary: `${name} ${version} is affected by ${adv.id} (${adv.title}); fixed in ${range.fixed}.`,
          evidence: [{ table, row }],
          severity: adv.severity,
          attack: [...adv.attack],
          entity: `package:${name}@${version}`,
        });
      }
    }
    return hits;
  },
});
