// Download-and-execute in running command lines or shell history (curl | sh, wget -O x && chmod +x x).
import { vendorInstaller } from "../baselines/index.js";
import { processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { downloadThenRun, PIPE_TO_SHELL } from "./patterns.js";

function matches(command: string): boolean {
  return PIPE_TO_SHELL.test(command) || downloadThenRun(command);
}

export const downloadExecute = defineDetection({
  id: "download-execute",
  title: "Download and execute",
  reads: { processes: ["pid", "name", "path", "cmdline", "uid"], shell_history: ["uid", "command", "history_file"] },
  severity: "high",
  attack: ["T1105", "T1059.004"],
  maturity: "test",
  category: "execution",
  false_positives: "Internal bootstrap scripts fetched with curl | bash from an artifact server.",
  advice: {
    triage: ["Fetch (without running) the URL from the command on {hosts} and hash the content."],
    containment: ["Block the download host at the egress proxy for {hosts}."],
    investigation: ["List files written right after the download and processes started from them."],
    remediation: ["Replace curl | sh bootstraps with signed packages or pinned checksums."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "processes")) {
      const cmdline = str(row, "cmdline");
      if (!matches(cmdline)) continue;
      const pid = str(row, "pid");
      const vendor = vendorInstaller(cmdline);
      if (vendor) {
        hits.push({ summary: `${processLabel(row, pid)} (pid ${pid}) runs a vendor's documented installer (${vendor.source}): ${cmdline.slice(0, 120)}`, evidence: [{ table: "processes", row }], entity: `pid:${pid}`, kept_by: vendor.baseline });
        continue;
      }
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}) is running a download-and-execute command: ${cmdline.slice(0, 120)}`,
        evidence: [{ table: "processes", row }],
        entity: `pid:${pid}`,
      });
    }
    for (const row of rowsOf(host, "shell_history")) {
      const command = str(row, "command");
      if (!matches(command)) continue;
      const vendor = vendorInstaller(command);
      if (vendor) {
        hits.push({ summary: `Shell history (uid ${str(row, "uid") || "?"}) runs a vendor's documented installer (${vendor.source}): ${command.slice(0, 120)}`, evidence: [{ table: "shell_history", row }], entity: `history:${str(row, "uid")}`, kept_by: vendor.baseline });
        continue;
      }
      hits.push({
        summary: `Shell history (uid ${str(row, "uid") || "?"}) shows a download-and-execute: ${command.slice(0, 120)}`,
        evidence: [{ table: "shell_history", row }],
        entity: `history:${str(row, "uid")}`,
      });
    }
    return hits;
  },
});
