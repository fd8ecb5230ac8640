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
     * Stream sequence of the job that owns this delivery, set with its first recorded attempt, or when a resumed
     * subscription's copy of a held job takes it over (services/dispatcher/resume.ts). A second job for the same
     * delivery (a republish after a crash, outside the duplicate window; a held job after such a takeover) sees
     * another owner and is dropped, so attempts are never counted twice.
     */
    job_seq: number | null;
    /** What each attempt's answer said, index for index with `attempts` (absent on records written before it). */
    answers?: AttemptAnswer[];
    /**
     * Events the recorded attempt still owes announcing (services/dispatcher/announcements.ts), written with the
     * attempt and cleared once published: a publish that fails, or a crash before it, leaves them here for the
     * delivery's job to publish, and the attempt is never made again for them. Absent: none owed.
     */
    announce_pending?: Announcement[];
    /**
     * Ids of the deliveries made again of this one, by hand (POST .../replay) or by a bulk recovery, the newest
     * last, at most `MAX_REPLAYS_NOTED`; each noted before it is enqueued (a recovery's by compare-and-set: its
     * claim). A bulk recovery leaves a dead letter alone while one of them is delivered or pending, and enqueues one
     * noted without a record under its id (docs/api.md#recovery). Absent: never sent again (or before this was kept).
     */
    replays?: string[];
  };
}

/** What a delivery's attempt can announce: its endpoint's 410 turning the subscription off, its dead letter. */
export type Announcement = "subscription.disabled" | "delivery.dead_lettered";
