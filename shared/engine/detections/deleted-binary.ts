// A process whose executable no longer exists on disk (dropped, run, deleted).
import { num, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const PACKAGED_PREFIXES = ["/usr/", "/opt/", "/lib/", "/lib64/", "/snap/"];

export const deletedBinaryRunning = defineDetection({
  id: "deleted-binary-running",
  title: "Running process whose binary was deleted from disk",
  reads: { processes: ["pid", "name", "path", "on_disk"] },
  severity: "high",
  attack: ["T1070.004", "T1620"],
  maturity: "test",
  category: "defense-evasion",
  false_positives: "Daemons still running after their package was upgraded in place (the old binary is unlinked until restart): reported at info.",
  advice: {
    triage: ["On {hosts}, copy /proc/<pid>/exe before the process exits: it is the only copy of the binary."],
    containment: ["Suspend (SIGSTOP) rather than kill the process so memory can be captured."],
    investigation: ["Hash the recovered binary and look for its parent and network connections."],
    remediation: ["Restart upgraded daemons so they run the packaged binary; reimage hosts running unknown deleted binaries."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "processes")) {
      if (num(row, "on_disk") !== 0) continue;
      const path = str(row, "path").replace(/ \(deleted\)$/, "");
      if (path === "") continue;
      const pid = str(row, "pid");
      const packaged = PACKAGED_PREFIXES.some((p) => path.startsWith(p));
      hits.push({
        summary: packaged
          ? `${processLabel(row, pid)} (pid ${pid}) runs ${path}, which is no longer on disk (possibly upgraded without a restart).`
          : `${processLabel(row, pid)} (pid ${pid}) runs ${path}, which has been deleted from disk.`,
        evidence: [{ table: "processes", row }],
        severity: packaged ? "info" : undefined,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
