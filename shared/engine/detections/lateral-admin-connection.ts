// Outbound admin-protocol connections (SSH, RDP, WinRM, SMB) to internal hosts from hosts that are not admin hosts.
import { knownAutomation } from "../baselines/index.js";
import { num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { isPrivate } from "../net.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import type { Row } from "../types.js";
import { inTmpDir } from "./patterns.js";
import { keyTakenFrom, sshIdentityFile } from "./ssh-keys.js";

const ADMIN_PORTS: Readonly<Record<number, string>> = { 22: "SSH", 135: "RPC", 445: "SMB", 3389: "RDP", 5985: "WinRM", 5986: "WinRM" };
/** Roles whose job is to connect to other hosts. */
const ADMIN_ROLES: ReadonlySet<string> = new Set(["bastion", "jump", "jumphost", "ansible", "deploy", "management", "ci-runner"]);
/**
 * Roles whose people and tools reach the servers with the system's own clients (Rundeck's and pdsh's ssh, Remmina on a
 * helpdesk desktop): those clients' connections are the host's job there; any other program's (impacket, a renamed
 * client) stays a finding.
 */
const CLIENT_ROLES: ReadonlySet<string> = new Set(["automation", "orchestration", "helpdesk", "support", "workstation", "desktop"]);
const SYSTEM_CLIENTS = /^\/usr\/bin\/(?:ssh|scp|sftp|autossh|xfreerdp3?|wlfreerdp|sdl-freerdp|remmina|rdesktop|vncviewer|xtightvncviewer)$/;
/** Server daemons: their sockets on port 22 etc. are inbound sessions, not lateral movement. */
const SERVER_DAEMONS: ReadonlySet<string> = new Set(["sshd", "smbd", "xrdp", "sshd-session"]);

export const lateralAdminConnection = defineDetection({
  id: "lateral-admin-connection",
  title: "Lateral admin connection to an internal host",
  reads: { process_open_sockets: ["pid", "remote_address", "remote_port"], processes: ["pid", "name", "path", "cmdline", "uid", "parent"], users: ["uid", "username", "directory"] },
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
    const adminHost = ADMIN_ROLES.has(host.tags.role ?? "");
    const procs = processIndex(host);
    const hits: DetectionHit[] = [];
    // A key kept in a temp or hidden directory is one somebody put there to use (a stolen key, ATT&CK T1552.004):
    // any SSH client using one is lateral movement, from an admin host too.
    const stolen = new Set<string>();
    // A key in another account's ~/.ssh, used by this one, was taken from it (ssh-keys.ts).
    const users = rowsOf(host, "users");
    for (const proc of procs.values()) {
      const key = sshIdentityFile(str(proc, "cmdline"));
      if (key === undefined) continue;
      const taken = keyTakenFrom(key, str(proc, "uid"), users);
      const owner = taken === undefined ? undefined : { user: taken.owner };
      const hidden = inTmpDir(key) || /\/\.[^/]+$/.test(key);
      if (!hidden && owner === undefined) continue;
      stolen.add(str(proc, "pid"));
      const target = /\s(?:[\w.-]+@)?(\d{1,3}(?:\.\d{1,3}){3}|[\w-]+(?:\.[\w-]+)+)(?:\s|$)/.exec(` ${str(proc, "cmdline")} `)?.[1] ?? "another host";
      const where = owner !== undefined ? `in ${owner.user}'s ~/.ssh, not its own account's` : `kept in a ${inTmpDir(key) ? "temp" : "hidden"} location`;
      hits.push({
        summary: `${processLabel(proc, str(proc, "pid"))} (pid ${str(proc, "pid")}, uid ${str(proc, "uid") || "?"}) logs in to ${target} with the key ${key}, ${where}: a key taken from elsewhere.`,
        // Its parent too: what started it (SSH-Snake's script, a dropper) is where to look next.
        evidence: [{ table: "processes", row: proc }, ...(procs.get(str(proc, "parent")) !== undefined ? [{ table: "processes", row: procs.get(str(proc, "parent")) as Row }] : []), ...rowsOf(host, "process_open_sockets").filter((s) => str(s, "pid") === str(proc, "pid")).map((row) => ({ table: "process_open_sockets", row }))],
        // root with a person's key is also `sudo ssh -i ~/.ssh/id` by that person; another account with it is not.
        severity: owner !== undefined && !hidden && str(proc, "uid") === "0" ? "medium" : "high",
        entity: `path:${key}`,
      });
    }
    if (adminHost) return hits;
    for (const row of rowsOf(host, "process_open_sockets")) {
      const port = num(row, "remote_port") ?? 0;
      const protocol = ADMIN_PORTS[port];
      const remote = str(row, "remote_address");
      if (protocol === undefined || !isPrivate(remote)) continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      if (SERVER_DAEMONS.has(str(proc, "name")) || stolen.has(pid)) continue;
      if (CLIENT_ROLES.has(host.tags.role ?? "") && SYSTEM_CLIENTS.test(str(proc, "path"))) continue;
      const evidence = proc ? [{ table: "process_open_sockets", row }, { table: "processes", row: proc }] : [{ table: "process_open_sockets", row }];
      // Only the system's ssh client speaks for an automation (a program anywhere may be called ssh).
      const systemSsh = /^\/(?:usr\/)?bin\/ssh$/.test(str(proc, "path"));
      const automation = systemSsh ? knownAutomation({ kind: "ssh-client", cmdline: str(proc, "cmdline") }) : undefined;
      const transfer = automation?.baseline.startsWith("transfer:") === true;
      // A transfer's exemption is for its SSH connection only.
      if (automation && (!transfer || port === 22)) {
        hits.push({ summary: `${processLabel(proc, pid)} (pid ${pid}) holds a ${protocol} connection to ${remote}:${port} for ${transfer ? "a backup or replication job" : "configuration management or monitoring"} (${automation.source}).`, evidence, entity: `ip:${remote}`, kept_by: automation.baseline });
        continue;
      }
      const daemon = proc ? knownAutomation({ kind: "admin-port-daemon", path: str(proc, "path"), port, cmdline: str(proc, "cmdline") }) : undefined;
      if (daemon) {
        hits.push({ summary: `${processLabel(proc, pid)} (pid ${pid}) holds a ${protocol} connection to ${remote}:${port}, its daemon's work (${daemon.source}).`, evidence, entity: `ip:${remote}`, kept_by: daemon.baseline });
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
