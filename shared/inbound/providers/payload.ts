// Reading untrusted JSON payloads without casts, and keeping generated text within the query limit.

export const MAX_QUERY_CHARS = 2000;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `obj.a.b.c` when every step is an object; else undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** A non-blank string (trimmed), else undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A non-blank string, or a finite number rendered as text, else undefined. */
export function textOrNumber(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return text(value);
}

/** Collapses whitespace (so multi-line payload text stays one sentence) and cuts to `max` characters. */
export function clip(value: string, max: number): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** Joins sentences and guarantees the result fits the query limit while keeping the closing question. */
export function composeQuery(sentences: string[], question: string): string {
  const body = sentences.filter((s) => s !== "").join(" ");
  const room = MAX_QUERY_CHARS - question.length - 1;
  return `${clip(body, room)} ${question}`.trim();
}
