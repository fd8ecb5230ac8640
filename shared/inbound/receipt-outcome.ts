// How a receiver decision reads in the receipt log (docs/api.md#inbound-receipts): triggered, ignored or
// rejected, with the reason. A 202 with `error` (could not queue) is `rejected`: nothing was queued.
import { INBOUND_BODY_LIMIT } from "./catalog.js";
import type { ReceiptKind } from "./receipt.js";
import type { ReceiptOutcome } from "./receive.js";
import { assertNever } from "../never.js";

export const REPLAYED_SIGNATURE_REASON = "replayed signature: this signed request was already accepted once (each signature is accepted once)";

export function receiptKind(outcome: ReceiptOutcome): { outcome: ReceiptKind; reason: string | null; investigation_id: string | null } {
  const rejected = (reason: string) => ({ outcome: "rejected" as const, reason, investigation_id: null });
  switch (outcome.kind) {
    case "queued":
      return { outcome: "triggered", reason: null, investigation_id: outcome.investigation_id };
    case "ignored":
      return { outcome: "ignored", reason: outcome.reason, investigation_id: null };
    case "not_queued":
      return rejected(outcome.reason);
    case "too_large":
      return rejected(`body over ${INBOUND_BODY_LIMIT} bytes: not read`);
    case "bad_signature":
      // Only the EDR scheme signs a timestamp (docs/api.md#inbound): the window is named where it applies.
      return rejected(`bad signature: the provider signature does not verify${outcome.provider === "edr" ? " (or its timestamp is outside the 300 s window)" : ""}`);
    case "replayed_signature":
      return rejected(REPLAYED_SIGNATURE_REASON);
    case "invalid_json":
      return rejected("the body is not valid JSON");
    case "invalid":
      return rejected(outcome.message);
    case "unknown_provider":
      return rejected("unknown provider");
    case "unauthorized":
      return rejected("the URL key does not match the endpoint");
    default:
      return assertNever(outcome);
  }
}
