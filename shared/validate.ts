// Validation at the edge: one compiled checker per TypeBox schema, errors as JSON-pointer details.
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";

export interface ValidationDetail {
  path: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; details: ValidationDetail[] };

export interface Checker<S extends TSchema> {
  schema: S;
  check(value: unknown): Checked<Static<S>>;
}

export function checker<S extends TSchema>(schema: S): Checker<S> {
  const compiled = Compile(schema);
  return {
    schema,
    check(value) {
      if (compiled.Check(value)) return { ok: true, value: value as Static<S> };
      const details: ValidationDetail[] = [];
      const seen = new Set<string>();
      for (const e of compiled.Errors(value)) {
        if (e.keyword === "boolean") continue; // duplicate of the additionalProperties error
        const path = describePath(e.instancePath, e.params as Record<string, unknown>);
        const message = e.keyword === "additionalProperties" ? describeExtra(schema, e.schemaPath) : describeError(e.keyword, e.message, e.params as Record<string, unknown>);
        const key = `${path}|${message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        details.push({ path, message });
        if (details.length >= 20) break;
      }
      return { ok: false, details };
    },
  };
}

function describePath(instancePath: string, params: Record<string, unknown>): string {
  const extra = params.additionalProperties;
  if (Array.isArray(extra) && extra.length > 0) return `${instancePath}/${String(extra[0])}`;
  const missing = params.requiredProperties;
  if (Array.isArray(missing) && missing.length > 0) return `${instancePath}/${String(missing[0])}`;
  return instancePath === "" ? "/" : instancePath;
}

/** A string schema's `pattern` for text that must hold more than white space (a question): its error says so. */
export const NOT_BLANK = "\\S";

/**
 * A field the object does not take: unknown, or, for a map whose names follow a pattern (scope tags, custom headers),
 * a name that breaks the pattern, said as such.
 */
function describeExtra(root: TSchema, schemaPath: string): string {
  let at: unknown = root;
  for (const part of schemaPath.replace(/^#\/?/, "").split("/").filter((p) => p !== "")) {
    at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  }
  const patterns = at !== null && typeof at === "object" ? (at as { patternProperties?: Record<string, unknown> }).patternProperties : undefined;
  const pattern = patterns ? Object.keys(patterns)[0] : undefined;
  return pattern === undefined ? "unknown field" : `is not a valid name here: names must match ${pattern}`;
}

function describeError(keyword: string, message: string, params: Record<string, unknown>): string {
  if (keyword === "pattern" && params.pattern === NOT_BLANK) return "must not be blank";
  if (keyword === "required") return "is required";
  if (keyword === "enum" && Array.isArray(params.allowedValues)) return `must be one of ${params.allowedValues.join(", ")}`;
  return message;
}
