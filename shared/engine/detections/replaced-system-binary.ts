// A system binary replaced in place: a trojanized sshd, sudo or cron keeps its package's name and path, so nothing
// about one host alone gives it away, but its hash is not the one its peers run from the same package version
// (Kobalos and the Windigo-era OpenSSH trojans replaced sshd itself; Ebury's early versions patched it). The hash
// table holds what is running (/proc/<pid>/exe); hosts are compared by path, owning package version and distribution, and the
// hit is a finding only when most peers agree on one hash and this host's is rare (peer-outliers.ts). A host that
// rebuilt the binary locally (a patched sshd) looks the same, and is worth asking about.
import { basename, rowsOf, str } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** Binaries attackers replace, with the packages that install them on Debian/Ubuntu, RHEL/Fedora and SUSE. */
const WATCHED: Readonly<Record<string, readonly string[]>> = {
  sshd: ["openssh-server", "openssh"],
  sudo: ["sudo"],
  su: ["util-linux", "login", "shadow-utils"],
  login: ["login", "util-linux", "shadow"],
  passwd: ["passwd", "shadow-utils"],
  cron: ["cron"],
  crond: ["cronie"],
  rsyslogd: ["rsyslog"],
  "dbus-daemon": ["dbus-daemon", "dbus", "dbus-1"],
  agetty: ["util-linux"],
  "systemd-journald": ["systemd"],
  "systemd-logind": ["systemd"],
  systemd: ["systemd"],
};
const SYSTEM_DIRS = /^\/(?:usr\/)?(?:s?bin|lib\/systemd|libexec)\//;
const PACKAGE_TABLES = ["deb_packages", "rpm_packages"] as const;

/** Packages whose version names the distribution and its release: Debian's and Ubuntu's base-files, rpm's *-release. */
const RELEASE_PACKAGE = /^(?:base-files|(?:redhat|rocky|almalinux|centos|centos-stream|oraclelinux|fedora|system|amazon-linux|sles|opensuse-leap|openEuler)-release)$/;

/**
 * The distribution and major release the host's packages were built for ("ubuntu 13", "debian 12", "rocky-release 9"),
 * or "" when no release package is listed. Ubuntu takes many packages from Debian at the same version and rebuilds
 * them, so the same version from two distributions is two binaries: hosts are compared within one distribution.
 */
function distributionOf(packages: ReadonlyMap<string, { row: Row }>): string {
  for (const [name, pkg] of packages) {
    if (!RELEASE_PACKAGE.test(name)) continue;
    const version = str(pkg.row, "version");
    const major = /^\d+/.exec(version)?.[0] ?? version;
    if (name === "base-files") return `${/ubuntu/i.test(version) ? "ubuntu" : /deb\d|^\d+\.\d+$/.test(version) ? "debian" : "deb"} ${major}`;
    return `${name} ${major}`;
  }
  return "";
}

/** The host's installed packages by name: the row, and its version (`version-release` for rpm). */
function packagesOf(host: Parameters<typeof rowsOf>[0]): Map<string, { row: Row; table: string; version: string }> {
  const out = new Map<string, { row: Row; table: string; version: string }>();
  for (const table of PACKAGE_TABLES) {
    for (const row of rowsOf(host, table)) {
      const release = table === "rpm_packages" ? str(row, "release") : "";
      out.set(str(row, "name"), { row, table, version: `${str(row, "version")}${release !== "" ? `-${release}` : ""}${str(row, "arch") !== "" ? ` (${str(row, "arch")})` : ""}` });
    }
  }
  return out;
}

export const replacedSystemBinary = defineDetection({
  id: "replaced-system-binary",
  title: "System binary that differs from its peers' (replaced in place)",
  reads: { hash: ["path", "sha256"], deb_packages: ["name", "version", "arch"], rpm_packages: ["name", "version", "release", "arch"] },
  severity: "high",
  attack: ["T1554", "T1036.005"],
  maturity: "experimental",
  category: "persistence",
  false_positives: "A binary rebuilt or patched locally (a hotfixed sshd), or a host whose package database and running binary disagree (installed by hand over the package).",
  advice: {
    triage: ["On {hosts}, verify the binary against its package (debsums -c / dpkg --verify, rpm -V) and hash it from trusted media."],
    containment: ["Treat logins to {hosts} as compromised: a replaced sshd or sudo sees every password typed there."],
    investigation: ["Find when the file changed (ctime, package logs) and what else changed then; look for the same hash elsewhere."],
    remediation: ["Reinstall the package from the distribution's repository, or reimage; rotate credentials used on {hosts}."],
  },
  evaluate(host) {
    const packages = packagesOf(host);
    if (packages.size === 0) return [];
    const distribution = distributionOf(packages);
    const hits: DetectionHit[] = [];
    const seen = new Set<string>();
    for (const row of rowsOf(host, "hash")) {
      const path = str(row, "path");
      const sha = str(row, "sha256").toLowerCase();
      const owners = WATCHED[basename(path)];
      if (owners === undefined || !SYSTEM_DIRS.test(path) || !/^[0-9a-f]{64}$/.test(sha) || seen.has(path)) continue;
      const owner = owners.map((name) => ({ name, pkg: packages.get(name) })).find((o) => o.pkg !== undefined);
      if (owner?.pkg === undefined) continue;
      seen.add(path);
      hits.push({
        summary: `${path} runs with sha256 ${sha.slice(0, 16)}… from ${owner.name} ${owner.pkg.version}, not the binary its peers with the same package run.`,
        evidence: [{ table: "hash", row }, { table: owner.pkg.table, row: owner.pkg.row }],
        entity: `path:${path}`,
        peer: { group: `${path}\n${owner.name}=${owner.pkg.version}\n${distribution}`, value: sha },
      });
    }
    return hits;
  },
});
