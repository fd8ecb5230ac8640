// Logins as root from a remote address (login records and current sessions).
import { tagBaseline } from "../baselines/index.js";
import { appendTo, basename, num, processIndex, rowsOf, str, tagList } from "../rows.js";
import { isLoopback, isSiteAddress } from "../net.js";
import type { HostData, Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

function remoteHost(host: string): boolean {
  const h = host.trim();
  return h !== "" && !h.startsWith(":") && !isLoopback(h) && h !== "localhost";
}

/** A Proxmox VE node, by its packages or its cluster filesystem daemon. */
const PVE_PACKAGES: ReadonlySet<string> = new Set(["pve-manager", "proxmox-ve", "pve-cluster"]);
/** Proxmox's cluster filesystem daemon, by its path (any process may take a name). */
const PMXCFS_PATHS: ReadonlySet<string> = new Set(["/usr/bin/pmxcfs", "/usr/sbin/pmxcfs"]);

export const PROXMOX_ROOT_SSH = "root-admin:proxmox-ve";
const PROXMOX_SOURCE =
  "Proxmox VE Administration Guide, \"Role of SSH in Proxmox VE Clusters\": cluster nodes reach each other as root over SSH (migration, replication, the web console's shell), and root@pam is the administrator <https://pve.proxmox.com/pve-docs/pve-admin-guide.html>";

function proxmoxNode(host: HostData): boolean {
  return rowsOf(host, "deb_packages").some((r) => PVE_PACKAGES.has(str(r, "name"))) || rowsOf(host, "processes").some((p) => PMXCFS_PATHS.has(str(p, "path")));
}

export const VCENTER_ROOT_SSH = "root-admin:vcenter-appliance";
const VCENTER_SOURCE =
  "VMware vSphere documentation, \"Enable or Disable SSH and Bash Shell Access\" (vCenter Server Appliance management): the appliance's shell is reached over SSH as root, its one local administrator";
/** vCenter Server's daemon, by the path the appliance installs it at. */
const VPXD_PATHS: ReadonlySet<string> = new Set(["/usr/lib/vmware-vpx/vpxd"]);

/** vCenter's daemon running from its path, installed by the appliance's own package (a file anyone can put there is not). */
function vcenterAppliance(host: HostData): boolean {
  return rowsOf(host, "processes").some((p) => VPXD_PATHS.has(str(p, "path"))) && rowsOf(host, "rpm_packages").some((r) => str(r, "name") === "VMware-vpxd");
}

/** SSH clients whose loopback connection to sshd is a person's own `ssh root@localhost`, not a tunnel's. */
const SSH_CLIENTS: ReadonlySet<string> = new Set(["ssh", "scp", "sftp", "ssh-keyscan"]);

/**
 * An ssh client of the system's (by its path, not a name anyone can take) that forwards nothing: a person's own
 * `ssh root@localhost`. `ssh -R 2222:127.0.0.1:22 user@outside` is the classic reverse tunnel, and is one.
 */
function ownSshClient(proc: Row): boolean {
  const path = str(proc, "path");
  if (!SSH_CLIENTS.has(basename(path)) || !/^\/(?:usr\/)?bin\//.test(path)) return false;
  const cmdline = str(proc, "cmdline");
  return !/(?:^|\s)-[A-Za-z]*[RDWFJ]/.test(cmdline) && !/(?:^|\s)-o\s*(?:\w*Forward|Proxy\w*|LocalCommand|Tunnel)\b/i.test(cmdline);
}

/**
 * Root logged in from loopback while a program other than an ssh client holds the client end of a loopback
 * connection to sshd: a tunnel (cloudflared, ngrok, frp, chisel, a renamed one) carrying a remote session, whose
 * real source the login record cannot show (Sysdig's LABRAT and GuidePoint on cloudflared tunnels to sshd).
 */
function throughTunnel(host: HostData): DetectionHit[] {
  // A session open now: a past loopback login with some local client on sshd's port today proves nothing.
  const logins: EvidenceRow[] = rowsOf(host, "logged_in_users").filter((r) => str(r, "user") === "root" && isLoopback(str(r, "host"))).map((row) => ({ table: "logged_in_users", row }));
  if (logins.length === 0) return [];
  const procs = processIndex(host);
  // sshd's ports, from its listeners (22 when none is seen).
  const sshdPids = new Set([...procs.values()].filter((p) => /^\/usr\/(?:local\/)?sbin\/sshd$|^\/sbin\/sshd$/.test(str(p, "path"))).map((p) => str(p, "pid")));
  const ports = new Set(rowsOf(host, "listening_ports").filter((l) => sshdPids.has(str(l, "pid"))).map((l) => num(l, "port") ?? 0));
  if (ports.size === 0) ports.add(22);
  const hits: DetectionHit[] = [];
  const seen = new Set<string>();
  for (const s of rowsOf(host, "process_open_sockets")) {
    const pid = str(s, "pid");
    if (!ports.has(num(s, "remote_port") ?? 0) || !isLoopback(str(s, "remote_address")) || str(s, "state") !== "ESTABLISHED" || seen.has(pid)) continue;
    const proc = procs.get(pid);
    if (proc === undefined || sshdPids.has(pid) || ownSshClient(proc)) continue;
    seen.add(pid);
    hits.push({
      summary: `root logged in from loopback while ${str(proc, "name") || basename(str(proc, "path"))} (pid ${pid}, ${str(proc, "path") || "no path"}), not a plain ssh client of the system's, holds a loopback connection to sshd: a tunnel carrying a remote root session (${str(proc, "cmdline").slice(0, 100)}).`,
      evidence: [...logins, { table: "process_open_sockets", row: s }, { table: "processes", row: proc }],
      entity: `pid:${pid}`,
    });
  }
  return hits;
}

export const remoteRootLogin = defineDetection({
  id: "remote-root-login",
  title: "Remote login as root",
  reads: {
    last: ["username", "host", "type"],
    logged_in_users: ["user", "host", "type"],
    deb_packages: ["name"],
    processes: ["pid", "name", "path", "cmdline"],
    process_open_sockets: ["pid", "remote_address", "remote_port", "local_address", "state"],
    listening_ports: ["pid", "port"],
  },
  severity: "high",
  attack: ["T1078.003", "T1021.004"],
  maturity: "test",
  category: "initial-access",
  false_positives: "Administrators logging in as root from a bastion not listed in the allowed_root_from tag.",
  advice: {
    triage: ["Identify who controls the source address of the root login on {hosts}."],
    containment: ["Block the source address and disable root SSH login (PermitRootLogin no) on {hosts}."],
    investigation: ["Review what the root session ran (shell history, process tree at the login time)."],
    remediation: ["Require named accounts with sudo; list sanctioned bastions in allowed_root_from."],
  },
  baseline_tag: "allowed_root_from",
  evaluate(host) {
    const allowed = new Set(tagList(host.tags, "allowed_root_from"));
    const groups = new Map<string, EvidenceRow[]>();
    const add = (source: string, table: string, row: Row): void => {
      if (!remoteHost(source)) return;
      appendTo(groups, source, { table, row });
    };
    for (const row of rowsOf(host, "last")) {
      const type = num(row, "type");
      if (str(row, "username") !== "root" || (type !== undefined && type !== 7)) continue;
      add(str(row, "host"), "last", row);
    }
    for (const row of rowsOf(host, "logged_in_users")) {
      if (str(row, "user") !== "root") continue;
      add(str(row, "host"), "logged_in_users", row);
    }
    const hits: DetectionHit[] = [];
    hits.push(...throughTunnel(host));
    // Appliances administered as root over SSH from inside the site: their root logins from private addresses are notes.
    const appliance = proxmoxNode(host)
      ? { what: "a Proxmox VE node", source: PROXMOX_SOURCE.split(" <")[0] ?? "", kept_by: PROXMOX_ROOT_SSH }
      : vcenterAppliance(host)
        ? { what: "a vCenter Server Appliance", source: VCENTER_SOURCE, kept_by: VCENTER_ROOT_SSH }
        : null;
    for (const source of [...groups.keys()].sort()) {
      const evidence = groups.get(source) ?? [];
      const live = evidence.some((e) => e.table === "logged_in_users");
      if (allowed.has(source)) {
        hits.push({ summary: `root logged in remotely from ${source}, a source listed in the host's allowed_root_from tag.`, evidence, entity: `ip:${source}`, kept_by: tagBaseline("allowed_root_from") });
        continue;
      }
      // A Proxmox VE node is run as root over SSH, by its cluster's nodes and its administrators, from inside the site;
      // a vCenter appliance's shell likewise.
      if (appliance && isSiteAddress(source)) {
        // A vCenter root shell open now is how vSphere intrusions proceed once inside (Mandiant on UNC3944, 2025): low.
        if (live && appliance.kept_by === VCENTER_ROOT_SSH) {
          hits.push({ summary: `root is logged in now from ${source}, inside the site, on ${appliance.what}: its administrators' way in, and an intruder's once inside; confirm who.`, evidence, entity: `ip:${source}`, severity: "low" });
          continue;
        }
        hits.push({ summary: `root logged in remotely from ${source}, inside the site, on ${appliance.what} (${appliance.source}).`, evidence, entity: `ip:${source}`, kept_by: appliance.kept_by });
        continue;
      }
      hits.push({
        summary: `root logged in remotely from ${source} (${evidence.length} record${evidence.length === 1 ? "" : "s"}${live ? ", session still open" : ""}).`,
        evidence,
        entity: `ip:${source}`,
      });
    }
    return hits;
  },
});
