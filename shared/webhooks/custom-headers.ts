// A subscription's custom headers (docs/api.md#subscription-options): which names a caller may not set, and their
// values sealed at rest like the signing secret (they often carry a receiver's own credential).
import { decryptSecret, encryptSecret } from "../secrets.js";
import type { ValidationDetail } from "../validate.js";

/** Headers Inquest sets itself, or that describe the connection rather than the request. */
const RESERVED = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "user-agent",
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "proxy-authorization",
  "proxy-connection",
]);
/** Prefixes of the signature and delivery headers: a custom header can never stand in for a signature. */
const RESERVED_PREFIXES = ["x-service-", "webhook-"];

export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p));
}

/** What is wrong with a headers object that passed the schema: reserved names, a name given twice in two cases. */
export function customHeaderProblems(headers: Record<string, string>): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (isReservedHeader(name)) problems.push({ path: `/headers/${name}`, message: "is set by Inquest and cannot be replaced" });
    else if (seen.has(lower)) problems.push({ path: `/headers/${name}`, message: "is given twice (header names ignore case)" });
    seen.add(lower);
  }
  return problems;
}

/** null for no headers, so a subscription without any stores nothing. */
export function sealHeaders(masterKey: Buffer, headers: Record<string, string>): string | null {
  return Object.keys(headers).length === 0 ? null : encryptSecret(masterKey, JSON.stringify(headers));
}

export function openHeaders(masterKey: Buffer, sealed: string): Record<string, string> {
  const parsed: unknown = JSON.parse(decryptSecret(masterKey, sealed));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("sealed headers are not an object");
  // No prototype: a header named `__proto__` is a header like any other, not the object's prototype (it was dropped).
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(parsed)) if (typeof value === "string" && !isReservedHeader(name)) headers[name] = value;
  return headers;
}
