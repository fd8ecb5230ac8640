// A trojanized library inside sshd (or another program that authenticates users): Ebury swaps the libkeyutils that
// sshd loads through libkrb5 for a credential stealer and backdoor with the same soname (ESET's Operation Windigo,
// 400,000 servers over fifteen years); others load code from outside the system's library directories. PAM modules
// are pam-backdoor's. What is seen: the file names Ebury's versions used (known-bad intel), a libkeyutils under a name
// keyutils never installs (three-part versions, a dot-prefixed file), and any library an authenticator maps from a
// temp, hidden or unpackaged directory. A look-alike in place under the real name needs file hashes, not this.
import { AUTH_EXCLUDED, explainedPreload } from "../baselines/preload.js";
import { inTmpDir } from "./patterns.js";
import { notAKeyutilsFile, sshBackdoorLibrary } from "../intel/ssh-backdoors.js";
import { compareText } from "../order.js";
import { basename, rowsOf, str } from "../rows.js";
import type { Severity } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { installRoot, packagedLibrary } from "./ld-so-preload.js";
import { authenticatorProcesses, pamModulePath } from "./pam-backdoor.js";

interface Mapped {
  path: string;
  evidence: EvidenceRow[];
  programs: Set<string>;
  exes: Set<string>;
}

/** Why the library is a backdoor in an authenticator, with how sure that is; undefined when it is not. */
function judge(lib: Mapped): { why: string; severity: Severity; known_bad?: boolean } | undefined {
  const file = basename(lib.path);
  const known = sshBackdoorLibrary(lib.path);
  if (known) return { why: `a file name of ${known.family} (${known.source})`, severity: "high", known_bad: true };
  if (notAKeyutilsFile(file)) return { why: "a libkeyutils under a name keyutils never installs (it ships libkeyutils.so.1.<minor>): the library Ebury replaces", severity: "high" };
  if (inTmpDir(lib.path) || /\/\.[^/]/.test(lib.path)) return { why: "loaded from a temp or hidden directory", severity: "high" };
  // sshd built into /usr/local or /opt loads its own libraries from there.
  const bundled = lib.exes.size > 0 && [...lib.exes].every((e) => e.startsWith("/") && installRoot(e) === installRoot(lib.path));
  // A monitoring agent's documented injection library (Dynatrace OneAgent's liboneagentproc.so through ld.so.preload).
  const explained = explainedPreload(lib.path);
  if (explained !== undefined && !explained.some((l) => AUTH_EXCLUDED.has(l.id))) return undefined;
  if (!packagedLibrary(lib.path) && !bundled) return { why: "loaded from outside the system's library directories", severity: "medium" };
  return undefined;
}

export const sshdLibraryBackdoor = defineDetection({
  id: "sshd-library-backdoor",
  title: "Trojanized library inside sshd or another authenticating program (Ebury)",
  reads: { processes: ["pid", "name", "path"], process_memory_map: ["pid", "path"], file: ["path", "size", "mtime"] },
  severity: "high",
  attack: ["T1556", "T1554", "T1574.006"],
  maturity: "experimental",
  category: "credential-access",
  false_positives: "An authentication agent that installs its libraries under /opt and loads them into sshd through nsswitch (an AD bridge's NSS module), at medium.",
  advice: {
    triage: ["On {hosts}, run `ldd /usr/sbin/sshd` and `ls -la` on every libkeyutils file; check their package ownership (dpkg -S, rpm -qf) and hash them against the package's."],
    containment: ["Isolate {hosts}: every password typed into ssh there, and every key used from it, is stolen. Do not log in with privileged credentials."],
    investigation: ["Look for the backdoor's traffic (Ebury exfiltrates over DNS and HTTP POSTs), for the same library on other hosts, and for the host that infected this one (the admins who logged in)."],
    remediation: ["Reinstall from trusted media; rotate every password and SSH key that touched {hosts} since the file's mtime."],
  },
  evaluate(host) {
    const procs = authenticatorProcesses(host);
    if (procs.size === 0) return [];
    const libs = new Map<string, Mapped>();
    for (const m of rowsOf(host, "process_memory_map")) {
      const proc = procs.get(str(m, "pid"));
      const path = str(m, "path").trim().replace(/ \(deleted\)$/, "");
      if (proc === undefined || !/\.so(?:[.-]|$)/.test(basename(path)) || !path.startsWith("/") || pamModulePath(path)) continue;
      const lib = libs.get(path) ?? { path, evidence: [], programs: new Set<string>(), exes: new Set<string>() };
      if (lib.evidence.length < 6 && !lib.evidence.some((e) => e.row === proc)) lib.evidence.push({ table: "processes", row: proc }, { table: "process_memory_map", row: m });
      lib.programs.add(str(proc, "name") || basename(str(proc, "path")));
      if (str(proc, "path") !== "") lib.exes.add(str(proc, "path"));
      libs.set(path, lib);
    }
    const files = new Map(rowsOf(host, "file").map((r) => [str(r, "path"), r] as const));
    const hits: DetectionHit[] = [];
    for (const lib of [...libs.values()].sort((a, b) => compareText(a.path, b.path))) {
      const verdict = judge(lib);
      if (!verdict) continue;
      const file = files.get(lib.path);
      hits.push({
        summary: `${[...lib.programs].sort(compareText).join(", ")} load${lib.programs.size === 1 ? "s" : ""} ${lib.path}: ${verdict.why}. Every password typed and key used there can be stolen.`,
        evidence: file ? [...lib.evidence, { table: "file", row: file }] : lib.evidence,
        entity: `path:${lib.path}`,
        severity: verdict.severity,
        known_bad: verdict.known_bad,
      });
    }
    return hits;
  },
});
