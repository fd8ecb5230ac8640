// The stored delivery record (docs/api.md#deliveries). In a file of its own so the catalog (which types the deliveries
// bucket) and delivery.ts (which uses the catalog's subjects) do not import each other.
import type { WireEnvelope } from "../schemas/events.js";
import type { AttemptAnswer, DeliveryView } from "./schemas.js";

export interface DeliveryRecord extends DeliveryView {
  /** The exact envelope this delivery sends (stable across replays). */
  envelope: WireEnvelope;
  /** Not shown. */
  internal: {
    /**
     * Stream sequence of the job that owns this delivery, set with its first recorded attempt. A second job
     * for the same delivery (a republish after a crash, outside the duplicate window) sees another owner and
     * is dropped, so attempts are never counted twice.
     */
    job_seq: number | null;
    /** What each attempt's answer said, index for index with `attempts` (absent on records written before it). */
    answers?: AttemptAnswer[];
  };
}
