// Releases of real packages that their registry or maintainers confirmed carried malware (a hijacked account or a
// poisoned build, not a vulnerability): installed at one of these versions is an exact indicator. Each with its
// public source. PyPI names compare normalised (PEP 503: lower case, runs of "-", "_", "." as one "-").

export interface MaliciousRelease {
  ecosystem: "pypi";
  package: string;
  versions: readonly string[];
  what: string;
  source: string;
}

export const MALICIOUS_RELEASES: readonly MaliciousRelease[] = [
  {
    ecosystem: "pypi",
    package: "ultralytics",
    versions: ["8.3.41", "8.3.42", "8.3.45", "8.3.46"],
    what: "an XMRig miner fetched and started on import (a poisoned GitHub Actions build, then a stolen PyPI token)",
    source: "PyPI blog, \"Supply-chain attack analysis: Ultralytics\" (2024-12-11); ultralytics/ultralytics issue #18027",
  },
];

/** A PyPI project name as the index compares it (PEP 503). */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** The malicious release this installed PyPI distribution is, if any. */
export function maliciousPypiRelease(name: string, version: string): MaliciousRelease | undefined {
  const n = normalizePypiName(name);
  const v = version.trim();
  return MALICIOUS_RELEASES.find((r) => r.ecosystem === "pypi" && r.package === n && r.versions.includes(v));
}
