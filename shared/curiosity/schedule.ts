// Schedule math of the curiosity queue, as pure functions of a record and `now` (docs/api.md#curiosity):
// creation, PATCH, which step a ticker owes an item, claiming a run, and re-queuing it when the run ends.
import { iso } from "../clock.js";
import { parseDuration } from "../durations.js";
import type { TriggerRequest } from "../investigations/trigger.js";
import type { CuriosityRecord, InFlightRun } from "./record.js";
import type { CuriosityCreate, CuriosityPatch } from "./schemas.js";

/** Far enough for any standing question, near enough that next_run_at stays a valid date. */
export const MAX_INTERVAL_MS = 5_200 * 604_800_000;

export type IntervalCheck = { ok: true; ms: number } | { ok: false; message: string };

/** The interval rule: `^[1-9][0-9]*(s|m|h|d|w)$`, at least `minMs`, at most about a century. */
export function checkInterval(text: string, minMs: number): IntervalCheck {
  if (!/^[1-9][0-9]*(s|m|h|d|w)$/.test(text)) return { ok: false, message: "must be a number and a unit s, m, h, d or w, e.g. 30m, 6h, 1d" };
  // A number past 2^53 (e.g. 99999999999999999999w) is well formed, only far too long: said as such.
  const ms = parseDuration(text) ?? Number.POSITIVE_INFINITY;
  if (ms < minMs) return { ok: false, message: `must be at least ${formatMs(minMs)}` };
  if (ms > MAX_INTERVAL_MS) return { ok: false, message: "must be at most 5200w" };
  return { ok: true, ms };
}

export function intervalMs(r: Pick<CuriosityRecord, "interval">): number {
  const ms = parseDuration(r.interval);
  if (ms === null) throw new Error(`stored interval ${JSON.stringify(r.interval)} is not a duration`);
  return ms;
}

/** The earliest and latest instants whose UTC form still has a four-digit year (the contract's timestamp form). */
const EARLIEST_MS = Date.parse("0000-01-01T00:00:00.000Z");
const LATEST_MS = Date.parse("9999-12-31T23:59:59.999Z");

export type FirstRunAtCheck = { ok: true; ms: number } | { ok: false; message: string };

/**
 * What the schema's `date-time` format lets through but the schedule cannot use: a leap second
 * ("2026-06-30T23:59:60Z" is RFC 3339, yet `Date.parse` gives NaN) or an offset that pushes the instant out of
 * years 0000..9999. Both are a 400, not a 500 from `normalizeTimestamp`.
 */
export function checkFirstRunAt(text: string): FirstRunAtCheck {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return { ok: false, message: "must be an RFC 3339 time this service can read (a leap second, :60, is not accepted)" };
  if (ms < EARLIEST_MS || ms > LATEST_MS) return { ok: false, message: "must fall within the years 0000 to 9999 in UTC" };
  return { ok: true, ms };
}

/** Any RFC 3339 time (offsets allowed) as the contract's UTC-with-milliseconds form. */
export function normalizeTimestamp(text: string): string {
  return iso(Date.parse(text));
}

export function newRecord(id: string, body: CuriosityCreate, ownerKeyId: string | null, now: number): CuriosityRecord {
  const firstRunAt = body.first_run_at === undefined ? iso(now) : normalizeTimestamp(body.first_run_at);
  return {
    id,
    query: body.query,
    interval: body.interval,
    scope: body.scope ?? null,
    depth: body.depth ?? "standard",
    first_run_at: firstRunAt,
    active: body.active ?? true,
    next_run_at: firstRunAt,
    created_at: iso(now),
    updated_at: iso(now),
    last_run_at: null,
    last_investigation_id: null,
    run_count: 0,
    internal: { owner_key_id: ownerKeyId, in_flight: null, anchor: "first_run_at", last_completed_investigation_id: null },
  };
}

/**
 * PATCH: included fields replace the stored ones. `first_run_at` re-anchors the schedule (next_run_at = it,
 * even while a run is in flight); `interval` re-queues from the anchor (first_run_at until a run ends after it,
 * then the last run's end; a run in flight is re-queued with the new interval when it ends); resuming a paused
 * item whose time has passed makes it due now (one run, not a backlog).
 */
export function applyPatch(r: CuriosityRecord, patch: CuriosityPatch, now: number): CuriosityRecord {
  const next: CuriosityRecord = { ...r, internal: { ...r.internal }, updated_at: iso(now) };
  if (patch.query !== undefined) next.query = patch.query;
  if (patch.interval !== undefined) next.interval = patch.interval;
  if (patch.scope !== undefined) next.scope = patch.scope;
  if (patch.depth !== undefined) next.depth = patch.depth;
  if (patch.active !== undefined) next.active = patch.active;
  const inFlight = r.internal.in_flight;
  if (patch.first_run_at !== undefined) {
    next.first_run_at = normalizeTimestamp(patch.first_run_at);
    next.internal.anchor = "first_run_at";
    if (inFlight) next.internal.in_flight = { ...inFlight, keep_next_run_at: true };
  }
  if (patch.first_run_at !== undefined || (patch.interval !== undefined && !inFlight)) next.next_run_at = scheduledAt(next);
  if (patch.active === true && !r.active && !inFlight && Date.parse(next.next_run_at) < now) next.next_run_at = iso(now);
  return next;
}

/** When the schedule says the next run is due: first_run_at, or the last run's end plus the interval. */
export function scheduledAt(r: CuriosityRecord): string {
  if (r.internal.anchor === "first_run_at" || r.last_run_at === null) return r.first_run_at;
  return iso(Date.parse(r.last_run_at) + intervalMs(r));
}

/** What a ticker owes an item at `now`. */
export type ItemAction =
  | { kind: "none" }
  | { kind: "claim" }
  | { kind: "trigger"; run: InFlightRun }
  | { kind: "watch"; run: number; investigationId: string };

/** What deciding an item's next step reads of it: the ticker keeps only this of each item in memory. */
export interface ScheduleView {
  id: string;
  active: boolean;
  next_run_at: string;
  internal: { in_flight: InFlightRun | null };
}

/** The scheduling part of a record (a fresh object: the full record can be let go). */
export function scheduleView(r: CuriosityRecord): ScheduleView {
  return { id: r.id, active: r.active, next_run_at: r.next_run_at, internal: { in_flight: r.internal.in_flight } };
}

export function nextAction(r: ScheduleView, now: number): ItemAction {
  const f = r.internal.in_flight;
  // A paused item's claimed run waits untriggered until it is resumed. It is held, not released: a ticker that
  // died after triggering it leaves an investigation under its trigger id, and a released run's number would be
  // claimed again, with the request as edited since (a conflict on that trigger id, retried forever).
  if (f) {
    if (f.investigation_id !== null) return { kind: "watch", run: f.run, investigationId: f.investigation_id };
    return r.active ? { kind: "trigger", run: f } : { kind: "none" };
  }
  return isDue(r, now) ? { kind: "claim" } : { kind: "none" };
}

export function isDue(r: ScheduleView, now: number): boolean {
  return r.active && r.internal.in_flight === null && Date.parse(r.next_run_at) <= now;
}

/** Milliseconds until the item is due (0 when due now); null when nothing is scheduled (paused or running). */
export function msUntilDue(r: ScheduleView, now: number): number | null {
  if (!r.active || r.internal.in_flight) return null;
  return Math.max(0, Date.parse(r.next_run_at) - now);
}

/** The investigation request of a run: exactly what POST /v1/investigations would receive. */
export function runRequest(r: Pick<CuriosityRecord, "query" | "depth" | "scope">): TriggerRequest {
  return r.scope ? { query: r.query, depth: r.depth, scope: r.scope } : { query: r.query, depth: r.depth };
}

/**
 * Claims the next run of a due item (null: not due, paused, or a run is already in flight); `investigationId` is
 * the id its investigation will have.
 */
export function claimRun(r: CuriosityRecord, now: number, investigationId: string): CuriosityRecord | null {
  if (!isDue(r, now)) return null;
  const run: InFlightRun = {
    run: r.run_count + 1,
    claimed_at: iso(now),
    request: runRequest(r),
    investigation_id: null,
    reserved_investigation_id: investigationId,
    keep_next_run_at: false,
  };
  return { ...r, internal: { ...r.internal, in_flight: run } };
}

/** Records the investigation of the claimed run (null: nothing to change). */
export function attachInvestigation(r: CuriosityRecord, run: number, investigationId: string): CuriosityRecord | null {
  const f = r.internal.in_flight;
  if (!f || f.run !== run || f.investigation_id === investigationId) return null;
  return { ...r, internal: { ...r.internal, in_flight: { ...f, investigation_id: investigationId } } };
}

export interface RunEnd {
  investigationId: string;
  /** When the investigation reached its terminal state. */
  endedAt: number;
  /** Whether it completed (failed and cancelled runs are not what the next run compares with). */
  completed: boolean;
}

/** The run ended: re-queue at end + interval (unless a PATCH pinned next_run_at) and count it. */
export function finishRun(r: CuriosityRecord, run: number, end: RunEnd, now: number): CuriosityRecord | null {
  const f = r.internal.in_flight;
  if (!f || f.run !== run) return null;
  return {
    ...r,
    next_run_at: f.keep_next_run_at ? r.next_run_at : iso(end.endedAt + intervalMs(r)),
    updated_at: iso(now),
    last_run_at: iso(end.endedAt),
    last_investigation_id: end.investigationId,
    run_count: run,
    internal: {
      ...r.internal,
      in_flight: null,
      anchor: f.keep_next_run_at ? "first_run_at" : "last_run",
      last_completed_investigation_id: end.completed ? end.investigationId : r.internal.last_completed_investigation_id,
    },
  };
}

function formatMs(ms: number): string {
  for (const [unit, size] of [["w", 604_800_000], ["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
