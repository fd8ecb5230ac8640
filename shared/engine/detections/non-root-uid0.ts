// Accounts other than root with uid 0.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

export const nonRootUid0 = defineDetection({
  id: "non-root-uid0",
  title: "Non-root account with uid 0",
  reads: { users: ["uid", "username", "shell", "directory"] },
  severity: "high",
  attack: ["T1136.001", "T1078.003"],
  maturity: "stable",
  category: "persistence",
  false_positives: "Legacy 'toor' style rescue accounts created on purpose (rare on Linux).",
  advice: {
    triage: ["Check /etc/passwd and /etc/shadow on {hosts} for the account and its password hash."],
    containment: ["Lock the account (usermod -L) on {hosts} and kill its sessions."],
    investigation: ["Search login records for the account and find when /etc/passwd changed."],
    remediation: ["Delete the account; reimage if its origin is unknown."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "users")) {
      const name = str(row, "username");
      if (str(row, "uid") !== "0" || name === "root" || name === "") continue;
      hits.push({
        summary: `Account ${name} has uid 0 (root privileges) with shell ${str(row, "shell") || "unknown"} and home ${str(row, "directory") || "unknown"}.`,
        evidence: [{ table: "users", row }],
        entity: `user:${name}`,
      });
    }
    return hits;
  },
});
