// SUID/SGID binaries that no package installs with that mode: copied shells and interpreters, or files in temp,
// home and hidden directories, are the privilege-escalation backdoors this looks for.
// osquery's suid_bin walks only /bin, /sbin, /usr/bin, /usr/sbin, /usr/local/bin, /usr/local/sbin and /tmp
// (osquery/tables/system/posix/suid_bin.cpp, kBinarySearchPaths), so a SUID copy in /dev/shm, /var/tmp or a home
// directory shows only in the `file` table (mode 4xxx/2xxx), in processes running with euid 0 for another uid, and
// in the shell history that set the bit (`chmod u+s`, `chmod 4755`: Atomic Red Team T1548.001 tests 1-2).
import { packagedSuid, tagBaseline } from "../baselines/index.js";
import { canonicalBinPath } from "../baselines/suid.js";
import { GTFOBINS_SUID_SOURCE, gtfobinsName } from "../intel/gtfobins-suid.js";
import { rowsOf, str, tagList } from "../rows.js";
import { HISTORY_COLUMNS, simpleCommands } from "./command-lines.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { SHELLS, inTmpDir } from "./patterns.js";

/** Shells and interpreters: SUID on one of these is a root shell for anyone. */
const SHELL_OR_INTERPRETER = new Set([...SHELLS, "rbash", "python", "python2", "python3", "perl", "ruby", "php", "lua", "node", "tclsh", "expect"]);

function writableOrHidden(path: string): string | undefined {
  if (inTmpDir(path) || path.startsWith("/run/user/") || path.startsWith("/var/crash/")) return "a world-writable temp directory";
  if (path.startsWith("/home/") || path.startsWith("/root/")) return "a home directory";
  if (/\/\.[^/]+\//.test(path) || /\/\.[^/]+$/.test(path)) return "a hidden path";
  return undefined;
}

/** chmod's SUID/SGID modes: u+s, g+s, +s, ug+s, or an octal mode with the 4000/2000 bit (4755, 04755, 6755). */
const SETUID_MODE = /^(?:[ugoa]*\+[rwxXt]*s[rwxXt]*|0?[2-7][0-7]{3})$/;

/** Absolute paths a shell line makes SUID/SGID with chmod. */
export function setuidTargets(line: string): string[] {
  const out: string[] = [];
  for (const cmd of simpleCommands(line)) {
    if (cmd.program !== "chmod") continue;
    const args = cmd.args.filter((a) => !/^-(?:[Rvcf]+|-[a-z-]+)$/.test(a));
    const mode = args[0] ?? "";
    const octal = /^0?([0-7])[0-7]{3}$/.exec(mode)?.[1];
    if (!SETUID_MODE.test(mode) || (octal !== undefined && (Number(octal) & 6) === 0)) continue;
    for (const a of args.slice(1)) if (a.startsWith("/")) out.push(a);
  }
  return out;
}

export const unexpectedSuid = defineDetection({
  id: "unexpected-suid",
  title: "Unexpected SUID/SGID binary",
  reads: {
    suid_bin: ["path", "username", "groupname", "permissions"],
    file: ["path", "mode", "type", "uid", "gid"],
    processes: ["pid", "path", "uid", "euid"],
    shell_history: [...HISTORY_COLUMNS],
  },
  severity: "medium",
  attack: ["T1548.001"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives: "Vendor software that ships SUID helpers outside the packaged baseline (browser sandboxes under /opt, VirtualBox, vendor agents).",
  advice: {
    triage: ["Check the package owning the binary on {hosts} (dpkg -S) and its hash."],
    containment: ["Remove the SUID bit (chmod u-s) on the unexpected binary on {hosts}."],
    investigation: ["Look for who changed the file mode (shell history, auditd) and whether it was used."],
    remediation: ["Add legitimate vendor helpers to the allowed_suid tag; delete copied shells."],
  },
  baseline_tag: "allowed_suid",
  evaluate(host) {
    const allowed = new Set(tagList(host.tags, "allowed_suid").map(canonicalBinPath));
    const hits: DetectionHit[] = [];
    // SUID/SGID regular files from the file table that suid_bin did not list (it walks a few directories only).
    const listed = new Set(rowsOf(host, "suid_bin").map((r) => str(r, "path")));
    const candidates: Array<{ path: string; table: string; row: Row; mode: string }> = rowsOf(host, "suid_bin").map((row) => ({
      path: str(row, "path"),
      table: "suid_bin",
      row,
      mode: `${str(row, "permissions") || "S?"}, ${str(row, "username") || "?"}:${str(row, "groupname") || "?"}`,
    }));
    for (const row of rowsOf(host, "file")) {
      const path = str(row, "path");
      const bits = /^0?([0-7])[0-7]{3}$/.exec(str(row, "mode").trim())?.[1];
      const type = str(row, "type");
      if (path === "" || listed.has(path) || bits === undefined || (Number(bits) & 6) === 0 || (type !== "" && type !== "regular")) continue;
      listed.add(path);
      candidates.push({ path, table: "file", row, mode: `mode ${str(row, "mode")}, uid ${str(row, "uid") || "?"}:gid ${str(row, "gid") || "?"}` });
    }
    // Files made SUID/SGID by hand in a shell (the chmod line is the evidence when no table listed the file).
    for (const row of rowsOf(host, "shell_history")) {
      for (const path of setuidTargets(str(row, "command"))) {
        if (listed.has(path)) continue;
        listed.add(path);
        candidates.push({ path, table: "shell_history", row, mode: `made SUID/SGID by \`${str(row, "command").slice(0, 80)}\`` });
      }
    }
    const running = new Map<string, Row>();
    for (const p of rowsOf(host, "processes")) {
      const uid = str(p, "uid");
      const euid = str(p, "euid");
      if (euid !== "" && uid !== "" && euid !== uid && !running.has(str(p, "path"))) running.set(str(p, "path"), p);
    }
    // A program outside the packaged SUID set running as root for another user, in a temp, home or hidden place:
    // the SUID bit is the likeliest way it got there even when no file listing shows the mode.
    for (const [path, p] of running) {
      if (path === "" || listed.has(path) || str(p, "euid") !== "0" || writableOrHidden(path) === undefined) continue;
      listed.add(path);
      candidates.push({ path, table: "processes", row: p, mode: `running as euid 0 for uid ${str(p, "uid")}` });
    }
    for (const { path, table, row, mode } of candidates) {
      if (path === "") continue;
      const proc = running.get(path);
      const evidence: Array<{ table: string; row: Row }> = [{ table, row }, ...(proc && proc !== row ? [{ table: "processes", row: proc }] : [])];
      const entity = `path:${path}`;
      const where = writableOrHidden(path);
      const gtfo = gtfobinsName(path);
      // Packages install these files owned by root (Debian's at by daemon): one owned by someone else is not the package's.
      const owner = table === "suid_bin" ? str(row, "username") : table === "file" && str(row, "uid") !== "" ? (str(row, "uid") === "0" ? "root" : `uid ${str(row, "uid")}`) : undefined;
      const packaged = where === undefined ? packagedSuid(path, table === "suid_bin" ? str(row, "groupname") : undefined, owner) : undefined;
      if (packaged) {
        hits.push({ summary: `${path} (${mode}) is installed SUID/SGID by the ${packaged.package} package.`, evidence, entity, kept_by: packaged.baseline });
        continue;
      }
      if (where === undefined && gtfo === undefined && allowed.has(canonicalBinPath(path))) {
        hits.push({ summary: `${path} (${mode}) is listed in the host's allowed_suid tag.`, evidence, entity, kept_by: tagBaseline("allowed_suid") });
        continue;
      }
      const shell = gtfo !== undefined && SHELL_OR_INTERPRETER.has(gtfo);
      const why = [
        gtfo !== undefined ? `${gtfo} gives a root shell or root file access when SUID (${GTFOBINS_SUID_SOURCE})` : "",
        where !== undefined ? `it lives in ${where}` : "",
        proc && table !== "processes" ? `pid ${str(proc, "pid")} runs it as uid ${str(proc, "uid")} with euid ${str(proc, "euid")}` : "",
      ].filter((s) => s !== "");
      hits.push({
        summary: `${path} is SUID/SGID (${mode}) and no package installs it so${why.length > 0 ? `; ${why.join("; ")}` : ""}.`,
        evidence,
        severity: why.length > 0 ? "high" : undefined,
        entity,
        ...(shell ? { known_bad: true } : {}),
      });
    }
    return hits;
  },
});
