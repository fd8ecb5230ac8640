// Interactive shells on service accounts, or interactive accounts missing from the host's known users.
import { num, rowsOf, str, tagList } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { isInteractiveShell } from "./patterns.js";

export const newInteractiveAccount = defineDetection({
  id: "new-interactive-account",
  title: "New or unexpected interactive account",
  tables: ["users"],
  severity: "medium",
  attack: ["T1136.001"],
  maturity: "experimental",
  category: "persistence",
  keywords: ["new account", "new user", "interactive account", "user account", "accounts", "users", "login shell"],
  false_positives: "Service accounts packaged with a shell (postgres on Debian); people not yet listed in the known_users tag.",
  advice: {
    triage: ["Confirm with the owners of {hosts} who created the account and why it has a login shell."],
    containment: ["Set the shell to /usr/sbin/nologin and lock the account on {hosts} until explained."],
    investigation: ["Check authorized keys, sudo rights and login history of the account."],
    remediation: ["Manage accounts centrally and keep the known_users tag current."],
  },
  baseline_tag: "known_users",
  evaluate(host) {
    const known = new Set(tagList(host.tags, "known_users"));
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "users")) {
      const uid = num(row, "uid");
      const name = str(row, "username");
      const shell = str(row, "shell");
      if (uid === undefined || uid === 0 || name === "" || !isInteractiveShell(shell) || known.has(name)) continue;
      if (uid >= 65534) continue;
      const service = uid < 1000;
      if (!service && known.size === 0) continue;
      hits.push({
        summary: service
          ? `Service account ${name} (uid ${uid}) has the interactive shell ${shell}.`
          : `Interactive account ${name} (uid ${uid}, shell ${shell}) is not in the host's known users.`,
        evidence: [{ table: "users", row }],
        entity: `user:${name}`,
      });
    }
    return hits;
  },
});
