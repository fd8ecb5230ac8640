// Bulk recovery of a subscription (docs/api.md#recovery): the job's record, its API shapes, and the pure rules of
// which events in the window are sent again. The dispatcher runs the job (services/dispatcher/recovery-consumer.ts).
import { Type, type Static } from "typebox";
import { iso } from "../clock.js";
import { derivedId } from "../ids.js";
import { literalUnion, NullableTimestamp, Timestamp } from "../schemas/common.js";
import type { WireEnvelope } from "../schemas/events.js";
import type { DeliveryRecord } from "./delivery-record.js";
import { passesFilters } from "./fanout.js";
import type { SubscriptionRecord } from "./subscription.js";

/** How far back a recovery may reach: the EVENTS stream keeps 30 days. */
export const RECOVERY_REACH_MS = 30 * 86_400_000;

export const RECOVERY_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

export const RecoverRequest = Type.Object(
  {
    since: Timestamp,
    until: Type.Optional(Timestamp),
  },
  { additionalProperties: false, description: "The window of event times to recover: since <= until <= now, since at most 30 days back; until defaults to now." },
);
export type RecoverRequest = Static<typeof RecoverRequest>;

export const RecoveryView = Type.Object({
  recovery_id: Type.String(),
  subscription_id: Type.String(),
  since: Timestamp,
  until: Timestamp,
  status: literalUnion(RECOVERY_STATUSES, "queued, running, then completed (or failed, with error)."),
  run: Type.Integer({ minimum: 1, description: "1 for the first run of this window; a POST after a finished run starts the next." }),
  dead_letters_found: Type.Integer({ minimum: 0, description: "Dead-lettered deliveries of the subscription in the window when the run was asked for." }),
  events_scanned: Type.Integer({ minimum: 0, description: "Events of the window read so far." }),
  events_total: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Events the scan will read at most (null until it starts)." }),
  resent_dead_letters: Type.Integer({ minimum: 0, description: "Dead-lettered deliveries sent again, as new deliveries with replay_of." }),
  resent_missed: Type.Integer({ minimum: 0, description: "Events the subscription never got (paused or disabled then) sent now." }),
  events_left_to_fanout: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      "Events of the window (at most, every type) the fan-out had not settled when the run started: not scanned, the fan-out delivers them (a later run recovers any it does not); null until the run ends.",
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: NullableTimestamp,
});
export type RecoveryView = Static<typeof RecoveryView>;

export interface RecoveryRecord extends RecoveryView {
  /** Whether `until` was given (a repeated POST without it joins the running job). */
  until_given: boolean;
  internal: {
    /** EVENTS stream sequence of the last event handled and saved with the counters (0: none yet). */
    cursor_seq: number;
    /**
     * The last event the fan-out had settled when the run started (its durable's ack floor, at most the stream's last
     * sequence): the scan ends there, however busy the stream is. An event after it may have no delivery yet only
     * because the fan-out has not got to it (its backlog, a first attempt in flight), so it is not the run's to send.
     */
    end_seq: number | null;
    /** The stream's last sequence when the run started (absent on records from before it was kept: `end_seq`). */
    last_seq?: number | null;
    /** First sequence of the window (null until the run starts). */
    start_seq: number | null;
    /** Stream sequence of the job message working this run (null until one claims it): a second copy stays out. */
    job_seq?: number | null;
  };
}

export const RecoveryJob = Type.Object({ recovery_id: Type.String(), run: Type.Integer({ minimum: 1 }) });
export type RecoveryJob = Static<typeof RecoveryJob>;

/** The one id of (subscription, since, until as given): a repeated POST finds the same job. */
export function recoveryIdFor(subscriptionId: string, since: string, until: string | undefined, key: Buffer, nowMs: number): string {
  return derivedId("rcv", nowMs, `${subscriptionId}|${Date.parse(since)}|${until === undefined ? "now" : Date.parse(until)}`, key);
}

export type WindowCheck = { ok: true; sinceMs: number; untilMs: number } | { ok: false; path: string; message: string };

export function checkWindow(req: RecoverRequest, nowMs: number): WindowCheck {
  const sinceMs = Date.parse(req.since);
  const untilMs = req.until === undefined ? nowMs : Date.parse(req.until);
  // RFC 3339 allows a leap second (23:59:60), which Date.parse cannot read.
  if (!Number.isFinite(sinceMs)) return { ok: false, path: "/since", message: "is not a date this server can read (a leap second?)" };
  if (!Number.isFinite(untilMs)) return { ok: false, path: "/until", message: "is not a date this server can read (a leap second?)" };
  if (sinceMs < nowMs - RECOVERY_REACH_MS) return { ok: false, path: "/since", message: "is more than 30 days back (events are kept 30 days)" };
  if (sinceMs > nowMs) return { ok: false, path: "/since", message: "is in the future" };
  if (untilMs < sinceMs) return { ok: false, path: "/until", message: "is before since" };
  return { ok: true, sinceMs, untilMs: Math.min(untilMs, nowMs) };
}

export function newRecovery(input: { id: string; subscriptionId: string; req: RecoverRequest; untilMs: number; deadLetters: number; nowMs: number }): RecoveryRecord {
  const now = iso(input.nowMs);
  return {
    recovery_id: input.id,
    subscription_id: input.subscriptionId,
    since: iso(Date.parse(input.req.since)),
    until: iso(input.untilMs),
    until_given: input.req.until !== undefined,
    status: "queued",
    run: 1,
    dead_letters_found: input.deadLetters,
    events_scanned: 0,
    events_total: null,
    resent_dead_letters: 0,
    resent_missed: 0,
    events_left_to_fanout: null,
    error: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    internal: { cursor_seq: 0, end_seq: null, last_seq: null, start_seq: null },
  };
}

export function isFinished(r: Pick<RecoveryRecord, "status">): boolean {
  return r.status === "completed" || r.status === "failed";
}

/** The next run of a finished recovery (the window's open end moves to now); null while one is queued or running. */
export function nextRun(r: RecoveryRecord, untilMs: number, deadLetters: number, nowMs: number): RecoveryRecord | null {
  if (!isFinished(r)) return null;
  return {
    ...r,
    until: r.until_given ? r.until : iso(untilMs),
    status: "queued",
    run: r.run + 1,
    dead_letters_found: deadLetters,
    events_scanned: 0,
    events_total: null,
    resent_dead_letters: 0,
    resent_missed: 0,
    events_left_to_fanout: null,
    error: null,
    updated_at: iso(nowMs),
    completed_at: null,
    internal: { cursor_seq: 0, end_seq: null, last_seq: null, start_seq: null },
  };
}

export function recoveryView(r: RecoveryRecord): RecoveryView {
  const { internal: _internal, until_given: _given, ...view } = r;
  // Records written before the field was kept have none.
  return { ...view, events_left_to_fanout: view.events_left_to_fanout ?? null };
}

/**
 * Whether the subscription should have had the event, stored at `storedAtMs`, whatever its state then (paused and
 * disabled subscriptions are recovered too): it lists the type, its filters pass, and it already wanted what it wants
 * now when the event was stored (created, and `events` and `filters` unchanged since: `wants_since`).
 */
export function wasOwed(sub: SubscriptionRecord, event: WireEnvelope, storedAtMs: number): boolean {
  return sub.events.includes(event.type) && Date.parse(sub.wants_since ?? sub.created_at) <= storedAtMs && passesFilters(sub, event);
}

/**
 * What a recovery does with an owed event, given the delivery the fan-out made of it (null: none, the subscription
 * was paused or disabled then; the run reads only events the fan-out has settled, so none means it made none): a
 * dead letter or a missed event is sent again, anything else is left alone.
 */
export function recoveryAction(original: DeliveryRecord | null): "dead_letter" | "missed" | "skip" {
  if (original === null) return "missed";
  return original.status === "failed_permanent" ? "dead_letter" : "skip";
}

/**
 * The delivery id run `run` of a recovery gives an event it sends again: one per (recovery, run, event), however
 * often the run is retried, and computable by a later run (which leaves alone what an earlier one re-sent).
 */
export function resendIdFor(recoveryId: string, run: number, event: Pick<WireEnvelope, "event_id" | "created_at">, key: Buffer): string {
  const eventMs = Date.parse(event.created_at);
  return derivedId("dlv", Number.isFinite(eventMs) && eventMs >= 0 ? eventMs : 0, `${event.event_id}:${recoveryId}:${run}`, key);
}
