// Cron entries that download, decode, open sockets or run from temp directories.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { commandSignals } from "./patterns.js";

export const suspiciousCron = defineDetection({
  id: "suspicious-cron",
  title: "Suspicious cron job",
  tables: ["crontab"],
  severity: "medium",
  attack: ["T1053.003"],
  maturity: "test",
  category: "persistence",
  keywords: ["cron", "crontab", "cron job", "scheduled task", "scheduled job"],
  false_positives: "Health-check pings (curl to a monitoring URL) and backup scripts that fetch with curl/wget.",
  advice: {
    triage: ["Read the full crontab entry on {hosts} and fetch (without executing) the URL or file it references."],
    containment: ["Comment out the entry on {hosts} and block the download host at the egress."],
    investigation: ["Find when the entry was written (file mtime, shell history) and by which account."],
    remediation: ["Remove the entry and anything it installed; restrict cron to known jobs via configuration management."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "crontab")) {
      const command = str(row, "command");
      const signals = commandSignals(command);
      if (signals.length === 0) continue;
      const strong = signals.some((s) => s.strong) || signals.length >= 2;
      hits.push({
        summary: `Cron job in ${str(row, "path") || "crontab"} ${signals.map((s) => s.why).join(", ")}: ${command.slice(0, 120)}`,
        evidence: [{ table: "crontab", row }],
        severity: strong ? "high" : undefined,
        entity: `cron:${str(row, "path")}`,
      });
    }
    return hits;
  },
});
