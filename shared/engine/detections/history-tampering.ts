// Commands that clear or disable shell history, and the state they leave: a history file replaced by a link to
// /dev/null (`ln -sf /dev/null ~/.bash_history`), and shells running with HISTFILE=/dev/null or a zero history size
// (process_envs). Facts: ATT&CK T1070.003 procedure examples, Atomic Red Team T1070.003 tests 1-4 and 9
// ("rm -rf ~/.bash_history", "ln -sf /dev/null", "unset HISTFILE", "HISTFILESIZE=0", "set +o history",
// "history -w /dev/null", "cat /dev/null > ~/.bash_history").
import { appendTo, basename, rowsOf, str } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { InOrder } from "../in-order.js";

const TAMPER_RE = /\bhistory\s+-c\b|\bhistory\s+-[wa]\s+\/dev\/null\b|\bhistory\s+-d\s+-?\d+|\bexport\s+HISTSIZE=0\b|\bcat\s+\/dev\/null\s*>\s*\S*_history|\bunset\s+HISTFILE\b|\bHISTFILE=\/dev\/null\b|\bHISTSIZE=0\b|\bHISTFILESIZE=0\b|\bset\s+\+o\s+history\b|ln\s+-sf?\s+\/dev\/null\s+\S*_history|>\s*~?\/?[^\s>]*\.bash_history/;
/** rm, shred or truncate, then a shell history file later in its command (as one pattern: quadratic in a line). */
const REMOVES_HISTORY = new InOrder(/[\n;|]/, [/(?:rm|shred|truncate)\b/, /\.(?:bash|zsh|sh)_history/]);
const tampers = (command: string): boolean => TAMPER_RE.test(command) || REMOVES_HISTORY.test(command);

/** Commands of the same history shown before a tampering command. */
const CONTEXT_LINES = 5;
/** Rows looked at for them, at most. */
const CONTEXT_LOOK_BACK = 50;

export const historyTampering = defineDetection({
  id: "history-tampering",
  title: "Shell history tampering",
  reads: {
    shell_history: ["uid", "command", "history_file"],
    users: ["uid", "username"],
    file: ["path", "type", "symlink", "symlink_target_path", "size"],
    process_envs: ["pid", "key", "value"],
  },
  severity: "medium",
  attack: ["T1070.003"],
  maturity: "test",
  category: "defense-evasion",
  false_positives: "Administrators who clear history by habit (history -c) after typing a secret.",
  advice: {
    triage: ["Ask the account owner on {hosts} about the history clearing; note the surrounding commands."],
    containment: ["Enable auditd execve logging on {hosts} so further commands are recorded outside the shell."],
    investigation: ["Reconstruct the session from auth logs, process accounting and file mtimes."],
    remediation: ["Ship shell history and audit logs off-host (read-only) so clearing them is visible."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const users = new Map(rowsOf(host, "users").map((u) => [str(u, "uid"), str(u, "username")] as const));
    const history = rowsOf(host, "shell_history");
    history.forEach((row, at) => {
      const command = str(row, "command");
      if (!tampers(command)) return;
      const uid = str(row, "uid");
      const user = users.get(uid) ?? `uid ${uid}`;
      // What the same history showed just before it: what the session wanted hidden (an install, a download).
      const file = str(row, "history_file");
      const before: Row[] = [];
      // Backwards from it, a bounded look: a history of many clearing commands costs no more than a few rows each.
      for (let i = at - 1; i >= 0 && i >= at - CONTEXT_LOOK_BACK && before.length < CONTEXT_LINES; i--) {
        const r = history[i] as Row;
        if (str(r, "uid") === uid && str(r, "history_file") === file && !tampers(str(r, "command"))) before.unshift(r);
      }
      hits.push({
        summary: `${user} ran "${command.slice(0, 100)}" (${file || "shell history"}), which hides shell history${before.length > 0 ? `; the ${before.length} command${before.length === 1 ? "" : "s"} before it are in the evidence` : ""}.`,
        evidence: [{ table: "shell_history", row }, ...before.map((r) => ({ table: "shell_history", row: r }))],
        severity: uid === "0" ? "high" : undefined,
        entity: `user:${user}`,
      });
    });
    // A history file that is a link to /dev/null: whatever the shell writes is discarded.
    for (const row of rowsOf(host, "file")) {
      const path = str(row, "path");
      // Shell histories only: linking ~/.mysql_history or ~/.psql_history to /dev/null is documented hardening
      // (MySQL Reference Manual, "End-User Guidelines for Password Security").
      if (!/^\.(?:bash|zsh|sh|ash|ksh|mksh)_history$|^\.history$/.test(basename(path))) continue;
      const link = str(row, "type") === "symlink" || str(row, "symlink") === "1";
      const target = str(row, "symlink_target_path");
      if (!link || !/^\/dev\/(?:null|zero)$/.test(target)) continue;
      hits.push({
        summary: `${path} is a link to ${target}: that account's shell history is discarded.`,
        evidence: [{ table: "file", row }],
        severity: path.startsWith("/root/") ? "high" : undefined,
        entity: `path:${path}`,
      });
    }
    // Shells running with history disabled in their environment.
    const disabled = new Map<string, Row[]>();
    for (const row of rowsOf(host, "process_envs")) {
      const key = str(row, "key");
      const value = str(row, "value").trim();
      const off = (key === "HISTFILE" && /^(?:\/dev\/null|\/dev\/zero)?$/.test(value)) || ((key === "HISTSIZE" || key === "HISTFILESIZE" || key === "SAVEHIST") && value === "0");
      if (!off) continue;
      const label = `${key}=${value === "" ? '""' : value}`;
      appendTo(disabled, label, row);
    }
    for (const [label, rows] of disabled) {
      const pids = [...new Set(rows.map((r) => str(r, "pid")))];
      hits.push({
        summary: `${pids.length} process${pids.length === 1 ? "" : "es"} (pid ${pids.slice(0, 5).join(", ")}) run with ${label} in the environment: commands typed there are not saved to shell history.`,
        evidence: rows.slice(0, 5).map((row) => ({ table: "process_envs", row })),
        entity: `pid:${pids[0] ?? "?"}`,
      });
    }
    return hits;
  },
});
