// systemd units defined in odd places or whose Exec lines download, decode or run from temp or hidden directories.
// Unit contents come from osquery's augeas table (Systemd lens), joined by file path to systemd_units.fragment_path.
import { packagedUnitFile } from "../baselines/index.js";
import { basename, rowsOf, str } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { commandSignals, inTmpDir } from "./patterns.js";

/** /files/<unit path>/<Section>/<ExecXxx>[n]/command | /arguments/<i> */
const EXEC_NODE = /^\/files(\/.+?)\/[A-Za-z]+\/(Exec[A-Za-z]+(?:\[\d+\])?)\/(command|arguments(?:\/|\[)(\d+)\]?)$/;

interface ExecLine {
  path: string;
  key: string;
  command: string;
  args: Array<[number, string]>;
  rows: Row[];
}

/** Exec lines per unit file, rebuilt from augeas rows (command plus ordered arguments). */
export function unitExecLines(rows: readonly Row[]): Map<string, ExecLine[]> {
  const lines = new Map<string, ExecLine>();
  for (const row of rows) {
    const m = EXEC_NODE.exec(str(row, "node"));
    if (!m) continue;
    const path = str(row, "path") || (m[1] ?? "");
    const key = `${path}|${m[2] ?? ""}`;
    const line = lines.get(key) ?? { path, key: m[2] ?? "", command: "", args: [], rows: [] };
    if (m[3] === "command") line.command = str(row, "value");
    else line.args.push([Number(m[4] ?? 0), str(row, "value")]);
    line.rows.push(row);
    lines.set(key, line);
  }
  const byPath = new Map<string, ExecLine[]>();
  for (const line of lines.values()) byPath.set(line.path, [...(byPath.get(line.path) ?? []), line]);
  return byPath;
}

function render(line: ExecLine): string {
  return [line.command, ...line.args.sort((a, b) => a[0] - b[0]).map(([, v]) => v)].join(" ").trim();
}

export const suspiciousSystemdUnit = defineDetection({
  id: "suspicious-systemd-unit",
  title: "Suspicious systemd unit",
  reads: { systemd_units: ["id", "fragment_path"], augeas: ["node", "value", "path"] },
  severity: "medium",
  attack: ["T1543.002"],
  maturity: "test",
  category: "persistence",
  keywords: ["systemd", "service unit", "systemd unit", "unit file", "services", "daemon"],
  false_positives: "Vendor installers that ship units under /etc/systemd/system running from hidden directories or fetching with curl.",
  advice: {
    triage: ["Print the unit (systemctl cat) on {hosts} and hash the binary it starts."],
    containment: ["Stop and mask the unit on {hosts}."],
    investigation: ["Check who wrote the unit file and whether the same unit exists on other hosts."],
    remediation: ["Remove the unit and its binary; run systemctl daemon-reload."],
  },
  evaluate(host) {
    const exec = unitExecLines(rowsOf(host, "augeas"));
    const units = new Map<string, Row>();
    for (const row of rowsOf(host, "systemd_units")) {
      const fragment = str(row, "fragment_path");
      if (fragment !== "" && !units.has(fragment)) units.set(fragment, row);
    }
    const hits: DetectionHit[] = [];
    for (const path of [...new Set([...units.keys(), ...exec.keys()])].sort()) {
      const unit = units.get(path);
      const lines = exec.get(path) ?? [];
      const reasons: string[] = [];
      let strong = false;
      if (inTmpDir(path)) {
        reasons.push(`unit file lives in ${path}`);
        strong = true;
      } else if (/^\/home\/[^/]+\/\.config\/systemd\//.test(path) || /^\/root\/\.config\/systemd\//.test(path)) {
        reasons.push(`user-level unit at ${path}`);
      }
      const commands = lines.map(render).filter((c) => c !== "");
      for (const [i, command] of commands.entries()) {
        const key = lines[i]?.key ?? "Exec";
        for (const s of commandSignals(command)) {
          reasons.push(`${key} ${s.why}`);
          strong = strong || s.strong;
        }
        const program = command.split(/\s+/)[0]?.replace(/^[-@:+!]+/, "") ?? "";
        if (inTmpDir(program)) strong = true;
        if (/\/\.[A-Za-z0-9_-]+\//.test(program)) reasons.push(`${key} runs from a hidden directory`);
      }
      if (reasons.length === 0) continue;
      const evidence: EvidenceRow[] = [
        ...(unit ? [{ table: "systemd_units", row: unit }] : []),
        ...lines.flatMap((l) => l.rows.map((row) => ({ table: "augeas", row }))),
      ];
      const name = str(unit, "id") || basename(path);
      const shown = commands.length > 0 ? ` (${commands.join(" | ").slice(0, 100)})` : "";
      const packaged = strong ? undefined : packagedUnitFile(path);
      if (packaged) {
        hits.push({ summary: `Unit ${name} comes from a package's unit directory (${packaged.source}): ${reasons.join("; ")}${shown}.`, evidence, entity: `unit:${name}`, kept_by: packaged.baseline });
        continue;
      }
      hits.push({ summary: `Unit ${name}: ${reasons.join("; ")}${shown}.`, evidence, severity: strong ? "high" : undefined, entity: `unit:${name}` });
    }
    return hits;
  },
});
