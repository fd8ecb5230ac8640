// Processes executing from world-writable temp directories.
import { tempExecution } from "../baselines/index.js";
import { basename, num, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { firstToken, inHiddenDir, inTmpDir } from "./patterns.js";

export const execFromTmp = defineDetection({
  id: "exec-from-tmp",
  title: "Execution from /tmp, /var/tmp or /dev/shm",
  reads: { processes: ["pid", "name", "path", "cmdline", "on_disk"] },
  severity: "medium",
  attack: ["T1059.004", "T1036.005"],
  maturity: "test",
  category: "execution",
  false_positives: "Self-extracting installers and build tools outside the temp-execution baseline (go run, AppImage and PyInstaller layouts are kept quiet).",
  advice: {
    triage: ["List the files under the temp directory used on {hosts} and hash the running binary."],
    containment: ["Mount /tmp and /dev/shm noexec on {hosts} once the process is captured."],
    investigation: ["Find the parent process and the download that put the binary there (shell history, cron)."],
    remediation: ["Remove the dropped files and the persistence that relaunches them."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "processes")) {
      const path = str(row, "path");
      const exe = path !== "" ? path : firstToken(str(row, "cmdline"));
      if (!inTmpDir(exe)) continue;
      const pid = str(row, "pid");
      const documented = tempExecution(exe.replace(/ \(deleted\)$/, ""));
      if (documented) {
        hits.push({ summary: `${processLabel(row, pid)} (pid ${pid}) executes from ${exe}, the temp layout of ${documented.baseline.replace("tmp-exec:", "")} (${documented.source}).`, evidence: [{ table: "processes", row }], entity: `pid:${pid}`, kept_by: documented.baseline });
        continue;
      }
      const hidden = basename(exe).startsWith(".") || inHiddenDir(exe);
      const deleted = num(row, "on_disk") === 0;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}) executes from ${exe}${hidden ? " (hidden path)" : ""}${deleted ? " and the file is deleted" : ""}.`,
        evidence: [{ table: "processes", row }],
        severity: hidden || deleted ? "high" : undefined,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
