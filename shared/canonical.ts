// Canonical JSON: object keys sorted at every level, so equal bodies hash equally whatever their key order.
import { hash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** SHA-256 of the text's UTF-8 bytes, lower-case hex (one-shot: no Hash object per call). */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}
