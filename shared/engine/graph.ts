// The entity graph the pathfinder walks, built from the rows of every host (plus the agent directory's IPs).
import { compareText } from "./order.js";
import { sshKeyId } from "./detections/ssh-authorized-key.js";
import { isShell } from "./detections/patterns.js";
import { isIpv4, isLoopback, isWildcard, normalizeIp } from "./net.js";
import { appendTo, basename, rowsOf, str, tagList, userIndex } from "./rows.js";
import type { AgentDirectoryEntry, HostData } from "./types.js";
import { allMatches } from "./matches.js";

export { PATHFINDER_TABLES } from "./pathfinder-tables.js";

/** A key or hash on more hosts than this links none of them (graph.ts: composite links). */
export const SHARED_LINK_MAX_HOSTS = 64;

export type NodeKind = "host" | "process" | "user" | "file" | "hash" | "ipport" | "ip" | "sshkey" | "package";
export type EdgeType =
  | "on_host" | "spawned" | "runs_as" | "executes" | "has_hash" | "listens_on" | "connects_to" | "at" | "ip_of"
  | "logged_in_from" | "authorizes" | "persists" | "installed_on" | "reverse_shell" | "same_ssh_key" | "same_rare_hash";

export interface GraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  /** Host-independent key used to measure how common the node is across hosts. */
  prevalenceKey: string;
  agent?: string;
}

export interface Adjacent {
  to: string;
  type: EdgeType;
  /** false when the edge is walked against its direction. */
  forward: boolean;
}

export interface EntityGraph {
  nodes: Map<string, GraphNode>;
  adjacency: Map<string, Adjacent[]>;
  /** prevalenceKey -> number of distinct hosts with such a node. */
  prevalence: Map<string, number>;
  hostCount: number;
  /** IP -> agent id (only unambiguous addresses). */
  ipToAgent: Map<string, string>;
  /** `${agent}|${pid}` -> process node id. */
  processByPid: Map<string, string>;
}

export function hostNodeId(agent: string): string {
  return `host:${agent}`;
}

/** Addresses a host claims: tag `ip` (comma list) and, with rows, the non-loopback local addresses of its sockets. */
export function hostIps(host: HostData | AgentDirectoryEntry): string[] {
  const ips = new Set(tagList(host.tags, "ip").map(normalizeIp));
  if ("tables" in host) {
    for (const row of rowsOf(host, "process_open_sockets")) ips.add(normalizeIp(str(row, "local_address")));
    for (const row of rowsOf(host, "listening_ports")) ips.add(normalizeIp(str(row, "address")));
  }
  return [...ips].filter((ip) => isIpv4(ip) && !isWildcard(ip) && !isLoopback(ip)).sort();
}

export function mapIpsToAgents(hosts: HostData[], directory: AgentDirectoryEntry[]): Map<string, string> {
  const claims = new Map<string, Set<string>>();
  const claim = (ip: string, agent: string): void => {
    claims.set(ip, (claims.get(ip) ?? new Set<string>()).add(agent));
  };
  for (const h of hosts) for (const ip of hostIps(h)) claim(ip, h.agent_id);
  for (const d of directory) for (const ip of hostIps(d)) claim(ip, d.agent_id);
  const map = new Map<string, string>();
  for (const [ip, agents] of [...claims.entries()].sort(([a], [b]) => compareText(a, b))) {
    const only = [...agents][0];
    if (agents.size === 1 && only !== undefined) map.set(ip, only);
  }
  return map;
}

export function buildGraph(hostsIn: HostData[], directory: AgentDirectoryEntry[] = []): EntityGraph {
  const hosts = [...hostsIn].sort((a, b) => compareText(a.agent_id, b.agent_id));
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, Adjacent[]>();
  const agentsByKey = new Map<string, Set<string>>();
  const processByPid = new Map<string, string>();
  const ipToAgent = mapIpsToAgents(hosts, directory);
  const names = new Map<string, string>([...directory.map((d) => [d.agent_id, d.hostname] as const), ...hosts.map((h) => [h.agent_id, h.hostname] as const)]);

  const node = (id: string, kind: NodeKind, label: string, prevalenceKey: string, agent?: string): string => {
    if (!nodes.has(id)) nodes.set(id, { id, kind, label, prevalenceKey, ...(agent !== undefined ? { agent } : {}) });
    if (agent !== undefined) agentsByKey.set(prevalenceKey, (agentsByKey.get(prevalenceKey) ?? new Set<string>()).add(agent));
    return id;
  };
  const seen = new Set<string>();
  const edge = (from: string, to: string, type: EdgeType): void => {
    const key = `${from}|${to}|${type}`;
    if (from === to || seen.has(key)) return;
    seen.add(key);
    // Appended in place: copying a node's list on every edge made a host with 40,000 processes of one user take 37 s.
    appendTo(edges, from, { to, type, forward: true });
    appendTo(edges, to, { to: from, type, forward: false });
  };
  const hostNode = (agent: string): string => node(hostNodeId(agent), "host", names.get(agent) ?? agent, `host:${agent}`, agent);
  const ipNode = (ip: string, agent?: string): string => {
    const id = node(`ip:${ip}`, "ip", ip, `ip:${ip}`, agent);
    const owner = ipToAgent.get(ip);
    if (owner !== undefined) edge(id, hostNode(owner), "ip_of");
    return id;
  };
  const endpoint = (agent: string, address: string, port: string, primary: string | undefined): string => {
    const ip = normalizeIp(address);
    if (isLoopback(ip)) return node(`ipport:${agent}@${ip}:${port}`, "ipport", `${ip}:${port} on ${names.get(agent) ?? agent}`, `ipport:loopback:${port}`, agent);
    const resolved = isWildcard(ip) ? primary : ip;
    if (resolved === undefined) return node(`ipport:${agent}@*:${port}`, "ipport", `*:${port} on ${names.get(agent) ?? agent}`, `ipport:${agent}@*:${port}`, agent);
    const id = node(`ipport:${resolved}:${port}`, "ipport", `${resolved}:${port}`, `ipport:${resolved}:${port}`, agent);
    if (isIpv4(resolved)) edge(id, ipNode(resolved, agent), "at");
    const owner = ipToAgent.get(resolved);
    if (owner !== undefined) edge(id, hostNode(owner), "ip_of");
    return id;
  };

  for (const host of hosts) {
    const a = host.agent_id;
    const h = hostNode(a);
    const primary = hostIps(host)[0];
    const users = userIndex(host);
    const userNode = (name: string): string => {
      const id = node(`user:${a}:${name}`, "user", `${name}@${host.hostname}`, `user:${name}`, a);
      edge(id, h, "on_host");
      return id;
    };
    const fileNode = (path: string): string => node(`file:${a}:${path}`, "file", `${path} on ${host.hostname}`, `file:${path}`, a);
    const procRows = rowsOf(host, "processes");
    for (const row of procRows) {
      const pid = str(row, "pid");
      if (pid === "") continue;
      const name = str(row, "name") || basename(str(row, "path")) || `pid ${pid}`;
      const id = node(`process:${a}:${pid}:${str(row, "start_time")}`, "process", `${name} (pid ${pid}) on ${host.hostname}`, `proc:${name}`, a);
      if (!processByPid.has(`${a}|${pid}`)) processByPid.set(`${a}|${pid}`, id);
      edge(id, h, "on_host");
      const uid = str(row, "uid");
      if (uid !== "") edge(id, userNode(users.get(uid) ?? `uid${uid}`), "runs_as");
      const path = str(row, "path").replace(/ \(deleted\)$/, "");
      if (path !== "") edge(id, fileNode(path), "executes");
    }
    for (const row of procRows) {
      const child = processByPid.get(`${a}|${str(row, "pid")}`);
      const parent = processByPid.get(`${a}|${str(row, "parent")}`);
      if (child !== undefined && parent !== undefined) edge(parent, child, "spawned");
    }
    for (const row of rowsOf(host, "hash")) {
      const sha = str(row, "sha256").toLowerCase();
      const path = str(row, "path");
      if (sha === "" || path === "") continue;
      edge(fileNode(path), node(`hash:${sha}`, "hash", `sha256 ${sha.slice(0, 12)}…`, `hash:${sha}`, a), "has_hash");
    }
    for (const row of rowsOf(host, "listening_ports")) {
      const proc = processByPid.get(`${a}|${str(row, "pid")}`);
      if (proc !== undefined && str(row, "port") !== "") edge(proc, endpoint(a, str(row, "address"), str(row, "port"), primary), "listens_on");
    }
    for (const row of rowsOf(host, "process_open_sockets")) {
      const proc = processByPid.get(`${a}|${str(row, "pid")}`);
      const remote = str(row, "remote_address");
      const port = str(row, "remote_port");
      if (proc === undefined || isWildcard(remote) || port === "" || port === "0") continue;
      const target = endpoint(a, remote, port, primary);
      edge(proc, target, "connects_to");
      const procNode = nodes.get(proc);
      if (procNode && !isLoopback(remote) && isShell(procNode.label.split(" ")[0] ?? "")) edge(proc, target, "reverse_shell");
    }
    for (const [table, column] of [["last", "username"], ["logged_in_users", "user"]] as const) {
      for (const row of rowsOf(host, table)) {
        const from = normalizeIp(str(row, "host"));
        const user = str(row, column);
        if (user !== "" && isIpv4(from) && !isLoopback(from)) edge(userNode(user), ipNode(from, a), "logged_in_from");
      }
    }
    for (const row of rowsOf(host, "authorized_keys")) {
      const key = str(row, "key");
      if (key === "") continue;
      const id = sshKeyId(key);
      edge(node(`sshkey:${id}`, "sshkey", `ssh key ${id}`, `sshkey:${id}`, a), userNode(users.get(str(row, "uid")) ?? `uid${str(row, "uid")}`), "authorizes");
    }
    for (const row of rowsOf(host, "crontab")) {
      const cronPath = str(row, "path");
      const owner = /\/crontabs\/([^/]+)$/.exec(cronPath)?.[1] ?? "root";
      for (const m of allMatches(/(?:^|[\s;|&'"=])(\/[\w./-]+)/g, str(row, "command"))) {
        const target = m[1] ?? "";
        if (target.split("/").length > 2 && !target.startsWith("/dev/")) edge(userNode(owner), fileNode(target), "persists");
      }
    }
    for (const row of rowsOf(host, "deb_packages")) {
      const name = str(row, "name");
      const version = str(row, "version");
      if (name !== "") edge(node(`package:${name}@${version}`, "package", `${name} ${version}`, `package:${name}@${version}`, a), h, "installed_on");
    }
  }

  const prevalence = new Map<string, number>([...agentsByKey.entries()].map(([k, v]) => [k, v.size]));
  // Composite links: the same ssh key, or the same file hash, on several (but not most) hosts. Each pair of hosts
  // gets an edge, so a key on thousands of hosts would be millions of edges (4,000 hosts sharing one: 73 s, 1.8 GB);
  // beyond SHARED_LINK_MAX_HOSTS hosts it is fleet-wide (a deploy key, a common binary), not a lead.
  const hostCount = hosts.length;
  for (const n of [...nodes.values()].filter((x) => x.kind === "sshkey" || x.kind === "hash")) {
    const agents = [...(agentsByKey.get(n.prevalenceKey) ?? [])].sort();
    if (agents.length < 2 || agents.length > SHARED_LINK_MAX_HOSTS) continue;
    if (hostCount >= 3 && agents.length * 2 > hostCount) continue;
    for (let i = 0; i < agents.length; i++) {
      for (let j = i + 1; j < agents.length; j++) {
        edge(hostNodeId(agents[i] ?? ""), hostNodeId(agents[j] ?? ""), n.kind === "sshkey" ? "same_ssh_key" : "same_rare_hash");
      }
    }
  }
  const adjacency = new Map<string, Adjacent[]>();
  for (const [id, list] of edges) {
    adjacency.set(id, [...list].sort((x, y) => compareText(x.type, y.type) || compareText(x.to, y.to) || Number(y.forward) - Number(x.forward)));
  }
  return { nodes, adjacency, prevalence, hostCount, ipToAgent, processByPid };
}
