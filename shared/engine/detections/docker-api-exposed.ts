// The Docker Engine API reachable over TCP (2375 plain, 2376 TLS) on a non-loopback address: without TLS client
// verification anyone who reaches the port runs containers as root on the host (the usual way Kinsing and TeamTNT land).
import { compareText } from "../order.js";
import { basename, inContainer, num, processIndex, rowsOf, str } from "../rows.js";
import { isLoopback, isPublic, isWildcard } from "../net.js";
import type { Row, Severity } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { commandSignals } from "./patterns.js";
import { allMatches } from "../matches.js";

const DOCKER_PORTS = new Set([2375, 2376]);
/**
 * Whether the process is the Engine API daemon: dockerd, or the pre-1.12 `docker daemon` / `docker -d` (the plain
 * docker CLI also takes -H tcp://..., as a client, and is not a daemon).
 */
function isDaemon(name: string, cmdline: string): boolean {
  return name === "dockerd" || (name === "docker" && /\s(?:daemon|-d|--daemon)(?:\s|$)/.test(cmdline));
}
/** -H / --host values in a dockerd command line. */
const HOST_FLAG = /(?:^|\s)(?:-H|--host)(?:=|\s+)(\S+)/g;
/** A socat TCP listen address (`TCP-LISTEN:2375`, `tcp4-l:2375`), its port captured. */
const TCP_LISTEN = /tcp(?:4|6)?-l(?:isten)?:(\d+)/gi;
/** A bind option that keeps the listen on loopback. */
const LOOPBACK_BIND = /,bind=(?:127\.|localhost|\[?::1)/gi;
const RUNTIME_SOCKET_NAME = /(?:docker|containerd|podman)\.sock/i;
const WORD = /\S+/g;

/**
 * The TCP port a socket forwarder publishes the runtime socket on, if it does (socat TCP-LISTEN:2375,fork
 * UNIX-CONNECT:/var/run/docker.sock): on one line, the first TCP listen with no loopback bind after it in its word, and a
 * runtime socket after that. Word by word, once: as one expression the bind lookahead rescanned the rest of the word
 * from every listen in it (quadratic on `tcp-l:1tcp-l:1...`; a ReDoS audit).
 */
function forwardedPort(cmdline: string): number | undefined {
  for (const line of cmdline.split("\n")) {
    const listen = publicListen(line);
    if (listen !== undefined && RUNTIME_SOCKET_NAME.test(line.slice(listen.end))) return listen.port;
  }
  return undefined;
}

/** The first TCP listen in the line that no loopback bind follows within its word. */
function publicListen(line: string): { port: number; end: number } | undefined {
  for (const word of allMatches(WORD, line)) {
    const text = word[0];
    let lastBind = -1;
    for (const b of allMatches(LOOPBACK_BIND, text)) lastBind = b.index;
    for (const m of allMatches(TCP_LISTEN, text)) {
      const end = m.index + m[0].length;
      if (end > lastBind) return { port: Number(m[1]), end: word.index + end };
    }
  }
  return undefined;
}

interface TcpHost {
  address: string;
  port: number;
}

/** tcp:// endpoints from -H flags ("tcp://0.0.0.0:2375", "tcp://:2376", "0.0.0.0:2375"). */
export function tcpHosts(cmdline: string): TcpHost[] {
  const out: TcpHost[] = [];
  for (const m of allMatches(HOST_FLAG, cmdline)) {
    const value = (m[1] ?? "").replace(/^["']|["']$/g, "");
    if (/^(?:unix|fd|npipe|ssh):/i.test(value)) continue;
    const hostPort = value.replace(/^tcp:\/\//i, "").replace(/\/.*$/, "");
    const hp = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(hostPort);
    if (!hp) continue;
    const port = hp[2] !== undefined ? Number(hp[2]) : 2375;
    out.push({ address: hp[1] ?? "", port });
  }
  return out;
}

function tlsVerified(cmdline: string): boolean {
  return /(?:^|\s)--tlsverify(?:=true)?(?:\s|$)/.test(cmdline);
}

function where(address: string): string {
  if (isWildcard(address)) return "all interfaces";
  return isPublic(address) ? `public address ${address}` : `address ${address}`;
}

/** The value most items have (ties: the smallest, so the answer does not depend on row order); undefined when none. */
function mostCommon(items: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i, (counts.get(i) ?? 0) + 1);
  let best: string | undefined;
  for (const [k, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0) || (n === counts.get(best) && compareText(k, best) < 0)) best = k;
  return best;
}

export const dockerApiExposed = defineDetection({
  id: "docker-api-exposed",
  title: "Docker Engine API exposed over TCP",
  reads: {
    listening_ports: ["pid", "port", "protocol", "address", "net_namespace"],
    processes: ["pid", "name", "path", "cmdline", "root", "cgroup_path"],
    process_open_sockets: ["pid", "remote_address", "remote_port", "local_port"],
    docker_containers: ["id", "name", "image", "command"],
  },
  severity: "high",
  attack: ["T1190", "T1610"],
  maturity: "test",
  category: "initial-access",
  false_positives:
    "A TLS-verified daemon on 2376 (--tlsverify) reported as info; dockerd bound to a management VLAN behind a firewall; a docker:dind service container in CI publishing 2375 on a private network.",
  advice: {
    triage: ["On {hosts}, check who can reach the port (security group, firewall) and list containers created recently (docker ps -a, created/started times)."],
    containment: ["Firewall the port on {hosts} now; stop containers nobody launched (miners, alpine/ubuntu with / mounted, names like kinsing)."],
    investigation: ["Review dockerd logs for API calls from external addresses; look for images pulled from unknown registries and containers with host mounts or --privileged."],
    remediation: ["Serve the API on the unix socket only, or on 2376 with --tlsverify and client certificates; reach remote engines over SSH (DOCKER_HOST=ssh://)."],
  },
  evaluate(host) {
    const procs = processIndex(host);
    interface Group {
      pid: string;
      proc: Row | undefined;
      evidence: EvidenceRow[];
      endpoints: TcpHost[];
      /** The network namespaces its listening sockets are in. */
      namespaces: Set<string>;
    }
    const groups = new Map<string, Group>();
    const group = (pid: string): Group => {
      const g = groups.get(pid) ?? { pid, proc: procs.get(pid), evidence: [], endpoints: [], namespaces: new Set<string>() };
      groups.set(pid, g);
      return g;
    };
    const name = (proc: Row | undefined): string => basename(str(proc, "path")) || str(proc, "name");
    for (const row of rowsOf(host, "listening_ports")) {
      const port = num(row, "port") ?? 0;
      const protocol = num(row, "protocol");
      const address = str(row, "address");
      if (protocol !== undefined && protocol !== 6) continue;
      if (isLoopback(address)) continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      const cmdline = str(proc, "cmdline");
      const daemon = isDaemon(name(proc), cmdline);
      const configured = daemon && tcpHosts(cmdline).some((h) => h.port === port);
      if (!((daemon && DOCKER_PORTS.has(port)) || configured || forwardedPort(cmdline) === port)) continue;
      const g = group(pid);
      g.evidence.push({ table: "listening_ports", row });
      g.endpoints.push({ address, port });
      if (str(row, "net_namespace") !== "") g.namespaces.add(str(row, "net_namespace"));
    }
    // The host's network namespace: the one most listening sockets are in (the host's own services); a daemon whose
    // sockets are all in another runs in a container (a CI job's docker:dind service) and listens on its network.
    const hostNamespace = mostCommon(rowsOf(host, "listening_ports").map((r) => str(r, "net_namespace")).filter((n) => n !== ""));
    for (const proc of rowsOf(host, "processes")) {
      const pid = str(proc, "pid");
      const cmdline = str(proc, "cmdline");
      const n = name(proc);
      let endpoints: TcpHost[] = [];
      if (isDaemon(n, cmdline)) endpoints = tcpHosts(cmdline);
      const forward = forwardedPort(cmdline);
      if (forward !== undefined) endpoints.push({ address: "", port: forward });
      if (n === "docker-proxy") {
        const hostPort = /-host-port\s+(\d+)/.exec(cmdline);
        const containerPort = /-container-port\s+(\d+)/.exec(cmdline);
        const hostIp = /-host-ip\s+(\S+)/.exec(cmdline)?.[1] ?? "0.0.0.0";
        if (hostPort && containerPort && DOCKER_PORTS.has(Number(containerPort[1]))) endpoints.push({ address: hostIp, port: Number(hostPort[1]) });
      }
      endpoints = endpoints.filter((e) => !isLoopback(e.address));
      if (endpoints.length === 0 && !groups.has(pid)) continue;
      const g = group(pid);
      g.endpoints.push(...endpoints);
    }
    // What came through an open API: clients at public addresses connected to the daemon, and containers whose
    // command fetches and runs a script (the Kinsing/TeamTNT pattern: alpine or ubuntu running curl | sh).
    const clients = (pid: string): Row[] =>
      rowsOf(host, "process_open_sockets").filter((r) => str(r, "pid") === pid && isPublic(str(r, "remote_address"))).slice(0, 4);
    const launched = rowsOf(host, "docker_containers").filter((r) => commandSignals(str(r, "command")).some((x) => x.strong)).slice(0, 4);
    const hits: DetectionHit[] = [];
    for (const g of [...groups.values()].sort((a, b) => compareText(a.pid, b.pid))) {
      if (g.endpoints.length === 0) continue;
      const cmdline = str(g.proc, "cmdline");
      const n = name(g.proc) || `pid ${g.pid}`;
      const evidence = g.proc ? [{ table: "processes", row: g.proc }, ...g.evidence] : g.evidence;
      const seen = new Set<string>();
      const endpoints = g.endpoints.filter((e) => {
        const key = `${isWildcard(e.address) ? "*" : e.address}:${e.port}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const list = endpoints.map((e) => `${where(e.address)} port ${e.port}`).join(", ");
      const entity = `pid:${g.pid}`;
      let severity: Severity;
      let why: string;
      // In a network namespace of its own: its sockets are not in the host's, or the daemon itself runs in a container
      // (a container runtime's cgroup scope, or a root that is a container's filesystem) when no listener row shows.
      const ownNamespace = (hostNamespace !== undefined && g.namespaces.size > 0 && !g.namespaces.has(hostNamespace)) || (g.namespaces.size === 0 && inContainer(g.proc));
      if (n === "docker-proxy") {
        severity = "medium";
        why = `a container publishes the Docker API port (typically docker:dind) on ${list}`;
      } else if (forwardedPort(cmdline) !== undefined) {
        severity = "high";
        why = `forwards the runtime socket to TCP on ${list}, with no authentication`;
      } else if (tlsVerified(cmdline)) {
        severity = "info";
        why = `serves the Docker API on ${list} with --tlsverify (client certificates required)`;
      } else if (endpoints.every((e) => e.port === 2376) || /(?:^|\s)--tls(?:=true)?(?:\s|$)/.test(cmdline)) {
        severity = "medium";
        why = `serves the Docker API with TLS on ${list}, but its command line does not show --tlsverify (check daemon.json: TLS without client verification lets anyone in)`;
      } else if (ownNamespace) {
        // What the CI's jobs are given on purpose: an observation (info), unless abuse below shows it was used.
        severity = "info";
        why = `serves the Docker API without TLS on ${list} inside a network namespace of its own (a container's, such as a CI docker:dind service): reachable from that container network, and from outside only if a port is published`;
      } else {
        severity = "high";
        why = `serves the Docker API without TLS on ${list}: anyone who reaches it runs containers as root on the host`;
      }
      const abuse: string[] = [];
      if (n !== "docker-proxy" && (severity !== "info" || ownNamespace)) {
        const from = clients(g.pid);
        if (from.length > 0) {
          abuse.push(`clients at public addresses are connected (${from.map((r) => str(r, "remote_address")).join(", ")})`);
          evidence.push(...from.map((row) => ({ table: "process_open_sockets", row })));
        }
        if (launched.length > 0) {
          abuse.push(`containers run download-and-execute commands (${launched.map((r) => `${str(r, "name") || str(r, "id").slice(0, 12)}: ${str(r, "command").slice(0, 60)}`).join("; ")})`);
          evidence.push(...launched.map((row) => ({ table: "docker_containers", row })));
        }
        if (abuse.length > 0) severity = "high";
      }
      hits.push({ summary: `${n} (pid ${g.pid}) ${why}${abuse.length > 0 ? `; ${abuse.join("; ")}` : ""}.`, evidence, severity, entity });
    }
    return hits;
  },
});
