// A PAM backdoor: a module mapped into a program that authenticates users (sshd, sudo, su, login...) that no
// distribution ships, or a PAM module mapped from outside the system's PAM directories. PAM hands every module the
// password typed, so a planted module captures credentials or accepts a magic one (ATT&CK T1556.003; the public
// pam_backdoor and "PAM spy" kits; Sigma linux PAM rules). A distribution's module replaced in place keeps its name
// and place: that needs file integrity (hashes), not this.
import { packagedPamModule } from "../baselines/index.js";
import { compareText } from "../order.js";
import { basename, rowsOf, str } from "../rows.js";
import type { HostData, Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { inTmpDir } from "./patterns.js";

/** Programs that load PAM to authenticate someone (their process names as the kernel shows them, 15 characters). */
const AUTHENTICATORS: ReadonlySet<string> = new Set(["sshd", "sshd-session", "sudo", "su", "login", "passwd", "chpasswd", "vsftpd", "proftpd", "dovecot", "auth", "gdm-session-wor", "lightdm", "polkit-agent-he", "cron", "crond", "runuser", "doas", "xrdp-sesman", "cockpit-session"]);
/** The host's processes that authenticate users, by pid. */
export function authenticatorProcesses(host: HostData): Map<string, Row> {
  const procs = new Map<string, Row>();
  for (const p of rowsOf(host, "processes")) if (AUTHENTICATORS.has(str(p, "name")) || AUTHENTICATORS.has(basename(str(p, "path")))) procs.set(str(p, "pid"), p);
  return procs;
}

/** Where the distributions keep PAM modules: /lib/security, /lib64/security, /usr/lib/<triplet>/security and the like. */
const PAM_DIR = /^\/(?:usr\/)?lib(?:64|32)?\/(?:[a-z0-9_]+-linux-gnu[a-z0-9_]*\/)?security\/[^/]+$/;

/** A mapped file that is a PAM module: a .so in a security/ directory, or named pam_*.so anywhere. */
export function pamModulePath(path: string): boolean {
  return /\.so(?:\.[\d.]+)?$/.test(path) && (/\/security\/[^/]+$/.test(path) || /^pam_[^/]*\.so/.test(basename(path)));
}

export const pamBackdoor = defineDetection({
  id: "pam-backdoor",
  title: "Unknown PAM module loaded by an authenticating program",
  reads: { processes: ["pid", "name", "path"], process_memory_map: ["pid", "path"] },
  severity: "high",
  attack: ["T1556.003"],
  maturity: "experimental",
  category: "credential-access",
  false_positives: "Site-built or vendor PAM modules (an MFA vendor's module not in the baseline) loaded from the system's PAM directory.",
  advice: {
    triage: ["On {hosts}, list /etc/pam.d/ lines that name the module and hash the module file; ask which package or team installed it."],
    containment: ["Remove the module's line from /etc/pam.d on {hosts} and restart sshd; treat every password typed there since as stolen."],
    investigation: ["Find when the module file and the pam.d line appeared (file times, shell history, package logs) and what it writes or sends."],
    remediation: ["Reinstall the PAM packages, rotate the passwords of accounts that logged in, and watch /etc/pam.d with file integrity monitoring."],
  },
  evaluate(host) {
    const procs = authenticatorProcesses(host);
    // One finding per module file (every sshd child maps the same one): the first processes that map it as evidence.
    const modules = new Map<string, EvidenceRow[]>();
    for (const m of rowsOf(host, "process_memory_map")) {
      const path = str(m, "path");
      const proc = procs.get(str(m, "pid"));
      if (proc === undefined || !pamModulePath(path)) continue;
      const evidence = modules.get(path) ?? [];
      if (evidence.length < 6 && !evidence.some((e) => e.row === proc)) evidence.push({ table: "processes", row: proc }, { table: "process_memory_map", row: m });
      modules.set(path, evidence);
    }
    const hits: DetectionHit[] = [];
    for (const [path, evidence] of [...modules].sort((a, b) => compareText(a[0], b[0]))) {
      const file = basename(path);
      const who = [...new Set(evidence.filter((e) => e.table === "processes").map((e) => str(e.row, "name")))].join(", ");
      const standard = PAM_DIR.test(path);
      const packaged = packagedPamModule(file);
      if (packaged && standard) {
        hits.push({ summary: `${who} loads ${file} from ${path}, a module the distributions ship (${packaged.source}).`, evidence, entity: `path:${path}`, kept_by: packaged.baseline });
        continue;
      }
      const where = standard ? "" : inTmpDir(path) || /\/\.[^/]+/.test(path) ? `, from a temp or hidden directory (${path})` : `, from outside the system's PAM directories (${path})`;
      hits.push({
        summary: `${who} loads the PAM module ${file}${packaged ? ", a distribution's name" : ", which no distribution ships"}${where}: it sees every password typed there.`,
        evidence,
        entity: `path:${path}`,
      });
    }
    return hits;
  },
});
