// systemd units defined in odd places or whose Exec lines download, decode or run from temp or hidden directories.
// Unit contents come from osquery's augeas table (Systemd lens), joined by file path to systemd_units.fragment_path.
// A unit whose program sits directly in a data or library directory (/var/lib/x, /usr/local/lib/x, /etc/x) is a
// dropped binary, not an installed one: packages put programs in bin/sbin/libexec or their own subdirectory
// (FHS 3.0: /var/lib holds state, /usr/lib object files and internal binaries in a package's own subdirectory).
// When that program is also running with a connection to a public address, the unit is a persistent implant.
import { packagedUnitFile, tempExecution } from "../baselines/index.js";
import { inNixSystemdStore, inSystemdDir, systemdProgramElsewhere, unknownSystemdProgram } from "../baselines/systemd-programs.js";
import { nixHost } from "../baselines/nix-store.js";
import { isPublic } from "../net.js";
import { appendTo, basename, processIndex, rowsOf, str } from "../rows.js";
import type { HostData, Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { commandSignals, firstToken, inTmpDir, isShell } from "./patterns.js";
import { isToolDir } from "../baselines/hidden-tool-dirs.js";

/** XDG's data, cache and config directories: hidden, and where user-level implants hide (~/.local/share/dbus-1/...). */
const XDG_DIRS: ReadonlySet<string> = new Set([".local", ".cache", ".config"]);

/**
 * Whether a program runs from a hidden directory. A toolchain's or a virtualenv's (/srv/app/.venv/bin/gunicorn,
 * ~/.cargo/bin) is where such units run, and so is ~/.local/bin (pipx, user installs); the rest of XDG's directories
 * hold data, not programs.
 */
function hiddenProgramDir(program: string): boolean {
  const segments = program.split("/").slice(0, -1);
  return segments.some((seg, i) => /^\.[A-Za-z0-9_-]+$/.test(seg) && !(isToolDir(seg) && (!XDG_DIRS.has(seg) || (seg === ".local" && segments[i + 1] === "bin"))));
}

/** /files/<unit path>/<Section>/<ExecXxx>[n]/command | /arguments/<i> */
const EXEC_NODE = /^\/files(\/.+?)\/[A-Za-z]+\/(Exec[A-Za-z]+(?:\[\d+\])?)\/(command|arguments(?:\/|\[)(\d+)\]?)$/;

interface ExecLine {
  path: string;
  key: string;
  command: string;
  args: Array<[number, string]>;
  rows: Row[];
  /** Where the line was read: the unit file (augeas) or, without augeas rows, the unit's running processes. */
  table: "augeas" | "processes";
}

/** Exec lines per unit file, rebuilt from augeas rows (command plus ordered arguments). */
export function unitExecLines(rows: readonly Row[]): Map<string, ExecLine[]> {
  const lines = new Map<string, ExecLine>();
  for (const row of rows) {
    const m = EXEC_NODE.exec(str(row, "node"));
    if (!m) continue;
    const path = str(row, "path") || (m[1] ?? "");
    const key = `${path}|${m[2] ?? ""}`;
    const line = lines.get(key) ?? { path, key: m[2] ?? "", command: "", args: [], rows: [], table: "augeas" as const };
    if (m[3] === "command") line.command = str(row, "value");
    else line.args.push([Number(m[4] ?? 0), str(row, "value")]);
    line.rows.push(row);
    lines.set(key, line);
  }
  const byPath = new Map<string, ExecLine[]>();
  for (const line of lines.values()) appendTo(byPath, line.path, line);
  return byPath;
}

/**
 * The service of a control group as systemd names it: /system.slice/<unit> (nested slices allowed), read part by part
 * from the end (as one expression, `(?:[^/]+\.slice\/)*` retried from every slice of a long path: quadratic).
 */
function serviceOfCgroup(path: string): string | undefined {
  const parts = path.split("/");
  const unit = parts[parts.length - 1] ?? "";
  if (!/^[^/]+\.service$/.test(unit)) return undefined;
  for (let i = parts.length - 2; i >= 1; i--) {
    const part = parts[i] ?? "";
    if (part === "system.slice") return unit;
    if (!/^[^/]+\.slice$/.test(part)) return undefined;
  }
  return undefined;
}

/**
 * The unit a process's control group names, for a system service or a user manager's (`.../user@1000.service/app.slice/
 * pgmon.service`): its last part when that is a .service inside a slice. Read part by part like serviceOfCgroup.
 */
function unitOfCgroup(path: string): string | undefined {
  const parts = path.split("/");
  const unit = parts[parts.length - 1] ?? "";
  if (!/^[^/]+\.service$/.test(unit) || parts.length < 3) return undefined;
  return /^[^/]+\.slice$/.test(parts[parts.length - 2] ?? "") ? unit : undefined;
}

/**
 * Without the unit file's contents (no augeas rows for it), what the unit runs is seen in its processes: systemd
 * puts every process of a service in the control group named after the unit (processes.cgroup_path). Their command
 * lines stand in for the Exec lines, one line per distinct command line.
 */
export function unitProcessLines(host: HostData): Map<string, ExecLine[]> {
  const byUnit = new Map<string, ExecLine[]>();
  for (const row of rowsOf(host, "processes")) {
    const unit = serviceOfCgroup(str(row, "cgroup_path"));
    const command = str(row, "cmdline") || str(row, "path");
    if (unit === undefined || command === "") continue;
    const lines = byUnit.get(unit) ?? [];
    if (lines.length >= 3 || lines.some((l) => l.command === command)) continue;
    lines.push({ path: "", key: "running process", command, args: [], rows: [row], table: "processes" });
    byUnit.set(unit, lines);
  }
  return byUnit;
}

/** Unit names that borrow a system component's name with a suffix (udev-worker, systemd-update, dbus-broker-helper). */
const SYSTEM_NAME = /^(systemd|udev|dbus|sshd?|rsyslog|syslog|network|networkd|cron|polkit|snapd|kworker|kthread|journald|logind|getty|gnome|kubelet|containerd|dockerd?)[-_][\w.-]*\.service$/;

/** Programs where Debian packages put them (a system component's own binary lives here). */
function packagedProgram(program: string): boolean {
  if (inSystemdDir(program)?.startsWith("systemd-")) return unknownSystemdProgram(program) === undefined;
  return /^\/(?:usr\/)?s?bin\/[^/]+$/.test(program) || /^\/usr\/libexec\//.test(program) || /^\/opt\//.test(program);
}

/**
 * Where a unit defined outside any package lives: by hand in /etc/systemd/system, or written at boot by a generator
 * (/run/systemd/generator, .early, .late), which systemd runs as root before anything else (a generator planted in
 * /etc/systemd/system-generators writes a fresh unit on every boot).
 */
const UNPACKAGED_UNIT = /^\/(?:etc\/systemd\/system|run\/systemd\/generator(?:\.early|\.late)?)\//;

/** Directories that hold data, state or libraries: a program directly inside one was put there by hand. */
const DATA_DIRS: ReadonlySet<string> = new Set([
  "/var", "/var/lib", "/var/cache", "/var/spool", "/var/log", "/var/backups", "/var/mail", "/var/opt", "/var/run", "/run",
  "/etc", "/usr/share", "/usr/local/share", "/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/dev", "/boot",
]);

/** Where a program sits when that place is a data or library directory (the program file directly inside it). */
export function dataDirProgram(program: string): string | undefined {
  if (!program.startsWith("/")) return undefined;
  const dir = program.slice(0, program.lastIndexOf("/")) || "/";
  // /etc/rc.local is the script systemd's rc-local generator runs by design (systemd-rc-local-generator(8)).
  if (program === "/etc/rc.local") return undefined;
  // systemd's own directory holds its programs (systemd-*) and unit subdirectories, nothing else's daemon.
  if ((dir === "/usr/lib/systemd" || dir === "/lib/systemd") && !program.slice(dir.length + 1).startsWith("systemd")) return dir;
  return DATA_DIRS.has(dir) ? dir : undefined;
}

/**
 * The programs an Exec line runs: its own, and when that is a shell given a script (`/bin/sh -c "..."`, the usual
 * wrapper of persistence and of many a legitimate unit alike), the first program of each command of the script.
 */
export function execPrograms(command: string): string[] {
  const program = firstToken(command).replace(/^[-@:+!]+/, "");
  const script = isShell(program) ? /\s-[a-z]*c\s+(.+)$/s.exec(command)?.[1] : undefined;
  if (script === undefined) return [program];
  const unquoted = script.trim().replace(/^(["'])([\s\S]*)\1$/, "$2");
  const inner = unquoted.split(/&&|\|\||[;&|\n]/).map((c) => firstToken(c.replace(/^\s*(?:exec|nohup|setsid)\s+/, "")).replace(/^["']/, ""));
  return [program, ...new Set(inner.filter((p) => p !== "" && p !== program))];
}

function render(line: ExecLine): string {
  return [line.command, ...line.args.sort((a, b) => a[0] - b[0]).map(([, v]) => v)].join(" ").trim();
}

export const suspiciousSystemdUnit = defineDetection({
  id: "suspicious-systemd-unit",
  title: "Suspicious systemd unit",
  reads: {
    systemd_units: ["id", "fragment_path"],
    augeas: ["node", "value", "path"],
    processes: ["pid", "path", "cmdline", "cgroup_path"],
    process_open_sockets: ["pid", "remote_address", "remote_port"],
  },
  severity: "medium",
  attack: ["T1543.002"],
  maturity: "test",
  category: "persistence",
  false_positives: "Vendor installers that ship units under /etc/systemd/system running from hidden directories or fetching with curl.",
  advice: {
    triage: ["Print the unit (systemctl cat) on {hosts} and hash the binary it starts."],
    containment: ["Stop and mask the unit on {hosts}."],
    investigation: ["Check who wrote the unit file and whether the same unit exists on other hosts."],
    remediation: ["Remove the unit and its binary; run systemctl daemon-reload."],
  },
  evaluate(host) {
    // On NixOS a unit runs systemd's programs from systemd's store path (writing a unit takes root).
    const nix = nixHost(rowsOf(host, "processes"));
    const exec = unitExecLines(rowsOf(host, "augeas"));
    const running = unitProcessLines(host);
    const units = new Map<string, Row>();
    for (const row of rowsOf(host, "systemd_units")) {
      const fragment = str(row, "fragment_path");
      if (fragment !== "" && !units.has(fragment)) units.set(fragment, row);
    }
    // Running programs with a connection to a public address (program path -> process and socket rows).
    const procs = processIndex(host);
    const online = new Map<string, Row[]>();
    for (const sock of rowsOf(host, "process_open_sockets")) {
      if (!isPublic(str(sock, "remote_address")) || str(sock, "remote_port") === "" || str(sock, "remote_port") === "0") continue;
      const proc = procs.get(str(sock, "pid"));
      const exe = str(proc, "path");
      if (proc === undefined || exe === "") continue;
      appendTo(online, exe, proc, sock);
    }
    // A service's processes that run from a temp directory (what the unit started, or a child it spawned there), by the
    // unit their control group names: a system service's or a user manager's (user@1000.service/app.slice/x.service).
    const fromTemp = new Map<string, Row[]>();
    for (const row of rowsOf(host, "processes")) {
      const unitName = unitOfCgroup(str(row, "cgroup_path"));
      const exe = str(row, "path").replace(/ \(deleted\)$/, "");
      if (unitName !== undefined && inTmpDir(exe) && tempExecution(exe) === undefined) appendTo(fromTemp, unitName, row);
    }
    const hits: DetectionHit[] = [];
    for (const path of [...new Set([...units.keys(), ...exec.keys()])].sort()) {
      const unit = units.get(path);
      const lines = exec.get(path) ?? running.get(str(unit, "id")) ?? [];
      const reasons: string[] = [];
      let strong = false;
      const netEvidence: EvidenceRow[] = [];
      const tempRuns = fromTemp.get(str(unit, "id") || basename(path)) ?? [];
      if (tempRuns.length > 0) {
        reasons.push(`its service runs ${[...new Set(tempRuns.map((r) => str(r, "path")))].slice(0, 3).join(", ")} from a temp directory`);
        netEvidence.push(...tempRuns.slice(0, 3).map((row) => ({ table: "processes", row })));
      }
      if (inTmpDir(path)) {
        reasons.push(`unit file lives in ${path}`);
        strong = true;
      } else if (/^\/home\/[^/]+\/\.config\/systemd\//.test(path) || /^\/root\/\.config\/systemd\//.test(path)) {
        reasons.push(`user-level unit at ${path}`);
      }
      const commands = lines.map(render).filter((c) => c !== "");
      for (const [i, command] of commands.entries()) {
        const key = lines[i]?.key ?? "Exec";
        for (const s of commandSignals(command)) {
          reasons.push(`${key} ${s.why}`);
          strong = strong || s.strong;
        }
        for (const program of execPrograms(command)) {
          if (inTmpDir(program)) strong = true;
          if (hiddenProgramDir(program)) reasons.push(`${key} runs from a hidden directory`);
          if (systemdProgramElsewhere(program) && !(nix && inNixSystemdStore(program) !== undefined)) {
            // systemd's own programs live in its directory; one by the same name elsewhere borrows its look.
            reasons.push(`${key} runs ${program}, named like systemd's own ${basename(program)}, from outside systemd's directory`);
            strong = true;
          }
          const dataDir = dataDirProgram(program);
          const live = online.get(program);
          const imitated = SYSTEM_NAME.exec(str(unit, "id") || basename(path))?.[1];
          if (dataDir === undefined && imitated !== undefined && UNPACKAGED_UNIT.test(path) && live?.[1] !== undefined && !packagedProgram(program)) {
            // A unit named like a system component (udev-worker, dbus-broker-helper), defined by hand in /etc or by a
            // generator at boot, whose program no package installs there and which holds a connection to a public
            // address: an implant.
            reasons.push(`the unit is named like the ${imitated} system component but is defined in ${path.slice(0, path.lastIndexOf("/"))} and runs ${program}, which no package installs there`);
            reasons.push(`it is running and connected to ${str(live[1], "remote_address")}:${str(live[1], "remote_port")}`);
            strong = true;
            netEvidence.push(...live.slice(0, 4).map((row, i) => ({ table: i % 2 === 0 ? "processes" : "process_open_sockets", row })));
          }
          if (dataDir !== undefined) {
            reasons.push(`${key} runs ${program}, a program dropped directly in ${dataDir} (a data or library directory)`);
            if (live && live[1]) {
              reasons.push(`it is running and connected to ${str(live[1], "remote_address")}:${str(live[1], "remote_port")}`);
              strong = true;
              netEvidence.push(...live.slice(0, 4).map((row, i) => ({ table: i % 2 === 0 ? "processes" : "process_open_sockets", row })));
            }
          }
        }
      }
      if (reasons.length === 0) continue;
      const evidence: EvidenceRow[] = [
        ...(unit ? [{ table: "systemd_units", row: unit }] : []),
        ...lines.flatMap((l) => l.rows.map((row) => ({ table: l.table, row }))),
        ...netEvidence,
      ];
      const name = str(unit, "id") || basename(path);
      const shown = commands.length > 0 ? ` (${commands.join(" | ").slice(0, 100)})` : "";
      const packaged = strong ? undefined : packagedUnitFile(path);
      if (packaged) {
        hits.push({ summary: `Unit ${name} comes from a package's unit directory (${packaged.source}): ${reasons.join("; ")}${shown}.`, evidence, entity: `unit:${name}`, kept_by: packaged.baseline });
        continue;
      }
      // A user's own unit with nothing else odd about it (ssh-agent, syncthing: common on desktops and jump hosts) is
      // an observation; what it runs, where from and whether it calls out decide more.
      const userUnitOnly = !strong && reasons.length === 1 && reasons[0]?.startsWith("user-level unit") === true;
      hits.push({ summary: `Unit ${name}: ${reasons.join("; ")}${shown}.`, evidence, severity: strong ? "high" : userUnitOnly ? "info" : undefined, entity: `unit:${name}` });
    }
    return hits;
  },
});
