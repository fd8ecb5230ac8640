// A small advisory list for Debian/Ubuntu packages and RHEL-family RPMs: affected ranges per release line
// (introduced <= v < fixed; an RPM's version is `version-release`, compared as Debian versions compare).

export interface Advisory {
  id: string;
  /** The package as its distribution names it: a Debian package (deb_packages), or an RPM (rpm_packages) when `rpm`. */
  package: string;
  rpm?: true;
  title: string;
  attack: readonly string[];
  severity: "medium" | "high" | "critical";
  ranges: ReadonlyArray<{ introduced: string; fixed: string }>;
  /**
   * Distribution builds that carry the fix on an older upstream version (Ubuntu's and Debian's security updates):
   * a version with the same upstream part (before the last "-") at or above one of these is fixed.
   */
  backports?: readonly string[];
}

export const ADVISORIES: readonly Advisory[] = [
  // GitLab's ExifTool image parsing: unauthenticated RCE, exploited at scale from late 2021 (GitLab's 2021-04-14
  // security release; CISA KEV). Omnibus packages are versioned `13.10.2-ce.0` / `-ee.0`.
  ...(["ce", "ee"] as const).map((edition) => ({
    id: "CVE-2021-22205",
    package: `gitlab-${edition}`,
    title: "GitLab ExifTool remote code execution",
    attack: ["T1190"],
    severity: "critical" as const,
    ranges: [
      { introduced: "11.9.0", fixed: `13.8.8-${edition}.0` },
      { introduced: "13.9.0", fixed: `13.9.6-${edition}.0` },
      { introduced: "13.10.0", fixed: `13.10.3-${edition}.0` },
    ],
  })),
  {
    id: "CVE-2024-3094",
    package: "xz-utils",
    title: "xz/liblzma backdoor",
    attack: ["T1195.002"],
    severity: "critical",
    ranges: [{ introduced: "5.6.0", fixed: "5.6.1+really5.4.5-1" }],
  },
  {
    id: "CVE-2024-3094",
    package: "liblzma5",
    title: "xz/liblzma backdoor",
    attack: ["T1195.002"],
    severity: "critical",
    ranges: [{ introduced: "5.6.0", fixed: "5.6.1+really5.4.5-1" }],
  },
  {
    id: "CVE-2024-6387",
    package: "openssh-server",
    title: "regreSSHion: unauthenticated RCE in sshd",
    attack: ["T1190"],
    severity: "high",
    ranges: [
      { introduced: "1:8.5p1", fixed: "1:8.9p1-3ubuntu0.10" },
      { introduced: "1:9.0p1", fixed: "1:9.2p1-2+deb12u3" },
      { introduced: "1:9.3p1", fixed: "1:9.8p1" },
    ],
    // USN-6859-1 (noble 1:9.6p1-3ubuntu13.3, mantic 1:9.3p1-1ubuntu3.6); Debian DSA-5724-1 and sid's 1:9.7p1-7.
    backports: ["1:9.6p1-3ubuntu13.3", "1:9.3p1-1ubuntu3.6", "1:9.7p1-7"],
  },
  {
    id: "CVE-2023-4911",
    package: "libc6",
    title: "Looney Tunables: glibc ld.so local privilege escalation",
    attack: ["T1068"],
    severity: "high",
    ranges: [
      { introduced: "2.34", fixed: "2.35-0ubuntu3.4" },
      { introduced: "2.36", fixed: "2.36-9+deb12u3" },
    ],
  },
  {
    // RHSA-2023:5455: glibc-2.34-60.el9_2.7 fixes RHEL 9.2 (Rocky and Alma rebuild the same release numbers).
    id: "CVE-2023-4911",
    package: "glibc",
    rpm: true,
    title: "Looney Tunables: glibc ld.so local privilege escalation",
    attack: ["T1068"],
    severity: "high",
    ranges: [{ introduced: "2.34", fixed: "2.34-60.el9_2.7" }],
  },
  {
    id: "CVE-2021-4034",
    package: "policykit-1",
    title: "PwnKit: pkexec local privilege escalation",
    attack: ["T1068"],
    severity: "high",
    ranges: [
      { introduced: "0.105-25", fixed: "0.105-25+deb10u1" },
      { introduced: "0.105-31", fixed: "0.105-31+deb11u1" },
    ],
  },
];
