// An inbound receipt (docs/api.md#inbound-receipts): what one POST to an endpoint's receiver URL was answered,
// and why. The record holds no body; the sealed body lives beside it (shared/inbound/receipt-store.ts).
import { Type, type Static } from "typebox";
import { literalUnion, NextCursor, Timestamp } from "../schemas/common.js";
import { InboundProviderSchema } from "./endpoint.js";
import type { InboundProvider } from "./catalog.js";

export const RECEIPT_OUTCOMES = ["triggered", "ignored", "rejected"] as const;
export type ReceiptKind = (typeof RECEIPT_OUTCOMES)[number];

export function isReceiptKind(value: string): value is ReceiptKind {
  return (RECEIPT_OUTCOMES as readonly string[]).includes(value);
}

export interface ReceiptBody {
  /** The body's length as received. */
  bytes: number;
  /** False when only the first part was kept (see `kept_bytes`); such a receipt cannot be replayed. */
  truncated: boolean;
  kept_bytes: number;
}

export interface ReceiptRecord {
  receipt_id: string;
  endpoint_id: string;
  provider: InboundProvider;
  received_at: string;
  outcome: ReceiptKind;
  /** Why it was ignored or rejected (signature failures and replayed signatures included); null when triggered. */
  reason: string | null;
  /** The HTTP status the receiver answered. */
  status: number;
  investigation_id: string | null;
  /** The receipt this one re-processed (POST .../replay), else null. */
  replay_of: string | null;
  /** null when the body was over the receiver's limit and not read. */
  body: ReceiptBody | null;
}

export const ReceiptView = Type.Object({
  receipt_id: Type.String(),
  endpoint_id: Type.String(),
  provider: InboundProviderSchema,
  received_at: Timestamp,
  outcome: literalUnion(RECEIPT_OUTCOMES, "triggered: an investigation was queued; ignored: 202 without one; rejected: a 4xx, or 202 with `error`."),
  reason: Type.Union([Type.String(), Type.Null()]),
  status: Type.Integer({ description: "The HTTP status the receiver answered." }),
  investigation_id: Type.Union([Type.String(), Type.Null()]),
  replay_of: Type.Union([Type.String(), Type.Null()], { description: "The receipt this one replayed." }),
  body: Type.Union([
    Type.Object({ bytes: Type.Integer(), truncated: Type.Boolean(), kept_bytes: Type.Integer() }),
    Type.Null(),
  ]),
});
export type ReceiptView = Static<typeof ReceiptView>;

export const ReceiptList = Type.Object({ receipts: Type.Array(ReceiptView), next_cursor: NextCursor });

export function receiptView(r: ReceiptRecord): ReceiptView {
  return { ...r };
}

export function isReceiptRecord(value: unknown): value is ReceiptRecord {
  return typeof value === "object" && value !== null && typeof (value as ReceiptRecord).receipt_id === "string" && typeof (value as ReceiptRecord).endpoint_id === "string";
}
