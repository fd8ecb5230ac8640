// DueQueue: items come out in due order and only once their time has come; an entry for a record the item no
// longer has (changed, deleted) never comes out; running and paused items are not queued.
import { test } from "tap";
import { iso } from "../../shared/clock.js";
import type { CuriosityRecord } from "../../shared/curiosity/record.js";
import { newRecord } from "../../shared/curiosity/schedule.js";
import { dueAt, DueQueue } from "../../services/ticker/due-queue.js";

const T0 = Date.parse("2026-11-24T00:00:00.000Z");
const item = (id: string, atMs: number, extra: Partial<CuriosityRecord> = {}): CuriosityRecord => ({
  ...newRecord(id, { query: "any new listeners?", interval: "1h", first_run_at: iso(atMs) }, null, T0),
  ...extra,
});

test("due order, and nothing before its time", async (t) => {
  const items = new Map<string, CuriosityRecord>();
  const q = new DueQueue((id) => items.get(id));
  // Added in scrambled order, many of them.
  for (const i of [5, 1, 9, 3, 7, 2, 8, 0, 6, 4]) {
    const r = item(`cur_${i}`, T0 + i * 1_000);
    items.set(r.id, r);
    q.add(r.id, r);
  }
  t.same(q.takeDue(T0 - 1), [], "nothing due before the first time");
  t.same(q.takeDue(T0 + 3_000).map((e) => e.id), ["cur_0", "cur_1", "cur_2", "cur_3"]);
  t.equal(q.peek()?.id, "cur_4");
  t.same(q.takeDue(T0 + 60_000).map((e) => e.at - T0), [4_000, 5_000, 6_000, 7_000, 8_000, 9_000]);
  t.equal(q.peek(), undefined);
});

test("at most `limit` entries, the earliest; the rest stay queued", async (t) => {
  const items = new Map<string, CuriosityRecord>();
  const q = new DueQueue((id) => items.get(id));
  for (const i of [3, 0, 4, 1, 2]) {
    const r = item(`cur_${i}`, T0 + i * 1_000);
    items.set(r.id, r);
    q.add(r.id, r);
  }
  t.same(q.takeDue(T0 + 60_000, 2).map((e) => e.id), ["cur_0", "cur_1"]);
  t.same(q.takeDue(T0 + 60_000, 0), []);
  t.same(q.takeDue(T0 + 60_000).map((e) => e.id), ["cur_2", "cur_3", "cur_4"]);
});

test("a changed or deleted item's old entry never comes out", async (t) => {
  const items = new Map<string, CuriosityRecord>();
  const q = new DueQueue((id) => items.get(id));
  const a = item("cur_a", T0 + 1_000);
  const b = item("cur_b", T0 + 2_000);
  for (const r of [a, b]) {
    items.set(r.id, r);
    q.add(r.id, r);
  }
  const moved = { ...a, next_run_at: iso(T0 + 5_000) }; // re-queued later
  items.set(a.id, moved);
  q.add(a.id, moved);
  items.delete(b.id);
  t.same(q.takeDue(T0 + 3_000), [], "a's old time and deleted b are dropped");
  t.same(q.takeDue(T0 + 5_000).map((e) => [e.id, e.at - T0]), [["cur_a", 5_000]]);
  q.add(a.id, moved);
  q.add(a.id, moved);
  q.rebuild(items.entries());
  t.equal(q.size, 1, "a rebuild keeps one entry per item");
});

test("what is queued: the next run of an active item, a claimed run not yet triggered; not a paused or a running item", async (t) => {
  const base = item("cur_x", T0 + 1_000);
  t.equal(dueAt(base), T0 + 1_000);
  t.equal(dueAt({ ...base, active: false }), null, "paused");
  const claimed = { ...base, internal: { ...base.internal, in_flight: { run: 1, claimed_at: iso(T0 + 1_200), investigation_id: null } } } as unknown as CuriosityRecord;
  t.equal(dueAt(claimed), T0 + 1_200, "claimed, to be triggered at once");
  t.equal(dueAt({ ...claimed, active: false }), null, "claimed, then paused: held until resumed");
  const running = { ...base, internal: { ...base.internal, in_flight: { run: 1, claimed_at: iso(T0 + 1_200), investigation_id: "inv_x" } } } as unknown as CuriosityRecord;
  t.equal(dueAt(running), null, "running: its end is announced or swept");
});
