// When each curiosity item is next owed a step, ordered by time (a binary min-heap), so a pass looks only at the
// items whose time has come instead of every item of the queue (100,000 items made each pass take tens of
// milliseconds and runs start seconds late; bench/curiosity.md). Entries are never updated in place: a changed
// item gets a new entry and the old one is dropped when it surfaces, because it no longer names the item's
// current record.
import type { ScheduleView } from "../../shared/curiosity/schedule.js";

export interface DueEntry {
  at: number;
  id: string;
  record: ScheduleView;
}

/**
 * When the item's next claim or trigger is owed (clock ms), by the leader; a standby owes it `grace` later.
 * Null when only an announcement or a sweep can tell (a run in flight) or nothing is scheduled (paused, even with
 * a claimed run: schedule.ts's nextAction holds it).
 */
export function dueAt(r: ScheduleView): number | null {
  const f = r.internal.in_flight;
  if (f) return f.investigation_id === null && r.active ? Date.parse(f.claimed_at) : null;
  return r.active ? Date.parse(r.next_run_at) : null;
}

export class DueQueue {
  private readonly heap: DueEntry[] = [];

  /** `current(id)`: the item's record now; an entry for another record (or a deleted item) is stale. */
  constructor(private readonly current: (id: string) => ScheduleView | undefined) {}

  /** Queues the item's next due time, if it has one. */
  add(id: string, record: ScheduleView): void {
    const at = dueAt(record);
    if (at === null || Number.isNaN(at)) return;
    this.heap.push({ at, id, record });
    this.up(this.heap.length - 1);
  }

  /** Removes and returns the current entries due at or before `threshold`, earliest first, at most `limit`. */
  takeDue(threshold: number, limit = Infinity): DueEntry[] {
    const out: DueEntry[] = [];
    for (let top = this.peek(); top !== undefined && top.at <= threshold && out.length < limit; top = this.peek()) {
      out.push(this.pop() as DueEntry);
    }
    return out;
  }

  /** The earliest current entry, dropping stale ones on the way; undefined when none is queued. */
  peek(): DueEntry | undefined {
    for (let top = this.heap[0]; top !== undefined; top = this.heap[0]) {
      if (this.current(top.id) === top.record) return top;
      this.pop();
    }
    return undefined;
  }

  /** Entries held, stale ones included (the ticker rebuilds the queue when they pile up). */
  get size(): number {
    return this.heap.length;
  }

  /** Starts over from these items (dropping every stale entry at once). */
  rebuild(items: Iterable<[string, ScheduleView]>): void {
    this.heap.length = 0;
    for (const [id, record] of items) this.add(id, record);
  }

  private pop(): DueEntry | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(i: number): void {
    const h = this.heap;
    for (let at = i; at > 0; ) {
      const parent = (at - 1) >> 1;
      if ((h[parent] as DueEntry).at <= (h[at] as DueEntry).at) return;
      [h[parent], h[at]] = [h[at] as DueEntry, h[parent] as DueEntry];
      at = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (let at = i; ; ) {
      const l = 2 * at + 1;
      const r = l + 1;
      let min = at;
      if (l < h.length && (h[l] as DueEntry).at < (h[min] as DueEntry).at) min = l;
      if (r < h.length && (h[r] as DueEntry).at < (h[min] as DueEntry).at) min = r;
      if (min === at) return;
      [h[min], h[at]] = [h[at] as DueEntry, h[min] as DueEntry];
      at = min;
    }
  }
}
