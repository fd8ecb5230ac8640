// SUID/SGID binaries outside the usual Debian/Ubuntu set.
import { basename, rowsOf, str, tagList } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { SHELLS, inTmpDir } from "./patterns.js";

const KNOWN_SUID: ReadonlySet<string> = new Set([
  "/usr/bin/sudo", "/usr/bin/su", "/usr/bin/passwd", "/usr/bin/chsh", "/usr/bin/chfn", "/usr/bin/gpasswd",
  "/usr/bin/newgrp", "/usr/bin/mount", "/usr/bin/umount", "/usr/bin/pkexec", "/usr/bin/fusermount", "/usr/bin/fusermount3",
  "/usr/bin/ping", "/usr/bin/at", "/usr/bin/crontab", "/usr/bin/ssh-agent", "/usr/bin/expiry", "/usr/bin/chage",
  "/usr/bin/wall", "/usr/bin/bsd-write", "/usr/bin/dotlockfile", "/usr/sbin/unix_chkpwd", "/usr/sbin/pppd",
  "/usr/lib/openssh/ssh-keysign", "/usr/lib/dbus-1.0/dbus-daemon-launch-helper", "/usr/lib/polkit-1/polkit-agent-helper-1",
  "/usr/libexec/polkit-agent-helper-1", "/usr/lib/eject/dmcrypt-get-device", "/usr/lib/snapd/snap-confine",
  "/usr/lib/xorg/Xorg.wrap", "/usr/sbin/mount.nfs", "/usr/sbin/mount.cifs", "/usr/bin/sudoedit",
]);
/** Binaries that give a shell when SUID (GTFOBins favourites). */
const SHELL_GIVING: ReadonlySet<string> = new Set([...SHELLS, "python", "python3", "perl", "find", "vim", "vi", "nmap", "env", "cp", "less", "awk", "tar"]);

function normalize(path: string): string {
  return path.replace(/^\/(bin|sbin)\//, "/usr/$1/");
}

export const unexpectedSuid = defineDetection({
  id: "unexpected-suid",
  title: "Unexpected SUID/SGID binary",
  tables: ["suid_bin"],
  severity: "medium",
  attack: ["T1548.001"],
  maturity: "test",
  category: "privilege-escalation",
  keywords: ["suid", "setuid", "sgid", "setgid", "suid binary", "privilege escalation", "privesc"],
  false_positives: "Vendor software that ships SUID helpers (browser sandboxes, VirtualBox, vendor agents).",
  advice: {
    triage: ["Check the package owning the binary on {hosts} (dpkg -S) and its hash."],
    containment: ["Remove the SUID bit (chmod u-s) on the unexpected binary on {hosts}."],
    investigation: ["Look for who changed the file mode (shell history, auditd) and whether it was used."],
    remediation: ["Add legitimate vendor helpers to the allowed_suid tag; delete copied shells."],
  },
  baseline_tag: "allowed_suid",
  evaluate(host) {
    const allowed = new Set(tagList(host.tags, "allowed_suid").map(normalize));
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "suid_bin")) {
      const path = str(row, "path");
      const canon = normalize(path);
      if (path === "" || KNOWN_SUID.has(canon) || allowed.has(canon)) continue;
      const name = basename(path).replace(/[0-9.]+$/, "");
      const dangerous = inTmpDir(path) || path.startsWith("/home/") || SHELL_GIVING.has(name) || SHELL_GIVING.has(basename(path));
      hits.push({
        summary: `${path} is SUID/SGID (owner ${str(row, "username") || "?"}, ${str(row, "permissions") || "mode unknown"}) and not a known system helper${dangerous ? "; it can give a root shell or lives in a writable location" : ""}.`,
        evidence: [{ table: "suid_bin", row }],
        severity: dangerous ? "high" : undefined,
        entity: `path:${path}`,
      });
    }
    return hits;
  },
});
