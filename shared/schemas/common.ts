// Schemas shared by several resources. Plain JSON Schema (TypeBox), so they also build the OpenAPI document.
import { Type, type Static } from "typebox";
import type { Severity } from "../severity.js";
import { withoutControlCharacters } from "../control-characters.js";
import { NOT_BLANK } from "../validate.js";

export const Depth = Type.Union([Type.Literal("quick"), Type.Literal("standard"), Type.Literal("deep")], {
  description: "How far the investigation goes: budgets and deadlines grow with depth.",
});
export type Depth = Static<typeof Depth>;

export const Mode = Type.Union([Type.Literal("auto"), Type.Literal("cached"), Type.Literal("live")]);
export type Mode = Static<typeof Mode>;

export const SeverityName = Type.Union(
  [Type.Literal("info"), Type.Literal("low"), Type.Literal("medium"), Type.Literal("high"), Type.Literal("critical")],
  { description: "Ordered info < low < medium < high < critical." },
);
/** The schema names exactly the shared scale's severities (shared/severity.ts): a compile-time check. */
const sameScale: [Static<typeof SeverityName>] extends [Severity] ? ([Severity] extends [Static<typeof SeverityName>] ? true : never) : never = true;
void sameScale;

export const Timestamp = Type.String({ format: "date-time", description: "RFC 3339 UTC with milliseconds." });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/**
 * A tag name, in a scope and in an agent's hello alike: 1 to 128 characters, none of them a control character or a
 * bidirectional override (shared/control-characters.ts), so every tag an agent can declare can be selected. Checked
 * through the pattern: JSON Schema applies a record key schema as patternProperties, so the length lives in the
 * pattern and other names are refused by additionalProperties: false.
 */
export const TAG_KEY_PATTERN = withoutControlCharacters("{1,128}");
const TagKey = Type.String({ pattern: TAG_KEY_PATTERN });
/** Characters of a tag value at most (a CI repository tag is its full name: shared/inbound/providers/ci.ts). */
export const MAX_TAG_VALUE_CHARS = 256;
const TagValue = Type.String({ maxLength: MAX_TAG_VALUE_CHARS });

/** Agent ids travel in NATS subject tokens (agents.<id>.plan, snapshots.<id>): 1 to 128 of A-Z a-z 0-9 _ - (docs/api.md#agents). */
export const AGENT_ID_PATTERN = "^[A-Za-z0-9_-]{1,128}$";
/**
 * An agent id where a request names one. Nothing else can be an agent (registration refuses it), and the pattern keeps
 * a scope's bytes what its length says: a control character takes 6 bytes of JSON, and 1,000 ids of 128 of them made
 * an investigation record of 770 KB that its results could never be stored with.
 */
/** A question, as every trigger takes it: 1..2000 characters, not only white space. */
export const QueryText = Type.String({ minLength: 1, maxLength: 2000, pattern: NOT_BLANK, description: "Natural-language question (not blank)." });

export const AgentId = Type.String({ minLength: 1, maxLength: 128, pattern: AGENT_ID_PATTERN });
/** Agents a scope names at most. */
export const MAX_SCOPE_AGENT_IDS = 1000;

export const Scope = Type.Object(
  {
    type: Type.Literal("selector"),
    filter: Type.Object(
      {
        tags: Type.Optional(Type.Record(TagKey, TagValue, { maxProperties: 32, additionalProperties: false })),
        agent_ids: Type.Optional(Type.Array(AgentId, { maxItems: MAX_SCOPE_AGENT_IDS })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: "Agent selector: tags AND together; agent_ids narrows to those agents." },
);
export type Scope = Static<typeof Scope>;

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  }),
});

export const NextCursor = Type.Union([Type.String(), Type.Null()]);

/** A string enumeration from a constant list (JSON Schema `enum`), typed as the list's union. */
export function literalUnion<T extends string>(values: readonly T[], description?: string) {
  return Type.Unsafe<T>({ type: "string", enum: [...values], ...(description ? { description } : {}) });
}

/** Whether `value` is one of `values` (narrows it to their union). */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}
