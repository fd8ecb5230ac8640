// The inbound receipts read model: per endpoint, newest first (receipt ids are time-ordered), optionally by
// outcome (docs/api.md#inbound-receipts). The bucket forgets a receipt after 7 days without telling its
// watchers: the index follows suit.
import { RECEIPT_RETENTION_MS } from "../../shared/inbound/catalog.js";
import type { ReceiptKind, ReceiptRecord } from "../../shared/inbound/receipt.js";
import type { IndexKey, ReadModelSpec } from "../../shared/readmodel.js";

const PRUNE_EVERY_MS = 3_600_000;

export function isRetainedReceipt(r: ReceiptRecord, nowMs: number): boolean {
  return Date.parse(r.received_at) + RECEIPT_RETENTION_MS > nowMs;
}

export function receiptPrefix(endpointId: string, outcome: ReceiptKind | null): IndexKey {
  return outcome === null ? ["receipts", endpointId] : ["receipts-by-outcome", endpointId, outcome];
}

export const receiptIndex: ReadModelSpec<ReceiptRecord> = {
  name: "inbound-receipts.v1",
  expiry: { everyMs: PRUNE_EVERY_MS, expired: (r, nowMs) => !isRetainedReceipt(r, nowMs) },
  indexKeys: (r) => [
    [...receiptPrefix(r.endpoint_id, null), r.receipt_id],
    [...receiptPrefix(r.endpoint_id, r.outcome), r.receipt_id],
  ],
};
