// systemd units defined in odd places or whose ExecStart downloads, decodes or runs from temp directories.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { commandSignals, inTmpDir } from "./patterns.js";

/** Custom column carrying the unit's ExecStart line (osquery's systemd_units has no such column). */
const EXEC_COLUMNS = ["exec_start", "exec", "ExecStart"];

export const suspiciousSystemdUnit = defineDetection({
  id: "suspicious-systemd-unit",
  title: "Suspicious systemd unit",
  tables: ["systemd_units"],
  severity: "medium",
  attack: ["T1543.002"],
  maturity: "test",
  category: "persistence",
  keywords: ["systemd", "service unit", "systemd unit", "unit file", "services", "daemon"],
  false_positives: "Vendor installers that ship units under /etc/systemd/system running from hidden directories.",
  advice: {
    triage: ["Print the unit (systemctl cat) on {hosts} and hash the binary it starts."],
    containment: ["Stop and mask the unit on {hosts}."],
    investigation: ["Check who wrote the unit file and whether the same unit exists on other hosts."],
    remediation: ["Remove the unit and its binary; run systemctl daemon-reload."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "systemd_units")) {
      const fragment = str(row, "fragment_path");
      const exec = EXEC_COLUMNS.map((c) => str(row, c)).find((v) => v !== "") ?? "";
      const reasons: string[] = [];
      let strong = false;
      if (inTmpDir(fragment)) {
        reasons.push(`unit file lives in ${fragment}`);
        strong = true;
      } else if (/^\/home\/[^/]+\/\.config\/systemd\//.test(fragment) || /^\/root\/\.config\/systemd\//.test(fragment)) {
        reasons.push(`user-level unit at ${fragment}`);
      }
      for (const s of commandSignals(exec)) {
        reasons.push(`ExecStart ${s.why}`);
        strong = strong || s.strong;
      }
      if (/\/\.[A-Za-z0-9_-]+\//.test(exec.split(/\s+/)[0] ?? "")) reasons.push("ExecStart runs from a hidden directory");
      if (reasons.length === 0) continue;
      hits.push({
        summary: `Unit ${str(row, "id") || fragment}: ${reasons.join("; ")}${exec !== "" ? ` (${exec.slice(0, 100)})` : ""}.`,
        evidence: [{ table: "systemd_units", row }],
        severity: strong ? "high" : undefined,
        entity: `unit:${str(row, "id")}`,
      });
    }
    return hits;
  },
});
