// Socket tables from /proc/net/{tcp,tcp6,udp,udp6}: process_open_sockets and listening_ports.
// Sockets are read once per network namespace (the agent's own plus any other namespace a
// readable /proc/<pid>/ns/net points at, e.g. containers) and joined to pid/fd via socket inodes.
import { endianness } from "node:os";
import { readLines, readLink, type Ctx, type Row } from "./util.js";

const TCP_STATES: Record<string, string> = {
  "01": "ESTABLISHED",
  "02": "SYN_SENT",
  "03": "SYN_RECV",
  "04": "FIN_WAIT1",
  "05": "FIN_WAIT2",
  "06": "TIME_WAIT",
  "07": "CLOSE",
  "08": "CLOSE_WAIT",
  "09": "LAST_ACK",
  "0A": "LISTEN",
  "0B": "CLOSING",
  "0C": "NEW_SYN_RECV",
};

const SOURCES = [
  { file: "tcp", protocol: 6, family: 2 },
  { file: "tcp6", protocol: 6, family: 10 },
  { file: "udp", protocol: 17, family: 2 },
  { file: "udp6", protocol: 17, family: 10 },
] as const;

export interface SocketEntry {
  family: number;
  protocol: number;
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  /** Raw two-digit hex state from the kernel ("0A" = TCP LISTEN, "07" = UDP unconnected). */
  st: string;
  inode: string;
  netNamespace: number;
}

/** The kernel prints each 32-bit word of an address in host byte order. */
function wordBytes(hex8: string, littleEndian: boolean): number[] {
  const bytes = [0, 2, 4, 6].map((i) => Number.parseInt(hex8.slice(i, i + 2), 16));
  return littleEndian ? bytes.reverse() : bytes;
}

/** glibc inet_ntop formatting: longest run (>= 2) of zero groups becomes "::", with the
 *  IPv4-compatible / IPv4-mapped forms printed in dotted quad. */
export function formatIpv6(bytes: readonly number[]): string {
  const words = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  let best = { base: -1, len: 0 };
  let cur = { base: -1, len: 0 };
  words.forEach((w, i) => {
    if (w === 0) {
      cur = cur.base === -1 ? { base: i, len: 1 } : { base: cur.base, len: cur.len + 1 };
      if (cur.len > best.len) best = cur;
    } else cur = { base: -1, len: 0 };
  });
  if (best.len < 2) best = { base: -1, len: 0 };
  const parts: string[] = [];
  for (let i = 0; i < 8; i++) {
    if (best.base !== -1 && i >= best.base && i < best.base + best.len) {
      if (i === best.base) parts.push(i === 0 ? ":" : "");
      continue;
    }
    if (i === 6 && best.base === 0 && (best.len === 6 || (best.len === 5 && words[5] === 0xffff))) {
      parts.push(bytes.slice(12, 16).join("."));
      break;
    }
    parts.push((words[i] ?? 0).toString(16));
  }
  if (best.base !== -1 && best.base + best.len === 8) parts.push("");
  return parts.join(":");
}

/** Decode "0100007F:0016" (or the 32-hex-digit IPv6 form) into address and port. */
export function decodeEndpoint(text: string, littleEndian = endianness() === "LE"): { address: string; port: number } | undefined {
  const [hex, portHex] = text.split(":");
  if (hex === undefined || portHex === undefined || !/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
  const port = Number.parseInt(portHex, 16);
  if (hex.length === 8) return { address: wordBytes(hex, littleEndian).join("."), port };
  if (hex.length === 32) {
    const bytes = [0, 8, 16, 24].flatMap((i) => wordBytes(hex.slice(i, i + 8), littleEndian));
    return { address: formatIpv6(bytes), port };
  }
  return undefined;
}

export function parseNetFile(lines: readonly string[], protocol: number, family: number, netNamespace: number): SocketEntry[] {
  const out: SocketEntry[] = [];
  for (const line of lines.slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = decodeEndpoint(f[1] ?? "");
    const remote = decodeEndpoint(f[2] ?? "");
    if (local === undefined || remote === undefined) continue;
    out.push({
      family,
      protocol,
      localAddress: local.address,
      localPort: local.port,
      remoteAddress: remote.address,
      remotePort: remote.port,
      st: (f[3] ?? "").toUpperCase(),
      inode: f[9] ?? "0",
      netNamespace,
    });
  }
  return out;
}

function nsInode(link: string | undefined): number | undefined {
  const m = /^net:\[(\d+)\]$/.exec(link ?? "");
  return m ? Number(m[1]) : undefined;
}

async function readNamespace(ctx: Ctx, netDir: string, ns: number): Promise<SocketEntry[]> {
  const all: SocketEntry[] = [];
  for (const src of SOURCES) {
    all.push(...parseNetFile(await readLines(ctx.at(`${netDir}/${src.file}`)), src.protocol, src.family, ns));
  }
  return all;
}

/** Every TCP/UDP socket in every reachable network namespace. */
export async function allSockets(ctx: Ctx): Promise<SocketEntry[]> {
  const selfNs = nsInode(await readLink(ctx.at("/proc/self/ns/net"))) ?? 0;
  const seen = new Set<number>([selfNs]);
  const sockets = await readNamespace(ctx, "/proc/net", selfNs);
  for (const pid of await ctx.pids()) {
    const ns = nsInode(await readLink(ctx.at(`/proc/${pid}/ns/net`)));
    if (ns === undefined || seen.has(ns)) continue;
    seen.add(ns);
    sockets.push(...(await readNamespace(ctx, `/proc/${pid}/net`, ns)));
  }
  return sockets;
}

export async function processOpenSockets(ctx: Ctx): Promise<Row[]> {
  const [sockets, owners] = await Promise.all([allSockets(ctx), ctx.socketOwners()]);
  return sockets.slice(0, ctx.max).map((s) => {
    // Sockets no process holds (TIME_WAIT, or owners we may not inspect) get pid/fd -1, as osquery does.
    const owner = owners.get(s.inode);
    return {
      pid: owner?.pid ?? -1,
      fd: owner?.fd ?? -1,
      socket: Number(s.inode),
      family: s.family,
      protocol: s.protocol,
      local_address: s.localAddress,
      local_port: s.localPort,
      remote_address: s.remoteAddress,
      remote_port: s.remotePort,
      path: "",
      state: s.protocol === 6 ? (TCP_STATES[s.st] ?? "") : "",
      net_namespace: s.netNamespace,
    };
  });
}

export async function listeningPorts(ctx: Ctx): Promise<Row[]> {
  const [sockets, owners] = await Promise.all([allSockets(ctx), ctx.socketOwners()]);
  const rows: Row[] = [];
  for (const s of sockets) {
    if (rows.length >= ctx.max) break;
    // TCP: LISTEN state. UDP has no listen state: a bound socket with no peer is a listener.
    const listening = s.protocol === 6 ? s.st === "0A" : s.remotePort === 0;
    if (!listening) continue;
    const owner = owners.get(s.inode);
    rows.push({
      pid: owner?.pid ?? -1,
      port: s.localPort,
      protocol: s.protocol,
      family: s.family,
      address: s.localAddress,
      fd: owner?.fd ?? -1,
      socket: Number(s.inode),
      path: "",
      net_namespace: s.netNamespace,
    });
  }
  return rows;
}
