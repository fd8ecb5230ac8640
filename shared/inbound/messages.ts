// The gateway -> ingestor request/reply on INBOUND_SUBJECT: one receipt in, one outcome out. Both sides
// validate what they receive against these schemas.
import { Type, type Static } from "typebox";
import { checker } from "../validate.js";

export const ReceiptBody = Type.Union([
  /** The raw body, base64. */
  Type.Object({ kind: Type.Literal("inline"), base64: Type.String() }),
  /** Too big for one NATS message: `chunks` values `<id>.0 ..` in the spill bucket, `size` bytes in all. */
  Type.Object({
    kind: Type.Literal("spill"),
    id: Type.String({ pattern: "^rcp_[0-9A-HJKMNP-TV-Z]{26}$" }),
    chunks: Type.Integer({ minimum: 1, maximum: 1024 }),
    size: Type.Integer({ minimum: 0 }),
  }),
  /** Over the receiver's limit: not read; answered 413 once the URL key checks out. */
  Type.Object({ kind: Type.Literal("too_large") }),
]);
export type ReceiptBody = Static<typeof ReceiptBody>;

export const ReceiptRequest = Type.Object({
  provider: Type.String({ maxLength: 1024 }),
  key: Type.String({ maxLength: 4096 }),
  /** Lower-cased header names. */
  headers: Type.Record(Type.String(), Type.String()),
  body: ReceiptBody,
});
export type ReceiptRequest = Static<typeof ReceiptRequest>;

const kind = <K extends string>(k: K) => Type.Literal(k);

/** What the ingestor decided; the gateway maps each kind to HTTP in one place (routes/inbound.ts). */
export const ReceiptOutcome = Type.Union([
  Type.Object({ kind: kind("unknown_provider") }),
  Type.Object({ kind: kind("unauthorized") }),
  Type.Object({ kind: kind("too_large") }),
  Type.Object({ kind: kind("bad_signature") }),
  Type.Object({ kind: kind("invalid_json") }),
  Type.Object({ kind: kind("ignored"), reason: Type.String() }),
  Type.Object({
    kind: kind("invalid"),
    message: Type.String(),
    path: Type.Optional(Type.String()),
    /** Every problem found (the shared validator's details), when there is more than one field to name. */
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { maxItems: 50 })),
  }),
  Type.Object({ kind: kind("queued"), investigation_id: Type.String() }),
  /** A recognised event whose investigation could not be queued (rate limit, idempotency conflict, NATS). */
  Type.Object({ kind: kind("not_queued"), reason: Type.String() }),
  /** The ingestor could not reach what it needs (NATS), or no ingestor answered. */
  Type.Object({ kind: kind("unavailable"), message: Type.String() }),
  Type.Object({ kind: kind("internal") }),
]);
export type ReceiptOutcome = Static<typeof ReceiptOutcome>;

export const receiptRequestChecker = checker(ReceiptRequest);
export const receiptOutcomeChecker = checker(ReceiptOutcome);
