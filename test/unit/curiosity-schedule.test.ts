// The curiosity queue's schedule math (docs/api.md#curiosity) as pure functions of a record and a fake `now`.
import { test } from "tap";
import { runTriggerId, toItem, type CuriosityRecord } from "../../shared/curiosity/record.js";
import { applyPatch, attachInvestigation, checkFirstRunAt, checkInterval, claimRun, finishRun, isDue, msUntilDue, newRecord, nextAction, runRequest } from "../../shared/curiosity/schedule.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const at = (ms: number) => new Date(ms).toISOString();

function item(overrides: Partial<Parameters<typeof newRecord>[1]> = {}, now = T0): CuriosityRecord {
  return newRecord("cur_01ARZ3NDEKTSV4RRFFQ69G5FAV", { query: "any cryptominers?", interval: "1h", ...overrides }, "key_1", now);
}

/** Claims, attaches and finishes one run ending at `end`; returns the record afterwards. */
function runOnce(r: CuriosityRecord, now: number, end: number, completed = true): CuriosityRecord {
  const claimed = claimRun(r, now, "inv_next");
  if (!claimed) throw new Error("not due");
  const run = claimed.internal.in_flight?.run ?? 0;
  const attached = attachInvestigation(claimed, run, `inv_${run}`) ?? claimed;
  const done = finishRun(attached, run, { investigationId: `inv_${run}`, endedAt: end, completed }, end);
  if (!done) throw new Error("finish refused");
  return done;
}

test("interval: the contract pattern, the configured minimum, a sane maximum", async (t) => {
  t.same(checkInterval("90s", 1000), { ok: true, ms: 90 * S });
  t.same(checkInterval("2w", M), { ok: true, ms: 14 * 24 * H });
  for (const bad of ["", "0m", "01m", "1", "m", "1ms", "1.5h", "1 h", "1H", "-1h", "1y", " 1h"]) t.equal(checkInterval(bad, 1000).ok, false, JSON.stringify(bad));
  const short = checkInterval("30s", M);
  t.equal(short.ok, false);
  if (!short.ok) t.match(short.message, "at least 1m");
  t.equal(checkInterval("59s", M).ok, false, "one second under the minimum");
  t.equal(checkInterval("60s", M).ok, true, "exactly the minimum");
  t.equal(checkInterval("99999999999999999999w", 1000).ok, false, "too large to be a date");
});

test("first_run_at: what the date-time format accepts but Date.parse cannot read is refused, not a crash", async (t) => {
  t.same(checkFirstRunAt("2026-11-23T12:00:00+02:00"), { ok: true, ms: Date.parse("2026-11-23T10:00:00.000Z") });
  t.equal(checkFirstRunAt("2026-11-23t10:00:00z").ok, true, "lower-case t and z");
  for (const bad of ["2026-06-30T23:59:60Z", "2016-12-31T23:59:60.000Z", "tomorrow", "0000-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01"]) {
    const checked = checkFirstRunAt(bad);
    t.equal(checked.ok, false, bad);
    if (!checked.ok) t.ok(checked.message.length > 0);
  }
  t.equal(checkFirstRunAt("9999-12-31T23:59:59.999Z").ok, true, "the latest four-digit-year instant");
});

test("create: defaults, first run now or at first_run_at (normalised to UTC milliseconds)", async (t) => {
  const r = item();
  t.equal(r.next_run_at, at(T0), "first run immediately by default");
  t.equal(r.first_run_at, at(T0));
  t.equal(r.depth, "standard");
  t.equal(r.active, true);
  t.equal(r.scope, null);
  t.equal(r.run_count, 0);
  t.same([r.last_run_at, r.last_investigation_id], [null, null]);
  const later = item({ first_run_at: "2026-11-23T12:00:00+02:00" });
  t.equal(later.next_run_at, "2026-11-23T10:00:00.000Z");
  t.same(Object.keys(toItem(r)).sort(), [
    "active", "created_at", "depth", "first_run_at", "id", "interval", "last_investigation_id", "last_run_at", "next_run_at", "query", "run_count", "scope", "updated_at",
  ], "exactly the contract's fields; bookkeeping stays inside");
});

test("due: active, nothing in flight, next_run_at reached (to the millisecond)", async (t) => {
  const r = item({ first_run_at: at(T0 + 5 * S) });
  t.equal(isDue(r, T0 + 5 * S - 1), false);
  t.equal(msUntilDue(r, T0), 5 * S);
  t.equal(isDue(r, T0 + 5 * S), true);
  t.same(nextAction(r, T0 + 5 * S), { kind: "claim" });
  t.equal(claimRun(r, T0, "inv_next"), null, "not claimable early");
  const paused = { ...r, active: false };
  t.equal(isDue(paused, T0 + 10 * H), false, "a paused item is never due");
  t.equal(msUntilDue(paused, T0), null);
  t.equal(claimRun(paused, T0 + 10 * H, "inv_next"), null);
});

test("claim: one run in flight; run numbers from 1; the request is what POST /v1/investigations would get", async (t) => {
  const r = item({ depth: "deep", scope: { type: "selector", filter: { tags: { env: "prod" } } } });
  const claimed = claimRun(r, T0, "inv_next");
  t.ok(claimed);
  const f = claimed?.internal.in_flight;
  t.equal(f?.run, 1);
  t.equal(f?.reserved_investigation_id, "inv_next", "its investigation's id is fixed at the claim");
  t.same(f?.request, { query: "any cryptominers?", depth: "deep", scope: { type: "selector", filter: { tags: { env: "prod" } } } });
  t.same(runRequest(item()), { query: "any cryptominers?", depth: "standard" }, "no scope: every agent");
  t.equal(runTriggerId(r.id, 1), `${r.id}:1`);
  t.same(nextAction(claimed as CuriosityRecord, T0), { kind: "trigger", run: f });
  t.same(nextAction({ ...(claimed as CuriosityRecord), active: false }, T0), { kind: "none" }, "paused: the claimed run is held");
  t.equal(claimRun(claimed as CuriosityRecord, T0 + 10 * H, "inv_next"), null, "a second claim while one run is in flight is refused");
  const attached = attachInvestigation(claimed as CuriosityRecord, 1, "inv_a");
  t.same(nextAction(attached as CuriosityRecord, T0 + 10 * H), { kind: "watch", run: 1, investigationId: "inv_a" });
  t.equal(attachInvestigation(attached as CuriosityRecord, 1, "inv_a"), null, "attaching again changes nothing");
  t.equal(attachInvestigation(attached as CuriosityRecord, 2, "inv_b"), null, "another run's investigation is refused");
});

test("finish: next_run_at = end + interval; last_run_at, last_investigation_id, run_count", async (t) => {
  const end = T0 + 7 * M;
  const done = runOnce(item(), T0, end);
  t.equal(done.next_run_at, at(end + H));
  t.equal(done.last_run_at, at(end));
  t.equal(done.last_investigation_id, "inv_1");
  t.equal(done.run_count, 1);
  t.equal(done.internal.in_flight, null);
  t.equal(done.internal.last_completed_investigation_id, "inv_1");
  t.equal(finishRun(done, 1, { investigationId: "inv_1", endedAt: end, completed: true }, end), null, "finishing twice is a no-op");
  const second = runOnce(done, end + H, end + H + 3 * S, false);
  t.equal(second.run_count, 2);
  t.equal(second.internal.in_flight, null);
  t.equal(second.last_investigation_id, "inv_2");
  t.equal(second.internal.last_completed_investigation_id, "inv_1", "a failed run is not what the next run compares with");
});

test("downtime: an item overdue by many intervals runs once, then counts from that run's end", async (t) => {
  const r = item({ interval: "1m" });
  const late = T0 + 100 * M;
  const claimed = claimRun(r, late, "inv_next");
  t.equal(claimed?.internal.in_flight?.run, 1, "one run, not a backlog of 100");
  const done = runOnce(r, late, late + 2 * S);
  t.equal(done.next_run_at, at(late + 2 * S + M));
  t.equal(isDue(done, late + 2 * S + M - 1), false);
});

test("PATCH: interval and first_run_at recompute next_run_at; other fields leave it alone", async (t) => {
  const fresh = item({ first_run_at: at(T0 + H) });
  t.equal(applyPatch(fresh, { interval: "2h" }, T0).next_run_at, at(T0 + H), "never run: still the first run time");
  t.equal(applyPatch(fresh, { first_run_at: at(T0 + 3 * H) }, T0).next_run_at, at(T0 + 3 * H));
  const patched = applyPatch(fresh, { query: "other", depth: "quick" }, T0 + S);
  t.equal(patched.next_run_at, fresh.next_run_at);
  t.equal(patched.updated_at, at(T0 + S));
  t.equal(patched.created_at, fresh.created_at);

  const ran = runOnce(item(), T0, T0 + M);
  t.equal(applyPatch(ran, { interval: "6h" }, T0 + 2 * M).next_run_at, at(T0 + M + 6 * H), "last end + new interval");
  const reanchored = applyPatch(ran, { first_run_at: at(T0 + 5 * H) }, T0 + 2 * M);
  t.equal(reanchored.next_run_at, at(T0 + 5 * H), "first_run_at re-anchors the schedule");
  t.equal(applyPatch(reanchored, { interval: "2h" }, T0 + 3 * M).next_run_at, at(T0 + 5 * H), "an interval change keeps that anchor");
  const afterAnchor = runOnce(reanchored, T0 + 5 * H, T0 + 5 * H + M);
  t.equal(afterAnchor.next_run_at, at(T0 + 5 * H + M + H), "after the anchored run, counting from its end again");
});

test("PATCH during a run: interval applies when it ends; first_run_at pins next_run_at", async (t) => {
  const running = claimRun(item(), T0, "inv_next") as CuriosityRecord;
  const withInterval = applyPatch(running, { interval: "3h" }, T0 + S);
  t.equal(withInterval.next_run_at, running.next_run_at, "unchanged while in flight");
  t.equal(finishRun(withInterval, 1, { investigationId: "i", endedAt: T0 + M, completed: true }, T0 + M)?.next_run_at, at(T0 + M + 3 * H));
  const pinned = applyPatch(running, { first_run_at: at(T0 + 9 * H) }, T0 + S);
  t.equal(pinned.next_run_at, at(T0 + 9 * H));
  const done = finishRun(pinned, 1, { investigationId: "i", endedAt: T0 + M, completed: true }, T0 + M);
  t.equal(done?.next_run_at, at(T0 + 9 * H), "the pinned time survives the end of the run");
  t.equal(done?.run_count, 1);
});

test("pause and resume: a paused item keeps its schedule; resuming an overdue one makes it due now, once", async (t) => {
  const r = runOnce(item(), T0, T0 + M);
  const paused = applyPatch(r, { active: false }, T0 + 2 * M);
  t.equal(paused.active, false);
  t.equal(paused.next_run_at, r.next_run_at);
  t.equal(isDue(paused, T0 + 30 * H), false);
  const resumed = applyPatch(paused, { active: true }, T0 + 30 * H);
  t.equal(resumed.next_run_at, at(T0 + 30 * H), "due now, not 29 runs late");
  t.equal(isDue(resumed, T0 + 30 * H), true);
  const early = applyPatch(paused, { active: true }, T0 + 3 * M);
  t.equal(early.next_run_at, r.next_run_at, "resumed before its time: schedule unchanged");
  const runningPaused = applyPatch(claimRun(r, T0 + M + H, "inv_next") as CuriosityRecord, { active: false }, T0 + M + H);
  const ended = finishRun(runningPaused, 2, { investigationId: "x", endedAt: T0 + 2 * H, completed: true }, T0 + 2 * H);
  t.equal(ended?.run_count, 2, "a run in flight when paused still finishes and is counted");
  t.equal(isDue(ended as CuriosityRecord, T0 + 10 * H), false, "and nothing more runs while paused");
});
