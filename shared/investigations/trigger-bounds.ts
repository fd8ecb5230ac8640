// How much a trigger may store of its own (docs/api.md#investigations). The investigation record a trigger writes is
// the base the run's end adds its results to, and the whole must fit one NATS message (max_payload, 1 MiB):
//
//   the trigger's question, scope, context and seeds   ≤ 160 KiB  (MAX_TRIGGER_BYTES, checked here)
//   freshness (its recommended scope: ≤ 1,000 ids)     ≤ 130 KiB  (freshness.ts)
//   findings the record carries                        ≤ 256 KiB  (DEFAULT_FINDINGS_BOUNDS.inlineBytes)
//   the engine's report                                ≤ 256 KiB  (DEFAULT_REPORT_BOUNDS.maxBytes)
//   the summary's copy of the narrative                ≤  48 KiB  (8,192 characters)
//   status, times, progress, error, bookkeeping        a few KiB
//
// about 860 KiB at most. Each field has its own bound (a 2,000-character question, 1,000 agent ids, 32 tags of 256
// characters), but JSON escapes a control character as 6 bytes and inbound bodies reach 1 MiB, so the fields are
// also held to one budget together: a trigger over it is refused as invalid (400) before anything is written.
import type { Scope } from "../schemas/common.js";
import type { Context } from "../schemas/investigation.js";
import type { ValidationDetail } from "../validate.js";

/** UTF-8 bytes of JSON a trigger's question, scope, context and seeds take at most in the record. */
export const MAX_TRIGGER_BYTES = 160 * 1024;

/** What a trigger stores of its own. */
export interface TriggerFields {
  query: string;
  scope?: Scope | null | undefined;
  context?: Context | undefined;
  seeds?: readonly string[] | undefined;
}

/** The UTF-8 bytes of JSON the fields take. */
export function triggerBytes(fields: TriggerFields): number {
  return Buffer.byteLength(JSON.stringify([fields.query, fields.scope ?? null, fields.context ?? null, fields.seeds ?? []]));
}

/** Why the fields are too large to store, as a validation detail (the whole request: path `/`); null when they fit. */
export function triggerTooLarge(fields: TriggerFields): ValidationDetail | null {
  const bytes = triggerBytes(fields);
  if (bytes <= MAX_TRIGGER_BYTES) return null;
  return {
    path: "/",
    message: `the question, scope and context take ${bytes} bytes as stored (JSON, where a control character takes 6); at most ${MAX_TRIGGER_BYTES}`,
  };
}
