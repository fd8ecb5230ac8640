// Socket tables from /proc/net/{icmp,tcp,udp,udplite,raw}[6], packet and unix: process_open_sockets and
// listening_ports, with osquery's values (state names, family numbers, pid/fd -1 when unowned).
// Sockets are read once per network namespace (the agent's own plus any other namespace a
// readable /proc/<pid>/ns/net points at, e.g. containers) and joined to pid/fd via socket inodes.
import { endianness } from "node:os";
import { AF_PACKET, AF_UNIX, parsePacketFile, parseUnixFile } from "./local-sockets.js";
import { readLines, readLink, type Ctx, type Row } from "./util.js";

/** osquery's tcp_states, indexed by the kernel's hex state; anything outside the table is "UNKNOWN". */
const TCP_STATES = ["UNKNOWN", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSED", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"];

export function tcpState(st: string): string {
  const n = /^[0-9A-Fa-f]+$/.test(st) ? Number.parseInt(st, 16) : 0;
  return n === 0 || n >= TCP_STATES.length ? "UNKNOWN" : (TCP_STATES[n] ?? "UNKNOWN");
}

/** The files osquery reads per namespace, in its order: icmp, tcp, udp, udplite, raw (v4 then v6). */
const SOURCES = [1, 6, 17, 136, 255].flatMap((protocol) => {
  const name = { 1: "icmp", 6: "tcp", 17: "udp", 136: "udplite", 255: "raw" }[protocol] ?? "";
  return [
    { file: name, protocol, family: 2 },
    { file: `${name}6`, protocol, family: 10 },
  ];
});

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
  /** AF_UNIX socket path ("" otherwise). */
  path?: string;
}

/** The state column: TCP names, "NONE" for packet sockets, empty for the rest (osquery's values). */
export function socketState(s: SocketEntry): string {
  if (s.family === AF_PACKET) return "NONE";
  return (s.family === 2 || s.family === 10) && s.protocol === 6 ? tcpState(s.st) : "";
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
  all.push(...parsePacketFile(await readLines(ctx.at(`${netDir}/packet`)), ns));
  all.push(...parseUnixFile(await readLines(ctx.at(`${netDir}/unix`)), ns));
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
  // Unix sockets are numerous and rarely interesting: keep them last so row caps cut them first.
  return [...sockets.filter((s) => s.family !== AF_UNIX), ...sockets.filter((s) => s.family === AF_UNIX)];
}

export async function processOpenSockets(ctx: Ctx): Promise<Row[]> {
  const [sockets, { owners, complete }] = await Promise.all([allSockets(ctx), ctx.socketOwners()]);
  // Past the descriptor bound an owned socket reads as unowned: the table says its owners are partial.
  if (!complete) ctx.cut();
  return sockets.slice(0, ctx.max).map((s) => {
    // Sockets no process holds (TIME_WAIT, or owners we may not inspect) get pid/fd -1, as osquery does.
    const owner = owners.get(s.inode);
    return {
      pid: owner?.pid ?? -1,
      fd: owner?.fd ?? -1,
      socket: s.inode,
      family: s.family,
      protocol: s.protocol,
      local_address: s.localAddress,
      remote_address: s.remoteAddress,
      local_port: s.localPort,
      remote_port: s.remotePort,
      path: s.path ?? "",
      state: socketState(s),
      net_namespace: s.netNamespace,
    };
  });
}

/** osquery derives listening_ports from process_open_sockets: every inet socket with remote port 0,
 *  every unix socket with a path (port 0, socket 0), and packet sockets. */
export async function listeningPorts(ctx: Ctx): Promise<Row[]> {
  const [sockets, { owners, complete }] = await Promise.all([allSockets(ctx), ctx.socketOwners()]);
  if (!complete) ctx.cut();
  const rows: Row[] = [];
  for (const s of sockets) {
    if (rows.length >= ctx.max) break;
    const inet = s.family === 2 || s.family === 10;
    if (s.family === AF_UNIX && (s.path ?? "") === "") continue;
    if (inet && s.remotePort !== 0) continue;
    const owner = owners.get(s.inode);
    const unix = s.family === AF_UNIX;
    rows.push({
      pid: owner?.pid ?? -1,
      port: unix ? 0 : s.localPort,
      protocol: s.protocol,
      family: s.family,
      address: unix ? "" : s.localAddress,
      fd: owner?.fd ?? -1,
      socket: unix ? "0" : s.inode,
      path: unix ? (s.path ?? "") : "",
      net_namespace: s.netNamespace,
    });
  }
  return rows;
}
