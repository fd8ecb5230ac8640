// A system-wide preload: a non-empty /etc/ld.so.preload, and the library it injects showing up in the memory maps of
// most processes (libprocesshider, Kinsing's libsystem.so, a libc look-alike in /usr/local/lib, a hidden file in /lib).
// osquery cannot read the file's lines, so the listed library is recognised by what it does: mapped into most
// programs without being the C runtime, written into the file in shell history (`echo /x.so >> /etc/ld.so.preload`,
// Atomic Red Team T1574.006), or a path whose length is exactly the file's size. Rootkits hide in system library
// directories under plausible names (/usr/lib64/libdbus-helper.so.2, /lib/libext4fs.so), so a library directory
// does not clear a library the file preloads.
import { preloadBaseline } from "../baselines/preload-libraries.js";
import { CORE_LIBRARY_NAME, preloadRootkit } from "../intel/preload-rootkits.js";
import { compareText } from "../order.js";
import { basename, num, rowsOf, str } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { inTmpDir } from "./patterns.js";
import { InOrder } from "../in-order.js";

const PRELOAD_FILE = "/etc/ld.so.preload";
/** Directories package managers install shared libraries into. */
const PACKAGED_DIRS = ["/lib/", "/lib64/", "/lib32/", "/libx32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/", "/usr/libx32/", "/usr/libexec/", "/snap/", "/nix/store/", "/gnu/store/"];

function cleanPath(path: string): string {
  return path.trim().replace(/ \(deleted\)$/, "");
}

function isLibrary(path: string): boolean {
  return path.startsWith("/") && endsAsLibrary(basename(path), 1);
}

function hiddenComponent(path: string): boolean {
  return path.split("/").some((c) => c.startsWith(".") && c !== "." && c !== "..");
}

export function packagedLibrary(path: string): boolean {
  return PACKAGED_DIRS.some((d) => path.startsWith(d)) && !hiddenComponent(path);
}

/** The first two path components ("/tmp/.mount_abc"): an app's own bundled libraries share them with its binary. */
export function installRoot(path: string): string {
  return path.split("/").slice(0, 3).join("/");
}

/** Paths a shell command writes into /etc/ld.so.preload (echo/printf redirected, tee, sed -i ... a). */
function writtenToPreload(command: string): string[] {
  if (!command.includes(PRELOAD_FILE)) return [];
  if (!WRITES_PRELOAD.test(command)) return [];
  return command.split(/[\s'"|;&>]+/).map(libraryPath).filter((p): p is string => p !== undefined && p !== PRELOAD_FILE);
}

const WRITES_PRELOAD = new InOrder(/[|;&]/, [/>>?\s*\/etc\/ld\.so\.preload\b/], [/\btee\b/, /\/etc\/ld\.so\.preload\b/]);

/**
 * The library a word names: from its first "/" to its end when that ends in ".so" or ".so.<version>" (at least one
 * character between the "/" and ".so"). Read by hand: as a pattern (`\/[^...]+\.so(?:\.[\w.]*)?`) every "/" of a
 * word started a scan to the word's end, and every ".so." another (quadratic in a word's length).
 */
function libraryPath(word: string): string | undefined {
  const slash = word.indexOf("/");
  return slash >= 0 && endsAsLibrary(word, slash + 2) ? word.slice(slash) : undefined;
}

/** Whether `word` ends in ".so" or ".so.<version>" (`\.so(?:\.[\w.]*)?$`), the ".so" at `from` or later. */
function endsAsLibrary(word: string, from: number): boolean {
  let tail = word.length; // the word's last run of [\w.] characters starts here
  while (tail > 0 && /[\w.]/.test(word[tail - 1] as string)) tail--;
  for (let at = word.indexOf(".so", Math.max(tail, from)); at >= 0; at = word.indexOf(".so", at + 1)) {
    if (at + 3 === word.length || word[at + 3] === ".") return true;
  }
  return false;
}

interface Library {
  path: string;
  pids: Set<string>;
  exes: Set<string>;
  rows: Row[];
}

export const ldSoPreload = defineDetection({
  id: "ld-so-preload",
  title: "System-wide library preload (/etc/ld.so.preload, userland rootkit)",
  reads: {
    file: ["path", "size", "mtime", "uid", "mode"],
    process_memory_map: ["pid", "path"],
    processes: ["pid", "path"],
    shell_history: ["uid", "command", "history_file"],
  },
  severity: "high",
  attack: ["T1574.006", "T1014"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "Snoopy command logger, Dynatrace OneAgent and allocators (jemalloc, tcmalloc) that administrators preload system-wide — see baselines/preload-libraries.ts; a temporary workaround preload left behind by an administrator.",
  advice: {
    triage: ["On {hosts}, read /etc/ld.so.preload from a trusted medium (the rootkit may hide it from ordinary tools) and hash each library it lists."],
    containment: ["Treat process and file listings from {hosts} as untrusted; capture memory and the library before removing it."],
    investigation: ["Check the library's package ownership (dpkg -S / rpm -qf), its mtime against logins and cron changes, and look for the hidden miner or backdoor it protects (CPU use, outbound connections)."],
    remediation: ["Empty /etc/ld.so.preload, delete the library, reboot; reimage when the library is unknown or the host ran a miner."],
  },
  evaluate(host) {
    const exeOf = new Map<string, string>();
    for (const p of rowsOf(host, "processes")) exeOf.set(str(p, "pid"), str(p, "path"));
    const libs = new Map<string, Library>();
    const allExes = new Set<string>();
    for (const row of rowsOf(host, "process_memory_map")) {
      const pid = str(row, "pid");
      const exe = exeOf.get(pid) || `pid:${pid}`;
      allExes.add(exe);
      const path = cleanPath(str(row, "path"));
      if (!isLibrary(path)) continue;
      const lib = libs.get(path) ?? { path, pids: new Set<string>(), exes: new Set<string>(), rows: [] };
      if (!lib.pids.has(pid)) lib.rows.push(row);
      lib.pids.add(pid);
      lib.exes.add(exe);
      libs.set(path, lib);
    }
    const wide = (lib: Library): boolean => lib.exes.size >= 3 && lib.exes.size * 2 >= allExes.size;
    const bundled = (lib: Library): boolean => [...lib.exes].every((e) => e.startsWith("/") && installRoot(e) === installRoot(lib.path));

    const strong: Array<{ lib: Library; why: string; known_bad: boolean }> = [];
    const widespread: Library[] = [];
    const explained: Array<{ lib: Library; id: string }> = [];
    for (const lib of [...libs.values()].sort((a, b) => compareText(a.path, b.path))) {
      const packaged = packagedLibrary(lib.path);
      const rootkit = preloadRootkit(lib.path);
      if (rootkit && !packaged) strong.push({ lib, why: `matches the known preload rootkit ${rootkit.family}`, known_bad: true });
      // Programs extract their own native code to temp dirs (Netty, JNA, snappy-java, PyInstaller): only a library
      // shared by several different programs is injection.
      else if (lib.exes.size >= 2 && CORE_LIBRARY_NAME.test(basename(lib.path)) && !packaged) strong.push({ lib, why: "is a copy of a core system library outside the system library directories", known_bad: false });
      else if (lib.exes.size >= 2 && (hiddenComponent(lib.path) || inTmpDir(lib.path)) && !bundled(lib)) strong.push({ lib, why: "loads from a hidden or temporary location into several programs", known_bad: false });
      else {
        // A library a vendor documents for /etc/ld.so.preload explains the file however few processes were sampled
        // mapping it (Datadog's single-step instrumentation, Snoopy, OneAgent).
        const baseline = preloadBaseline(lib.path);
        if (baseline) explained.push({ lib, id: baseline.id });
        // Libraries shipped next to the programs that load them (/opt/conda, /usr/local in python images) are not injected.
        else if (wide(lib) && !packaged && !bundled(lib)) widespread.push(lib);
      }
    }

    const preload = rowsOf(host, "file").find((r) => str(r, "path") === PRELOAD_FILE && (num(r, "size") ?? 1) > 0);
    const hits: DetectionHit[] = [];
    const history = rowsOf(host, "shell_history").map((row) => ({ row, paths: writtenToPreload(str(row, "command")) })).filter((h) => h.paths.length > 0);
    const written = new Set(history.flatMap((h) => h.paths));
    const fileOf = new Map(rowsOf(host, "file").map((r) => [str(r, "path"), r] as const));
    if (preload) {
      // A library the file lists: named in a history line that wrote the file, or one in most programs that is not
      // the C runtime and not a known preload (a packaged directory does not clear it when the file exists).
      const size = num(preload, "size");
      const fits = (lib: Library): boolean => size !== undefined && (lib.path.length + 1 === size || lib.path.length === size);
      const known = new Set([...strong.map((s) => s.lib), ...widespread, ...explained.map((e) => e.lib)]);
      for (const lib of [...libs.values()].sort((a, b) => compareText(a.path, b.path))) {
        if (known.has(lib) || CORE_LIBRARY_NAME.test(basename(lib.path)) || /^ld-linux|^ld64\.so/.test(basename(lib.path))) continue;
        if (written.has(lib.path) || (wide(lib) && (fits(lib) || explained.length === 0))) widespread.push(lib);
      }
    }
    const mapped = (lib: Library): string => `${lib.path} (mapped into ${lib.pids.size} process${lib.pids.size === 1 ? "" : "es"} of ${lib.exes.size} program${lib.exes.size === 1 ? "" : "s"})`;
    const evidenceOf = (list: Library[]): EvidenceRow[] => list.flatMap((l) => l.rows.slice(0, 5).map((row) => ({ table: "process_memory_map", row })));

    if (preload) {
      const culprits = [...strong.map((s) => s.lib), ...widespread];
      const notes: string[] = [];
      const uid = str(preload, "uid");
      if (uid !== "" && uid !== "0") notes.push(`owned by uid ${uid}`);
      const mode = str(preload, "mode");
      if (/^0?[0-7]{2}[2367]$/.test(mode)) notes.push(`world-writable (${mode})`);
      const mtime = num(preload, "mtime");
      if (mtime !== undefined && mtime > 0) notes.push(`modified ${new Date(mtime * 1000).toISOString()}`);
      const size = num(preload, "size");
      const unmapped = [...written].filter((p) => !culprits.some((l) => l.path === p));
      const named = [...culprits.map(mapped), ...unmapped.map((p) => `${p} (written into the file in shell history)`)];
      const what = named.length > 0 ? `; the preloaded code is likely ${named.join(", ")}` : explained.length > 0 ? `; the library in most processes is ${explained.map((e) => mapped(e.lib)).join(", ")}` : "";
      const summary = `${PRELOAD_FILE} exists${size !== undefined ? ` (${size} bytes)` : ""}${notes.length > 0 ? `, ${notes.join(", ")}` : ""}: every dynamically linked program loads what it lists${what}.`;
      const libFiles = culprits.flatMap((l) => (fileOf.has(l.path) ? [{ table: "file", row: fileOf.get(l.path) as Row }] : []));
      const historyRows = history.map((h) => ({ table: "shell_history", row: h.row }));
      const evidence: EvidenceRow[] = [{ table: "file", row: preload }, ...libFiles, ...historyRows, ...evidenceOf(culprits.length > 0 ? culprits : explained.map((e) => e.lib))];
      const entity = `path:${PRELOAD_FILE}`;
      if (culprits.length === 0 && unmapped.length === 0 && explained.length > 0 && explained[0]) hits.push({ summary, evidence, entity, severity: "info", kept_by: explained[0].id });
      else hits.push({ summary, evidence, entity, severity: "high", known_bad: strong.some((s) => s.known_bad) || undefined });
    }
    for (const s of strong) {
      hits.push({
        summary: `Library ${mapped(s.lib)} ${s.why}.`,
        evidence: evidenceOf([s.lib]),
        entity: `path:${s.lib.path}`,
        severity: "high",
        known_bad: s.known_bad || undefined,
      });
    }
    if (!preload) {
      for (const h of history) {
        hits.push({
          summary: `A shell history line writes ${h.paths.join(", ")} into ${PRELOAD_FILE} (${str(h.row, "history_file") || "shell history"}): every dynamically linked program would load it.`,
          evidence: [{ table: "shell_history", row: h.row }, ...h.paths.flatMap((p) => (fileOf.has(p) ? [{ table: "file", row: fileOf.get(p) as Row }] : []))],
          entity: `path:${h.paths[0] ?? PRELOAD_FILE}`,
          severity: "high",
        });
      }
      for (const lib of widespread) {
        const severity: Severity = "medium";
        hits.push({
          summary: `Library ${mapped(lib)} is loaded by most programs on the host but does not come from a system library directory (a preload, possibly with ${PRELOAD_FILE} hidden).`,
          evidence: evidenceOf([lib]),
          entity: `path:${lib.path}`,
          severity,
        });
      }
    }
    return hits;
  },
});
