// Listening ports explained by their owners (ports.ts): the program that holds a port must be one of its owner's,
// by name, by its runtime and script, or by its executable's path, and not from a temp or hidden directory.
import { inTmpDir } from "../paths.js";
import { isToolDir } from "./hidden-tool-dirs.js";
import { PORT_OWNERS, type PortOwner } from "./ports.js";
import { commName, explain, type Explanation } from "./types.js";

function programMatches(candidates: readonly string[], name: string, exe: string): boolean {
  return candidates.some((c) => (name !== "" && (c === name || (name.length === 15 && commName(c) === name))) || (exe !== "" && c === exe));
}

/**
 * A temp directory, or a hidden one that is no toolchain's (a virtualenv or ~/.local is): no owner's program, script
 * or jar is explained from one (`/dev/shm/homeassistant.py`, `~/.x/flaresolverr.py`).
 */
function dubiousPlace(path: string): boolean {
  if (inTmpDir(path)) return true;
  const dirs = path.split("/").slice(0, -1);
  return dirs.some((d) => d.startsWith(".") && d !== "." && d !== ".." && !isToolDir(d));
}

function ownerExplains(owner: PortOwner, port: number, name: string, exe: string, cmdline: string, path: string): boolean {
  // Known by its executable's path: that file (replaced by an upgrade or not), under its own name.
  const file = path.replace(/ \(deleted\)$/, "");
  if (owner.executable !== undefined) return owner.executable.test(file) && name === exe && (owner.fits?.(port, exe, file, cmdline) ?? true);
  if (dubiousPlace(path)) return false;
  if (programMatches(owner.programs, name, exe)) return true;
  const rt = owner.runtime;
  if (rt === undefined || !programMatches(rt.programs, name, exe)) return false;
  const script = scriptOf(cmdline);
  if (rt.at !== undefined) return rt.at.interpreter.test(file) && rt.at.script.test(script);
  if (dubiousPlace(script) || classpathOf(cmdline).some(dubiousPlace)) return false;
  return (rt.script === true ? script : cmdline).toLowerCase().includes(rt.token.toLowerCase());
}

/** A JVM's class path entries (`-cp a.jar:lib/*`), where its main class is loaded from. */
function classpathOf(cmdline: string): string[] {
  const words = cmdline.trim().split(/\s+/).slice(1, 64);
  const at = words.findIndex((w) => w === "-cp" || w === "-classpath" || w === "--class-path");
  return at < 0 ? [] : (words[at + 1] ?? "").split(":");
}

/** What an interpreter's command line runs: its script (the first operand), or `-m module`; "" for `-c` code. */
function scriptOf(cmdline: string): string {
  const words = cmdline.trim().split(/\s+/).slice(1, 64);
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i] ?? "";
    if (w === "-m") return `-m ${words[i + 1] ?? ""}`;
    // Inline code, its flag alone or with the code attached (`-e$s=...`, `-cimport socket`): no script runs.
    if (w === "-c" || w === "-e" || (/^-[ce]\S/.test(w) && !/^-(?:cp|classpath|ea|enableassertions|esa)$/.test(w))) return "";
    if (w === "-jar") return words[i + 1] ?? "";
    if (w === "-X" || w === "-W" || w === "-cp" || w === "-classpath" || w === "--class-path") i += 1;
    else if (!w.startsWith("-")) return w;
  }
  return "";
}

export interface ListenerQuery {
  port: number;
  /** osquery listening_ports.protocol: 6 TCP, 17 UDP. */
  protocol?: number;
  /** processes.name ("" when the socket has no owning process). */
  processName: string;
  /** processes.path. */
  path?: string;
  cmdline?: string;
  /** True when no process owns the socket (pid -1/0: kernel sockets). */
  kernel?: boolean;
  /**
   * Only owners that list this port by number (not in a range), and only a process whose name is its executable's
   * (no renamed interpreter, no retitled process): for ports bind shells default to (4444).
   */
  listedOnly?: boolean;
}

/** The port is one of the owner's, listed or in one of its ranges. */
function ownsPort(owner: PortOwner, port: number): boolean {
  return owner.ports.includes(port) || (owner.ranges?.some(([lo, hi]) => port >= lo && port <= hi) ?? false);
}

/** The port is a default of the program that holds it. */
export function expectedListener(query: ListenerQuery | number, processName?: string): Explanation | undefined {
  const q: ListenerQuery = typeof query === "number" ? { port: query, processName: processName ?? "" } : query;
  const path = q.path ?? "";
  const exe = path === "" ? "" : path.replace(/ \(deleted\)$/, "").split("/").pop() ?? "";
  const name = q.processName;
  for (const owner of PORT_OWNERS) {
    if (!(q.listedOnly === true ? owner.ports.includes(q.port) && (name === exe || commName(exe) === name) : ownsPort(owner, q.port))) continue;
    if (owner.protocol !== undefined && q.protocol !== undefined && owner.protocol !== q.protocol) continue;
    if (q.kernel === true || (name === "" && exe === "")) {
      if (owner.kernel === true) return explain(owner.id, owner.source);
      continue;
    }
    if (ownerExplains(owner, q.port, name, exe, q.cmdline ?? "", path)) return explain(owner.id, owner.source);
  }
  return undefined;
}

/** The default programs for a port (for summaries: "9100 is node_exporter's port"). */
export function defaultProgramsFor(port: number): string[] {
  const out = new Set<string>();
  for (const o of PORT_OWNERS) if (ownsPort(o, port)) for (const p of [...o.programs, ...(o.runtime ? [`${o.runtime.programs.join("/")} (${o.runtime.token})`] : [])]) out.add(p);
  return [...out];
}

