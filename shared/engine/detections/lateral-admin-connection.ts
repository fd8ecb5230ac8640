// Outbound admin-protocol connections (SSH, RDP, WinRM, SMB) to internal hosts from hosts that are not admin hosts.
import { knownAutomation } from "../baselines/index.js";
import { num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { isPrivate } from "../net.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const ADMIN_PORTS: Readonly<Record<number, string>> = { 22: "SSH", 135: "RPC", 445: "SMB", 3389: "RDP", 5985: "WinRM", 5986: "WinRM" };
/** Roles whose job is to connect to other hosts. */
const ADMIN_ROLES: ReadonlySet<string> = new Set(["bastion", "jump", "ansible", "deploy", "management", "ci-runner"]);
/** Server daemons: their sockets on port 22 etc. are inbound sessions, not lateral movement. */
const SERVER_DAEMONS: ReadonlySet<string> = new Set(["sshd", "smbd", "xrdp", "sshd-session"]);

export const lateralAdminConnection = defineDetection({
  id: "lateral-admin-connection",
  title: "Lateral admin connection to an internal host",
  reads: { process_open_sockets: ["pid", "remote_address", "remote_port"], processes: ["pid", "name", "path", "cmdline"] },
  severity: "low",
  attack: ["T1021.004", "T1021"],
  maturity: "experimental",
  category: "lateral-movement",
  false_positives: "Application hosts that fetch git over SSH from an internal server; backup jobs using rsync over SSH.",
  advice: {
    triage: ["Identify the account and command behind the outbound admin session on {hosts}."],
    containment: ["If unexplained, block east-west admin ports from {hosts}."],
    investigation: ["Follow the connection to the destination host (pathfinder, proposed scope) and query it live."],
    remediation: ["Restrict SSH/RDP between servers to bastions; use short-lived certificates."],
  },
  evaluate(host) {
    if (ADMIN_ROLES.has(host.tags.role ?? "")) return [];
    const procs = processIndex(host);
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "process_open_sockets")) {
      const port = num(row, "remote_port") ?? 0;
      const protocol = ADMIN_PORTS[port];
      const remote = str(row, "remote_address");
      if (protocol === undefined || !isPrivate(remote)) continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      if (SERVER_DAEMONS.has(str(proc, "name"))) continue;
      const evidence = proc ? [{ table: "process_open_sockets", row }, { table: "processes", row: proc }] : [{ table: "process_open_sockets", row }];
      const automation = knownAutomation({ kind: "ssh-client", cmdline: str(proc, "cmdline") });
      if (automation) {
        hits.push({ summary: `${processLabel(proc, pid)} (pid ${pid}) holds a ${protocol} connection to ${remote}:${port} for configuration management (${automation.source}).`, evidence, entity: `ip:${remote}`, kept_by: automation.baseline });
        continue;
      }
      hits.push({
        summary: `${processLabel(proc, pid)} (pid ${pid}) opened a ${protocol} connection to internal host ${remote}:${port}.`,
        evidence,
        entity: `ip:${remote}`,
      });
    }
    return hits;
  },
});
