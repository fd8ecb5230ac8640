// Address classification for sockets, logins and /etc/hosts rows.

function octets(ip: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip.trim());
  if (!m) return undefined;
  const parts = m.slice(1).map((p) => Number(p));
  return parts.every((p) => p <= 255) ? parts : undefined;
}

export function isIpv4(ip: string): boolean {
  return octets(ip) !== undefined;
}

/** Strips an IPv4-mapped IPv6 prefix (::ffff:1.2.3.4). */
export function normalizeIp(ip: string): string {
  const t = ip.trim().toLowerCase();
  return t.startsWith("::ffff:") && isIpv4(t.slice(7)) ? t.slice(7) : t;
}

export function isWildcard(ip: string): boolean {
  const t = normalizeIp(ip);
  return t === "" || t === "0.0.0.0" || t === "::" || t === "*" || t === "0";
}

export function isLoopback(ip: string): boolean {
  const t = normalizeIp(ip);
  if (t === "::1" || t === "localhost") return true;
  const o = octets(t);
  return o !== undefined && o[0] === 127;
}

/** RFC 1918, link-local, CGNAT and IPv6 ULA / link-local. */
export function isPrivate(ip: string): boolean {
  const t = normalizeIp(ip);
  const o = octets(t);
  if (o === undefined) return t.startsWith("fc") || t.startsWith("fd") || t.startsWith("fe80:");
  const [a = 0, b = 0] = o;
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
}

/**
 * The site's own address: RFC 1918 or IPv6 unique-local. Not the shared (100.64/10, carrier-grade NAT, Tailscale) or
 * link-local blocks isPrivate also takes, which no organisation's network owns.
 */
export function isSiteAddress(ip: string): boolean {
  const t = normalizeIp(ip);
  const o = octets(t);
  if (o === undefined) return t.startsWith("fc") || t.startsWith("fd");
  const [a = 0, b = 0] = o;
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** A routable remote address: not empty, wildcard, loopback or private. */
export function isPublic(ip: string): boolean {
  return !isWildcard(ip) && !isLoopback(ip) && !isPrivate(ip);
}

/** A real peer address (anything but empty, wildcard or loopback). */
export function isRemotePeer(ip: string): boolean {
  return !isWildcard(ip) && !isLoopback(ip);
}
