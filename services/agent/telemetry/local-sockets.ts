// Non-inet sockets for process_open_sockets: AF_PACKET from /proc/net/packet (raw link-layer capture,
// as packet-filter backdoors use) and AF_UNIX from /proc/net/unix, parsed as osquery's proc.cpp does.
import type { SocketEntry } from "./net.js";

export const AF_UNIX = 1;
export const AF_PACKET = 17;

/** osquery's procDecodeUnsignedShortFromHex: exactly four hex digits, else 0. */
function hexShort(text: string | undefined): number {
  return text !== undefined && /^[0-9A-Fa-f]{4}$/.test(text) ? Number.parseInt(text, 16) : 0;
}

function fieldsOf(line: string): string[] {
  return line.split(" ").filter((f) => f !== "");
}

/** /proc/net/packet: "sk RefCnt Type Proto Iface R Rmem User Inode". Protocol is the ethertype
 *  (3 = ETH_P_ALL, 2048 = IPv4); packet sockets have no addresses or ports. */
export function parsePacketFile(lines: readonly string[], netNamespace: number): SocketEntry[] {
  const [header, ...rest] = lines;
  if (header === undefined || !(header.startsWith("sl") || header.startsWith("sk"))) return [];
  const out: SocketEntry[] = [];
  for (const line of rest) {
    const f = fieldsOf(line);
    if (f.length < 9) continue;
    out.push({
      family: AF_PACKET,
      protocol: hexShort(f[3]),
      localAddress: "",
      localPort: 0,
      remoteAddress: "",
      remotePort: 0,
      st: "",
      inode: f[8] ?? "0",
      netNamespace,
    });
  }
  return out;
}

/** The seven fields before a /proc/net/unix path, and the path: the rest of the line, spaces and all. */
const UNIX_LINE = /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?: (.*))?$/;

/**
 * /proc/net/unix: "Num RefCount Protocol Flags Type St Inode [Path]" ("@name" = abstract). The kernel prints a
 * socket's name as it is, newlines included, so any user can bind a name that reads as more lines: a socket at any
 * path, with the inode of another process's socket (which its owner then seems to hold). A real inode is listed
 * once per namespace, so every inode listed twice is dropped, the real line with the forged one.
 */
export function parseUnixFile(lines: readonly string[], netNamespace: number): SocketEntry[] {
  const [header, ...rest] = lines;
  if (header === undefined || !header.startsWith("Num")) return [];
  const out: SocketEntry[] = [];
  const seen = new Map<string, number>();
  for (const line of rest) {
    const m = UNIX_LINE.exec(line);
    if (!m) continue;
    const f = m.slice(1);
    seen.set(f[6] ?? "0", (seen.get(f[6] ?? "0") ?? 0) + 1);
    out.push({
      family: AF_UNIX,
      protocol: Number.parseInt(f[2] ?? "0", 10) || 0,
      localAddress: "",
      localPort: 0,
      remoteAddress: "",
      remotePort: 0,
      st: f[5] ?? "",
      inode: f[6] ?? "0",
      netNamespace,
      path: f[7] ?? "",
    });
  }
  return out.filter((e) => seen.get(e.inode) === 1);
}
