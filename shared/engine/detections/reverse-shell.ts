// A shell (or netcat-like tool) holding a connection to a remote address, or an interpreter one-liner that opens a
// socket and hands it a shell (perl `use Socket` + `exec("/bin/sh -i")`, python socket + dup2/pty, ruby TCPSocket,
// php fsockopen, lua socket.tcp, node net.Socket + child_process, awk /inet/tcp).
// Facts: PayloadsAllTheThings "Reverse Shell Cheatsheet", Atomic Red Team T1059.004/T1059.006, Sigma
// proc_creation_lnx_perl_reverse_shell / proc_creation_lnx_python_reverse_shell / proc_creation_lnx_php_reverse_shell.
import { appendTo, basename, num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { isRemotePeer } from "../net.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { NETCAT_EXEC, NETCAT_LIKE, SHELL_THROUGH_NETWORK, SHELLS, socatForwarder } from "./patterns.js";

const REVERSE_CMDLINE = /\/dev\/tcp\/|\bbash\s+-i\b|socket\.socket|pty\.spawn|\bexec:|\bsystem:/i;
/** Script interpreters that run inline code (`-e`, `-c`, `-r`, `BEGIN{}`). */
const INTERPRETER = /^(?:python[0-9.]*|perl[0-9.]*|php[0-9.]*(?:-cli)?|ruby[0-9.]*|lua[0-9.]*|luajit|node|nodejs|[gmn]?awk|tclsh[0-9.]*)$/;
/** Inline code that opens a network socket. */
const SOCKET_CODE = /\buse\s+Socket\b|IO::Socket|socket\.socket|\bsocket\s*\(|TCPSocket|fsockopen|stream_socket_client|socket\.tcp\s*\(|net\.Socket|net\.connect|require\(\s*['"]net['"]\s*\)|\/inet\/tcp\//i;
/** Inline code that wires that socket to a shell or to the process's standard streams. */
const SHELL_CODE = /\/bin\/(?:ba|da|z)?sh\b|\bsh\s+-i\b|pty\.spawn|\bdup2\b|open\s*\(\s*STD(?:IN|OUT|ERR)|\bexec\s*\(|\bsystem\s*\(|\bpopen\b|\bspawn\s*\(|child_process|\bproc_open\b|\|&/i;

/** Whether a command line looks like a reverse shell: a known shell redirection, or interpreter code doing both halves. */
export function reverseShellCommand(cmdline: string): boolean {
  return REVERSE_CMDLINE.test(cmdline) || NETCAT_EXEC.test(cmdline) || (SOCKET_CODE.test(cmdline) && SHELL_CODE.test(cmdline));
}

function established(row: Row): boolean {
  const state = str(row, "state").toUpperCase();
  return state === "" || state === "ESTABLISHED" || state === "SYN_SENT";
}

export const reverseShell = defineDetection({
  id: "reverse-shell",
  title: "Shell with an outbound network connection (reverse shell)",
  reads: { processes: ["pid", "name", "path", "cmdline", "uid", "parent"], process_open_sockets: ["pid", "remote_address", "remote_port", "state"] },
  severity: "high",
  attack: ["T1059.004", "T1071"],
  maturity: "stable",
  category: "command-and-control",
  false_positives: "socat/netcat used as a plain port forwarder; shells spawned by tools that inherit a socket. Interpreters running scripts from files (gunicorn, munin-node, node servers) are only judged when their inline code both opens a socket and starts a shell.",
  advice: {
    triage: ["On {hosts}, record the remote address and the process tree of the shell before acting."],
    containment: ["Isolate {hosts} from the network (EDR containment) and block the remote address at the egress."],
    investigation: ["Find how the shell was started (web server child, cron, exploited service) and what it ran."],
    remediation: ["Rotate credentials reachable from the host and reimage it."],
  },
  evaluate(host) {
    const byPid = new Map<string, Row[]>();
    for (const s of rowsOf(host, "process_open_sockets")) {
      if (!isRemotePeer(str(s, "remote_address")) || (num(s, "remote_port") ?? 0) <= 0 || !established(s)) continue;
      const pid = str(s, "pid");
      appendTo(byPid, pid, s);
    }
    const hits: DetectionHit[] = [];
    // A shell reading and writing a network tool's socket through pipes (`sh -c "openssl s_client ... | bash | ..."`):
    // the shell holds no socket, the tool it started does. Judged at the process that ran the pipeline.
    const procs = rowsOf(host, "processes");
    const pipelines = new Set(procs.filter((p) => SHELL_THROUGH_NETWORK.test(str(p, "cmdline"))).map((p) => str(p, "pid")));
    const byProcPid = pipelines.size > 0 ? processIndex(host) : new Map<string, Row>();
    const flagged = new Set<string>();
    for (const tool of procs) {
      const sockets = byPid.get(str(tool, "pid")) ?? [];
      const parent = str(tool, "parent");
      if (sockets.length === 0 || !pipelines.has(parent) || flagged.has(parent)) continue;
      const runner = byProcPid.get(parent) as Row;
      flagged.add(parent);
      const first = sockets[0] as Row;
      hits.push({
        summary: `${processLabel(runner, parent)} (pid ${parent}, uid ${str(runner, "uid") || "?"}) pipes a shell through a network tool, and ${processLabel(tool, str(tool, "pid"))} (pid ${str(tool, "pid")}) it started holds a connection to ${str(first, "remote_address")}:${str(first, "remote_port")} (${str(runner, "cmdline").slice(0, 100)}).`,
        evidence: [{ table: "processes", row: runner }, { table: "processes", row: tool }, ...sockets.map((row) => ({ table: "process_open_sockets", row }))],
        entity: `pid:${parent}`,
      });
    }
    for (const proc of procs) {
      const pid = str(proc, "pid");
      const name = basename(str(proc, "name") || str(proc, "path"));
      const cmdline = str(proc, "cmdline");
      const sockets = byPid.get(pid) ?? [];
      const shellish = SHELLS.has(name) || NETCAT_LIKE.has(name) || INTERPRETER.test(name);
      const patterned = reverseShellCommand(cmdline);
      if (sockets.length === 0 || !(SHELLS.has(name) || NETCAT_LIKE.has(name) || (shellish && patterned))) continue;
      // socat joining two sockets forwards a port: nothing runs at either end.
      if (!patterned && socatForwarder(cmdline)) continue;
      if (flagged.has(str(proc, "parent"))) continue; // told above, as its pipeline
      const first = sockets[0];
      const peer = `${str(first, "remote_address")}:${str(first, "remote_port")}`;
      hits.push({
        summary: `${processLabel(proc, pid)} (pid ${pid}, uid ${str(proc, "uid") || "?"}) holds a connection to ${peer}${patterned ? ` and its command line looks like a reverse shell (${cmdline.slice(0, 80)})` : ""}.`,
        evidence: [{ table: "processes", row: proc }, ...sockets.map((row) => ({ table: "process_open_sockets", row }))],
        severity: patterned || SHELLS.has(name) ? undefined : "medium",
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
