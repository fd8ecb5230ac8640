// Where deliveries may go: absolute http(s) URLs whose host does not resolve to a loopback, private,
// link-local, metadata or otherwise non-public address (unless INQUEST_ALLOW_PRIVATE_TARGETS). Checked when a
// subscription is created or patched, and again on every connection the dispatcher opens (DNS can change).
import { isIP } from "node:net";
import { hasCredentials } from "../net.js";

export type TargetProblem = "invalid_url" | "private_target" | "unresolvable";
export type TargetCheck = { ok: true; url: URL } | { ok: false; problem: TargetProblem; message: string };

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type Resolve = (hostname: string) => Promise<string[]>;

/** Names that point at the machine itself or a cloud metadata service whatever DNS says. */
const BLOCKED_NAMES = [/^localhost$/i, /\.localhost$/i, /^metadata$/i, /^metadata\.google\.internal$/i, /^instance-data(\.ec2\.internal)?$/i];

// [first address as a 32-bit number, prefix length]
const BLOCKED_V4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated): a relay forwards into IPv6 it chooses
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

function v4ToNumber(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function v4Blocked(n: number): boolean {
  return BLOCKED_V4.some(([base, bits]) => {
    const b = v4ToNumber(base) as number;
    const size = 2 ** (32 - bits);
    return n >= b && n < b + size;
  });
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included), or null. */
function v6Groups(ip: string): number[] | null {
  let text = ip.replace(/%.*$/, ""); // zone id
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4ToNumber(tail[1] as string);
    if (n === null) return null;
    text = `${text.slice(0, -(tail[1] as string).length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  const groups = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0) ? groups : null;
}

/** True for addresses a webhook must not reach: loopback, private, link-local, metadata, multicast, reserved. */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip.replace(/%.*$/, ""));
  if (family === 4) return v4Blocked(v4ToNumber(ip) as number);
  if (family !== 6) return true; // not an address at all: refuse
  const g = v6Groups(ip);
  if (!g) return true;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embeddedV4 = (g6 * 65536 + g7) >>> 0;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0xffff) return v4Blocked(embeddedV4); // IPv4-mapped
    if (g5 === 0) return true; // ::, ::1 and the deprecated IPv4-compatible range
  }
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return v4Blocked(embeddedV4); // IPv4-translated (::ffff:0:a.b.c.d)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4Blocked(embeddedV4); // NAT64
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64 (64:ff9b:1::/48): whatever a local gateway maps it to
  if (g0 === 0x2002) return true; // 6to4 (deprecated): carries an IPv4 address a relay may reach, private ones included
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local (incl. fd00:ec2::254 metadata)
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo (2001::/32): tunnels to the IPv4 client address its last 32 bits hold
  if (g0 === 0x2001 && g1 === 0x0002 && g2 === 0) return true; // benchmarking (2001:2::/48)
  if (g0 === 0x2001 && ((g1 & 0xfff0) === 0x0010 || (g1 & 0xfff0) === 0x0020)) return true; // ORCHID v1/v2 (2001:10::/28, 2001:20::/28): never routed
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard
  return false;
}

/** Parses a subscriber URL: absolute, http or https, with a host. */
export function parseTargetUrl(text: string): TargetCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: "invalid_url", message: "must be an absolute http or https URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, problem: "invalid_url", message: "must use http or https" };
  if (url.hostname === "") return { ok: false, problem: "invalid_url", message: "must name a host" };
  return { ok: true, url };
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Whether `host` (a name or an address literal) is refused before any lookup. */
export function isBlockedName(host: string): boolean {
  if (isIP(host) !== 0) return isPrivateAddress(host);
  return BLOCKED_NAMES.some((re) => re.test(host.replace(/\.$/, "")));
}

/**
 * What the URL parser would quietly repair, refused at create/PATCH time so that the stored URL is the one delivered
 * to: spaces or control characters around or inside it (WHATWG URL trims and strips them), a host not right after
 * `scheme://` (`http:///x` and `http:x` parse as host x), port 0, which nothing can be reached on, a backslash (read as
 * a slash) and a fragment (never sent).
 */
function unrepairedProblem(text: string, url: URL): string | undefined {
  if (/[\u0000-\u0020\u007f]/.test(text)) return "must not contain spaces or control characters";
  if (!/^https?:\/\/[^/\\?#]/i.test(text)) return "must name its host right after http:// or https://";
  if (url.port === "0") return "must name a port from 1 to 65535";
  // The WHATWG parser reads a backslash as a slash in http(s) URLs (http://a\@b/ is host a, not b) and never sends a
  // fragment: the stored URL would not be the one delivered to.
  if (text.includes("\\")) return "must not contain backslashes (URL parsers read them as slashes); write / instead";
  if (text.includes("#")) return "must not carry a #fragment: it is never sent with a request";
  return undefined;
}

/**
 * The full check of a subscriber URL at create/PATCH time. Credentials in the URL are refused: the subscription would
 * keep them in plain text and show them in every read of it, and deliveries never send them (the receiver checks
 * the signature instead). The dispatcher does not check this, so a record stored before keeps delivering.
 */
export async function checkTarget(text: string, opts: { allowPrivate: boolean; resolve: Resolve }): Promise<TargetCheck> {
  const parsed = parseTargetUrl(text);
  const unrepaired = parsed.ok ? unrepairedProblem(text, parsed.url) : undefined;
  if (unrepaired !== undefined) return { ok: false, problem: "invalid_url", message: unrepaired };
  if (parsed.ok && hasCredentials(parsed.url)) {
    return { ok: false, problem: "invalid_url", message: "must not carry credentials (user:password@): they would be stored and shown in plain text; receivers verify the signature instead" };
  }
  if (!parsed.ok || opts.allowPrivate) return parsed;
  const host = bareHost(parsed.url);
  if (isBlockedName(host)) return { ok: false, problem: "private_target", message: "resolves to a loopback, private, link-local or metadata address" };
  if (isIP(host) !== 0) return parsed;
  let addresses: string[];
  try {
    addresses = await opts.resolve(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return { ok: false, problem: "unresolvable", message: `the host ${host} does not resolve` };
  if (addresses.some(isPrivateAddress)) return { ok: false, problem: "private_target", message: "resolves to a loopback, private, link-local or metadata address" };
  return parsed;
}
