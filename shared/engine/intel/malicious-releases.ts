// Releases of real packages that their registry or maintainers confirmed carried malware (a hijacked account or a
// poisoned build, not a vulnerability): installed at one of these versions is an exact indicator. Each with its
// public source. PyPI names compare normalised (PEP 503: lower case, runs of "-", "_", "." as one "-").
import { parseDebVersion } from "../debversion.js";

export interface MaliciousRelease {
  /** pypi: python_packages; deb and rpm: the distribution's package tables, by upstream version (before the last "-"). */
  ecosystem: "pypi" | "deb" | "rpm";
  package: string;
  /** The poisoned versions, or "every" for a project that was malware from its first upload (removed from the index). */
  versions: readonly string[] | "every";
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
  {
    ecosystem: "pypi",
    package: "torchtriton",
    versions: ["3.0.0"],
    what: "a dependency-confusion upload that PyTorch nightly builds installed; it sent the host's SSH keys, passwd and environment away on import",
    source: "pytorch.org blog, \"Compromised PyTorch-nightly dependency chain between December 25th and December 30th, 2022\"",
  },
  // Projects that were malware from their first upload, each a typosquat of a popular one: any version is the malware.
  {
    ecosystem: "pypi",
    package: "fabrice",
    versions: "every",
    what: "a typosquat of fabric that sent AWS keys away and ran a downloaded script (removed from PyPI)",
    source: "Socket's research team, November 2024: on PyPI since 2021, about 37,000 downloads, then removed",
  },
  {
    ecosystem: "pypi",
    package: "jeilyfish",
    versions: "every",
    what: "a typosquat of jellyfish (a capital I for the first l) that sent SSH and GPG keys away",
    source: "reported December 2019 (python3-dateutil pulled in jeIlyfish); both removed from PyPI",
  },
  {
    ecosystem: "pypi",
    package: "python3-dateutil",
    versions: "every",
    what: "a typosquat of python-dateutil that installed jeIlyfish, which sent SSH and GPG keys away",
    source: "reported December 2019 (python3-dateutil pulled in jeIlyfish); both removed from PyPI",
  },
  {
    ecosystem: "pypi",
    package: "colourama",
    versions: "every",
    what: "a typosquat of colorama that swapped cryptocurrency addresses on the clipboard",
    source: "a clipboard-hijacker write-up by the researcher Bertus, October 2018; removed from PyPI",
  },
  {
    ecosystem: "pypi",
    package: "ssh-decorate",
    versions: "every",
    what: "a package that sent the SSH user names, passwords and keys it handled to a remote server",
    source: "reported on its GitHub issues and removed from PyPI (2018-05)",
  },
  ...(["deb", "rpm"] as const).map((ecosystem) => ({
    ecosystem,
    package: ecosystem === "deb" ? "xz-utils liblzma5" : "xz xz-libs",
    // Upstream 5.6.0 and 5.6.1 only: Debian's and Ubuntu's "5.6.1+really5.4.5" are the revert.
    versions: ["5.6.0", "5.6.1"],
    what: "the xz/liblzma backdoor (CVE-2024-3094), which reaches sshd through libsystemd",
    source: "oss-security 2024-03-29 (Andres Freund); CISA alert 2024-03-29; Debian security tracker CVE-2024-3094 (sid 5.6.0-0.1 to 5.6.1-1); Red Hat's advisory (Fedora 40 and rawhide xz 5.6.0/5.6.1)",
  })),
];

/** The malicious release an installed Debian or RPM package is (its upstream version, epoch dropped), if any. */
export function maliciousDistroRelease(ecosystem: "deb" | "rpm", name: string, version: string): MaliciousRelease | undefined {
  // An RPM's version column holds no release ("-" is not allowed in it): its upstream is the whole of it.
  const { upstream } = parseDebVersion(version);
  return MALICIOUS_RELEASES.find((r) => r.ecosystem === ecosystem && r.package.split(" ").includes(name) && (r.versions === "every" || r.versions.includes(upstream)));
}

/** A PyPI project name as the index compares it (PEP 503). */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** The malicious release this installed PyPI distribution is, if any. */
export function maliciousPypiRelease(name: string, version: string): MaliciousRelease | undefined {
  const n = normalizePypiName(name);
  const v = version.trim();
  return MALICIOUS_RELEASES.find((r) => r.ecosystem === "pypi" && r.package === n && (r.versions === "every" || r.versions.includes(v)));
}
