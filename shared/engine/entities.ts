// Entity extraction from the question: IPv4, sha256, CVE/GHSA ids, `user <name>`, `port <n>`, paths, key=value tags.
import { compareText } from "./order.js";
import { isIpv4 } from "./net.js";
import type { QueryEntities } from "./types.js";

const STOPWORDS: ReadonlySet<string> = new Set([
  "is", "are", "was", "were", "the", "a", "an", "accounts", "account", "with", "that", "has", "have", "had", "logged", "on", "in",
  "of", "who", "which", "running", "and", "or", "to", "from", "for", "as", "be", "been", "any", "all", "names", "name", "id", "ids",
  "can", "could", "did", "does", "do", "not", "no", "it", "its", "this", "these", "those", "login", "logins", "session", "sessions",
]);

function uniqueSorted<T extends string | number>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : compareText(String(a), String(b))));
}

export function emptyEntities(): QueryEntities {
  return { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], tags: {} };
}

export function extractEntities(query: string): QueryEntities {
  const text = query.normalize("NFKC");
  const ips = [...text.matchAll(/(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.]*\d)/g)].map((m) => m[1] ?? "").filter(isIpv4);
  const sha256 = [...text.matchAll(/\b([a-fA-F0-9]{64})\b/g)].map((m) => (m[1] ?? "").toLowerCase());
  const cves = [...text.matchAll(/\b(CVE-\d{4}-\d{4,7})\b/gi)].map((m) => (m[1] ?? "").toUpperCase());
  const ghsas = [...text.matchAll(/\b(GHSA(?:-[23456789cfghjmpqrvwx]{4}){3})\b/gi)].map((m) => `GHSA${(m[1] ?? "").slice(4).toLowerCase()}`);
  const users = [...text.matchAll(/\b(?:user(?:name)?|account)\s+["'`]?([a-z_][a-z0-9_.-]{0,31})\b/gi)]
    .map((m) => (m[1] ?? "").replace(/\.+$/, ""))
    .filter((u) => u !== "" && !STOPWORDS.has(u.toLowerCase()));
  const ports: number[] = [];
  for (const m of text.matchAll(/\bports?\s+((?:\d{1,5})(?:\s*(?:,|\/|and|or)\s*\d{1,5})*)/gi)) {
    for (const n of (m[1] ?? "").match(/\d{1,5}/g) ?? []) ports.push(Number(n));
  }
  for (const m of text.matchAll(/(?<![\w.])(?:\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b/g)) ports.push(Number(m[1]));
  const paths = [...text.matchAll(/(?:^|[\s"'`(=])(\/(?:[A-Za-z0-9._@+-]+\/?)+)/g)]
    .map((m) => (m[1] ?? "").replace(/[.,;:!?)]+$/, ""))
    .map((p) => (p.length > 1 ? p.replace(/\/+$/, "") : p))
    .filter((p) => p.length > 1);
  const tags: Record<string, string> = {};
  for (const m of text.matchAll(/(?<![\w/.-])([A-Za-z][A-Za-z0-9_.-]*)=([A-Za-z0-9_.:\/@-]+)/g)) {
    const key = m[1] ?? "";
    const value = (m[2] ?? "").replace(/[.,;:!?]+$/, "");
    if (key !== "" && value !== "" && tags[key] === undefined) tags[key] = value;
  }
  const sortedTags: Record<string, string> = {};
  for (const k of Object.keys(tags).sort()) sortedTags[k] = tags[k] ?? "";
  return {
    ips: uniqueSorted(ips),
    sha256: uniqueSorted(sha256),
    advisories: uniqueSorted([...cves, ...ghsas]),
    users: uniqueSorted(users),
    ports: uniqueSorted(ports.filter((p) => Number.isInteger(p) && p > 0 && p <= 65535)),
    paths: uniqueSorted(paths),
    tags: sortedTags,
  };
}

/** Entities that can seed the pathfinder (tags narrow scope; advisories route to a detection). */
export function hasSeedEntities(e: QueryEntities): boolean {
  return e.ips.length + e.sha256.length + e.users.length + e.ports.length + e.paths.length > 0;
}

/** Entities an exact indicator match can look for. */
export function hasIndicatorEntities(e: QueryEntities): boolean {
  return e.ips.length + e.sha256.length + e.paths.length > 0;
}
