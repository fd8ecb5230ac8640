// Programs run from hidden (dot) directories or files under system paths: /usr/lib/.x/, /lib/.udev/, /dev/.x,
// /var/tmp/.ICE-unix/.x, /etc/.x, /var/lib/.x, /root/.cache/.x, seen as a running process's executable (or the
// script an interpreter runs), a cron command, or a systemd unit's ExecStart. Home-directory toolchains
// (~/.vscode-server, ~/.nvm, ~/.cargo/bin, ~/.local/bin, .venv...) are baseline (baselines/hidden-tool-dirs.ts).
// Facts: Sigma "Use Of Hidden Paths Or Files" (lnx_auditd_hidden_binary_execution.yml, filters .cache/.config/
// .pyenv/.rustup), ATT&CK T1564.001 procedure examples (Hildegard, TeamTNT, Rocke, XMRig droppers in /tmp/.X11-unix).
import { basename, rowsOf, str, withoutTrailingSlashes } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { isFrameworkBuild, isToolDir, isUserToolInstall, isWorkflowTaskScript } from "../baselines/hidden-tool-dirs.js";
import { clip, cronCommand, simpleCommands } from "./command-lines.js";
import { inTmpDir } from "./patterns.js";
import { resolvedSegments } from "../paths.js";
import { compareText } from "../order.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

const INTERPRETER = /^(?:(?:ba|da|z|k)?sh|busybox|python[0-9.]*|perl|ruby|php[0-9.]*|node|lua)$/;
const EXEC_NODE = /\/Service\/Exec(?:Start|StartPre|StartPost|Reload|Stop|StopPost)\/command$/;

/** The hidden socket directories every X11 desktop's /tmp has (and droppers favour). */
const SOCKET_DIRS = new Set([".X11-unix", ".ICE-unix", ".font-unix", ".XIM-unix", ".Test-unix"]);

export interface Hidden {
  severity: Severity;
  segment: string;
  where: string;
  /** A program right in a base directory (~/.config/x), not in a hidden directory of its own. */
  loose?: true;
}

/** Whether a path runs from an unexpected hidden directory or file, and how bad that location is. */
export function hiddenExec(path: string): Hidden | undefined {
  if (!path.startsWith("/")) return undefined;
  if (isUserToolInstall(path)) return undefined;
  const segments = resolvedSegments(path);
  let afterTool = false;
  let unknown: string | undefined;
  for (const [i, s] of segments.entries()) {
    if (!s.startsWith(".") || s === "." || s === "..") continue;
    if (isToolDir(s) || isWorkflowTaskScript(segments, i)) {
      afterTool = true;
      continue;
    }
    // The X11/ICE socket directories are where droppers hide (/tmp/.X11-unix/kswapd0), but a hidden directory made
    // inside one (/tmp/.X11-unix/.rsync/) is the one the attacker made: that is the one named.
    if (unknown === undefined || SOCKET_DIRS.has(unknown)) unknown = s;
    if (!SOCKET_DIRS.has(s)) break;
  }
  const top = segments[0] ?? "";
  if (unknown === undefined) return looseInBaseDir(segments);
  if (top === "home" || (top === "run" && segments[1] === "user")) return { severity: afterTool ? "medium" : "low", segment: unknown, where: "a home directory" };
  if (top === "root") return { severity: afterTool ? "high" : "medium", segment: unknown, where: "root's home directory" };
  if (["usr", "lib", "lib32", "lib64", "bin", "sbin", "etc", "dev", "boot", "opt"].includes(top)) return { severity: "high", segment: unknown, where: `/${top}` };
  if (["var", "tmp", "run", "srv", "mnt", "media"].includes(top)) return { severity: "high", segment: unknown, where: `/${top}` };
  return { severity: "medium", segment: unknown, where: `/${top}` };
}

/**
 * A program loose in a home's XDG base directory (~/.config/guiconfigd, Lazarus' SimplexTea; a service account's
 * ~/.cache/kinsing): applications keep their files there in a subdirectory of their own, and programs in ~/.local/bin,
 * so nothing installs an executable right in ~/.config, ~/.cache, ~/.local, ~/.local/share or ~/.local/state
 * (freedesktop.org basedir-spec). Only right under a home: a person's (/home/<user>, low), root's or a service
 * account's (/var/lib/<service>, /var/www, /srv/<site>: medium); a build tree's .cache (node_modules/.cache) is none.
 */
function looseInBaseDir(segments: readonly string[]): Hidden | undefined {
  const top = segments[0] ?? "";
  const home = top === "home" ? 2 : top === "root" ? 1 : top === "var" && segments[1] === "lib" ? 3 : top === "var" && segments[1] === "www" ? 2 : top === "srv" ? 2 : 0;
  if (home === 0 || segments.length <= home) return undefined;
  const rest = segments.slice(home);
  const base = rest.length === 2 && [".config", ".cache", ".local"].includes(rest[0] ?? "") ? rest[0] : rest.length === 3 && rest[0] === ".local" && (rest[1] === "share" || rest[1] === "state") ? `.local/${rest[1]}` : undefined;
  if (base === undefined) return undefined;
  const where = top === "home" ? "a home directory" : top === "root" ? "root's home directory" : `the service home ${"/" + segments.slice(0, home).join("/")}`;
  return { severity: top === "home" ? "low" : "medium", segment: base, where, loose: true };
}

/** The programs a command line runs: each command word, and the script an interpreter is given. */
function executedPaths(command: string, depth = 0): string[] {
  const out: string[] = [];
  let cwd = "";
  for (const cmd of simpleCommands(command)) {
    if (cmd.program === "cd") {
      cwd = cmd.args[0] ?? "";
      continue;
    }
    const word = cmd.word.startsWith("./") && cwd.startsWith("/") ? `${withoutTrailingSlashes(cwd)}/${cmd.word.slice(2)}` : cmd.word;
    if (word.startsWith("/")) out.push(word);
    if (INTERPRETER.test(cmd.program)) {
      const c = cmd.args.indexOf("-c");
      if (c >= 0 && cmd.args[c + 1] !== undefined && depth < 2) out.push(...executedPaths(cmd.args[c + 1] ?? "", depth + 1));
      const script = cmd.args.find((a) => !a.startsWith("-"));
      if (script !== undefined && !/\s-[ce]\b/.test(` ${cmd.args.join(" ")}`)) {
        out.push(script.startsWith("./") && cwd.startsWith("/") ? `${withoutTrailingSlashes(cwd)}/${script.slice(2)}` : script);
      }
    }
  }
  return out;
}

/** JavaScript runtimes that run a framework's built server (`node .output/server/index.mjs`). */
const JS_RUNTIMES: ReadonlySet<string> = new Set(["node", "nodejs", "bun", "deno"]);
/** Where no application's build lives: system directories, root's home, temp directories. */
const NOT_AN_APP_DIR = /^\/(?:usr|lib|lib32|lib64|bin|sbin|etc|dev|boot|proc|sys|root|tmp|var\/tmp|run)(?:\/|$)/;

/**
 * A web framework's production server, run as its documented start command: a script (.js, .mjs, .cjs) given to a
 * JavaScript runtime, in the build directory the framework writes (isFrameworkBuild), in an application's directory.
 * Only as a script: a process's own executable, a cron line or a unit's program there stays a finding.
 */
function frameworkServer(exe: string, script: string): boolean {
  if (!JS_RUNTIMES.has(basename(exe)) || !/\.[mc]?js$/.test(script) || NOT_AN_APP_DIR.test(script) || inTmpDir(script)) return false;
  const segments = script.split("/").filter((x) => x !== "");
  const hidden = segments.filter((x) => x.startsWith(".") && x !== "." && x !== ".." && !isToolDir(x));
  return hidden.length === 1 && segments.some((x, i) => x === hidden[0] && isFrameworkBuild(x, segments[i + 1]));
}

/** The first program a command line runs from an unexpected hidden directory or file, with how bad that place is. */
export function hiddenProgramIn(command: string): { path: string; hidden: Hidden } | undefined {
  for (const path of executedPaths(command)) {
    const hidden = hiddenExec(path);
    if (hidden !== undefined) return { path, hidden };
  }
  return undefined;
}

const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

export const hiddenSystemPathExec = defineDetection({
  id: "hidden-system-path-exec",
  title: "Program run from a hidden directory under a system path",
  reads: {
    processes: ["pid", "name", "path", "cmdline"],
    crontab: ["command", "path"],
    augeas: ["node", "value", "path"],
    file: ["path", "type", "mode"],
  },
  severity: "high",
  attack: ["T1564.001", "T1036.005"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "Toolchains and editor servers in home directories (~/.vscode-server, ~/.nvm, ~/.cargo, ~/.local/bin, ~/.dotnet, ~/.acme.sh), virtualenvs (.venv) and node_modules/.bin shims are baseline. Other tools that install into an unlisted dot-directory of a user's home show as low.",
  advice: {
    triage: ["On {hosts}, hash the binary, list the hidden directory (ls -la), and note its owner and timestamps."],
    containment: ["Kill the process, remove the cron entry or unit that starts it, and quarantine the directory on {hosts}."],
    investigation: ["Find how it got there (download in shell history, web or service child) and whether other hosts carry the same path."],
    remediation: ["Delete the directory and its persistence; check for a rootkit hiding more of it (ld.so.preload, kernel modules)."],
  },
  evaluate(host) {
    const found = new Map<string, { hidden: Hidden; evidence: EvidenceRow[]; how: string[] }>();
    const note = (path: string, table: string, row: Row, how: string): void => {
      const hidden = hiddenExec(path);
      if (hidden === undefined) return;
      const entry = found.get(path) ?? { hidden, evidence: [], how: [] };
      entry.evidence.push({ table, row });
      if (!entry.how.includes(how)) entry.how.push(how);
      found.set(path, entry);
    };
    for (const row of rowsOf(host, "processes")) {
      const exe = str(row, "path").replace(/ \(deleted\)$/, "");
      const pid = str(row, "pid");
      if (exe !== "") note(exe, "processes", row, `running as pid ${pid}`);
      if (exe === "" || INTERPRETER.test(basename(exe))) {
        const cmd = str(row, "cmdline");
        const paths = executedPaths(cmd).filter((p) => p !== exe);
        for (const p of paths) if (!frameworkServer(exe, p)) note(p, "processes", row, `run by ${basename(exe) || str(row, "name")} (pid ${pid})`);
      }
    }
    for (const row of rowsOf(host, "crontab")) {
      const command = cronCommand(row);
      // The label is made once per row: a line of many programs made it once per program (quadratic; a ReDoS audit).
      let how: string | undefined;
      for (const p of executedPaths(command)) note(p, "crontab", row, (how ??= `started by cron (${str(row, "path") || "crontab"}: ${clip(str(row, "command"), 80)})`));
    }
    const augeas = rowsOf(host, "augeas");
    const args = new Map<string, string>();
    for (const row of augeas) {
      const node = str(row, "node");
      if (/\/arguments\/1$/.test(node)) args.set(node.replace(/\/arguments\/1$/, ""), str(row, "value"));
    }
    for (const row of augeas) {
      const node = str(row, "node");
      if (!EXEC_NODE.test(node)) continue;
      const command = str(row, "value").replace(/^[-@:+!]+/, "");
      const unit = str(row, "path") || node.replace(/^\/files/, "").replace(/\/Service\/[^]*$/, "");
      note(command, "augeas", row, `started by systemd unit ${unit}`);
      const first = args.get(node.replace(/\/command$/, ""));
      if (first !== undefined && INTERPRETER.test(basename(command))) note(first, "augeas", row, `started by systemd unit ${unit} (${basename(command)})`);
    }
    // Executable files sitting in a hidden directory under a system path, running or not (a stashed toolkit):
    // one hit per hidden directory, medium, since nothing shows them running.
    const stashed = new Map<string, { hidden: Hidden; rows: Row[] }>();
    for (const row of rowsOf(host, "file")) {
      const path = str(row, "path");
      const mode = /^0?[0-7]?([0-7]{3})$/.exec(str(row, "mode").trim())?.[1];
      const type = str(row, "type");
      if (found.has(path) || mode === undefined || (Number.parseInt(mode, 8) & 0o111) === 0 || (type !== "" && type !== "regular")) continue;
      const hidden = hiddenExec(path);
      if (hidden === undefined || hidden.severity !== "high" || path.endsWith(`/${hidden.segment}`)) continue;
      const dir = path.slice(0, path.indexOf(`/${hidden.segment}/`) + hidden.segment.length + 1);
      if ([...found.keys()].some((p) => p.startsWith(`${dir}/`))) continue;
      const entry = stashed.get(dir) ?? { hidden, rows: [] };
      entry.rows.push(row);
      stashed.set(dir, entry);
    }
    const hits: DetectionHit[] = [];
    for (const [dir, { hidden, rows }] of [...stashed.entries()].sort(([a], [b]) => compareText(a, b))) {
      const names = rows.map((r) => basename(str(r, "path")));
      hits.push({
        summary: `The hidden directory ${dir} under ${hidden.where} holds ${rows.length} executable file${rows.length === 1 ? "" : "s"} (${names.slice(0, 5).join(", ")}).`,
        evidence: rows.slice(0, 6).map((row) => ({ table: "file", row })),
        severity: "medium",
        entity: `path:${dir}`,
      });
    }
    for (const [path, { hidden, evidence, how }] of [...found.entries()].sort(([a], [b]) => compareText(a, b))) {
      const severity = hidden.severity;
      hits.push({
        summary: hidden.loose
          ? `${path} is a program loose in ${hidden.segment} under ${hidden.where}, where applications keep only directories of their own: ${how.slice(0, 3).join("; ")}.`
          : `${path} runs from the hidden ${path.endsWith(hidden.segment) ? "file" : "directory"} ${hidden.segment} under ${hidden.where}: ${how.slice(0, 3).join("; ")}.`,
        evidence,
        ...(RANK[severity] === RANK.high ? {} : { severity }),
        entity: `path:${path}`,
      });
    }
    return hits;
  },
});
