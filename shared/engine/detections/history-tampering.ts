// Commands that clear or disable shell history.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const TAMPER_RE = /\bhistory\s+-c\b|\bunset\s+HISTFILE\b|\bHISTFILE=\/dev\/null\b|\bHISTSIZE=0\b|\bHISTFILESIZE=0\b|\bset\s+\+o\s+history\b|(?:rm|shred|truncate)\b[^\n;|]*\.(?:bash|zsh|sh)_history|ln\s+-sf?\s+\/dev\/null\s+\S*_history|>\s*~?\/?\S*\.bash_history/;

export const historyTampering = defineDetection({
  id: "history-tampering",
  title: "Shell history tampering",
  reads: { shell_history: ["uid", "command", "history_file"], users: ["uid", "username"] },
  severity: "medium",
  attack: ["T1070.003"],
  maturity: "test",
  category: "defense-evasion",
  keywords: ["history", "shell history", "bash history", "cover tracks", "anti forensics", "tampering", "cleared"],
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
    for (const row of rowsOf(host, "shell_history")) {
      const command = str(row, "command");
      if (!TAMPER_RE.test(command)) continue;
      const uid = str(row, "uid");
      const user = users.get(uid) ?? `uid ${uid}`;
      hits.push({
        summary: `${user} ran "${command.slice(0, 100)}" (${str(row, "history_file") || "shell history"}), which hides shell history.`,
        evidence: [{ table: "shell_history", row }],
        severity: uid === "0" ? "high" : undefined,
        entity: `user:${user}`,
      });
    }
    return hits;
  },
});
