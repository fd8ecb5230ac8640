// The curiosity ticker: keeps a live copy of the items (KV watch) and, while it leads, gives each item the
// step it is owed (runs.ts): due runs are claimed and triggered as soon as their time comes (the loop sleeps
// exactly until the next due time, at most `maxIdleMs`), runs in flight are checked when their investigation
// announces a terminal state and on a slow sweep (an event missed across a leadership change). A ticker that does
// not lead steps in for what the leader is late with (standby.ts), so a dead leader costs `standbyGraceMs`.
import type { KV } from "@nats-io/kv";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { CuriosityRecord } from "../../shared/curiosity/record.js";
import { nextAction, scheduleView, type ItemAction, type ScheduleView } from "../../shared/curiosity/schedule.js";
import type { Component } from "../../shared/lifecycle.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import { isTimeout } from "../../shared/nats/errors.js";
import { decodeJson } from "../../shared/nats/kvjson.js";
import { advanceItem, type RunDeps } from "./runs.js";
import { DueQueue } from "./due-queue.js";
import { standbyOwes } from "./standby.js";

export interface TickerDeps extends RunDeps {
  nc: NatsConnection;
  items: KV;
  isLeader(): boolean;
}

export interface TickerOptions {
  /** Longest sleep between passes. */
  maxIdleMs: number;
  /** How often runs in flight are checked when no event said they ended. */
  sweepMs: number;
  /** Items stepped at once; the rest wait for the next pass (which a finished step starts at once). */
  concurrency: number;
  /** How late the leader may be with a step before a standby takes it (standby.ts). */
  standbyGraceMs: number;
}

/** When a failed step is tried again: after a timeout (it waited already), and after any other failure. */
const TIMEOUT_RETRY_MS = 0;
const FAILURE_RETRY_MS = 1_000;

const TERMINAL_EVENTS = new Set(["investigation.completed", "investigation.failed", "investigation.cancelled"]);

export class CuriosityTicker implements Component {
  readonly name = "curiosity-ticker";
  /** What scheduling reads of each item (a step reads the whole record from the bucket: runs.ts). */
  private readonly items: BucketMirror<ScheduleView>;
  private busy = new Set<string>();
  private retryAt = new Map<string, number>();
  /** Items whose run's end was announced (terminal event), with when (clock ms); cleared once stepped. */
  private announced = new Map<string, number>();
  private pending = new Set<Promise<void>>();
  private events: Subscription | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private lastSweep = 0;
  private wake: (() => void) | null = null;

  /** Items owed a claim or a trigger, by when (due-queue.ts): a pass takes only those whose time has come. */
  private readonly due: DueQueue;
  /** Items with a run in flight: looked at when their run's end is announced, and on the sweep. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: TickerDeps, private readonly opts: TickerOptions) {
    this.items = new BucketMirror<ScheduleView>(
      deps.items,
      deps.log,
      (id, record) => {
        this.index(id, record);
        this.kick();
      },
      (decoded) => scheduleView(decoded as unknown as CuriosityRecord),
    );
    this.due = new DueQueue((id) => this.items.get(id));
  }

  private index(id: string, record: ScheduleView | null): void {
    if (record?.internal.in_flight?.investigation_id) this.running.add(id);
    else this.running.delete(id);
    if (record) this.due.add(id, record);
    // Entries left behind by changes pile up only when items change faster than their old times come: start over.
    if (this.due.size > 2 * this.items.size + 1_024) this.due.rebuild(this.items.all());
  }

  async start(): Promise<void> {
    await this.follow();
    this.loop = this.run();
  }

  /** Items waiting out a retry of a failed step (tests, metrics). */
  get retrying(): number {
    return this.retryAt.size;
  }

  /** Keeps the local copy of the items and of their runs' ends current, without running passes (start() does both). */
  follow(): Promise<void> {
    this.events ??= this.deps.nc.subscribe("events.investigation.*", { callback: (_err, msg) => this.onEvent(msg.subject, msg.data) });
    return this.items.start();
  }

  /** Resolves once the local copy holds every change the bucket had when called (or after `timeoutMs`). */
  async synced(timeoutMs = 2_000): Promise<void> {
    await this.items.catchUp(timeoutMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.loop;
    await Promise.all([...this.pending]);
    this.events?.unsubscribe();
    await this.items.stop();
  }

  /** Wakes the loop now (leadership acquired, an item changed, a run ended). */
  kick(): void {
    this.wake?.();
  }

  /**
   * One pass: starts the step each item is owed and resolves when those steps are done. Runs in flight are
   * only looked at when their investigation announced its end, on the sweep, or when `sweep` is true.
   */
  async tick(sweep = false): Promise<void> {
    // No slot free: nothing could be stepped, and the step that frees one starts the next pass (advance's kick).
    const free = this.opts.concurrency - this.busy.size;
    if (this.stopped || free <= 0) return;
    const leading = this.deps.isLeader();
    const now = this.deps.clock.now();
    const sweepNow = leading && (sweep || performance.now() - this.lastSweep >= this.opts.sweepMs);
    if (sweepNow) {
      this.lastSweep = performance.now();
      for (const id of this.announced.keys()) if (this.items.get(id) === undefined) this.announced.delete(id);
    }
    // Only items that may be owed a step: due by now (a standby: by now less its grace), announced, waiting
    // out a retry, or, on the sweep, running. Only as many due ones as there are slots: taking all of them and
    // pushing back what could not be stepped made a burst of items due at once quadratic (1,000: 3.8 s late).
    const taken = this.due.takeDue(leading ? now : now - this.opts.standbyGraceMs, free);
    const candidates = new Set<string>(taken.map((e) => e.id));
    for (const id of this.announced.keys()) candidates.add(id);
    for (const [id, at] of this.retryAt) if (at <= now) candidates.add(id);
    if (sweepNow) for (const id of this.running) candidates.add(id);
    const work: Array<Promise<void>> = [];
    const stepped = new Set<string>();
    for (const id of candidates) {
      if (this.busy.size >= this.opts.concurrency) break;
      const record = this.items.get(id);
      if (record === undefined) {
        this.announced.delete(id);
        this.retryAt.delete(id);
        continue;
      }
      if (this.busy.has(id) || (this.retryAt.get(id) ?? 0) > now) continue;
      const action = nextAction(record, now);
      if (action.kind !== "watch") this.announced.delete(id);
      if (!this.owes(leading, record, action, now, sweepNow)) {
        // A retry whose step is no longer owed (paused since, or another ticker took it) is over: kept, it stays a
        // candidate of every pass and holds the loop's sleep at its 5 ms floor until the item is next due.
        if ((this.retryAt.get(id) ?? Infinity) <= now) this.retryAt.delete(id);
        continue;
      }
      this.announced.delete(id);
      stepped.add(id);
      // To the back of the sweep's order: a sweep stops when the slots are full, and in insertion order it would
      // look at the same first runs every time and never at a later one whose end was missed.
      if (this.running.delete(id)) this.running.add(id);
      work.push(this.advance(id));
    }
    // What was taken and not stepped goes back in the queue, unless its step is running or it waits out a retry
    // (both queue it again when they end: advance, and the retry map above).
    for (const e of taken) {
      if (stepped.has(e.id) || this.busy.has(e.id) || (this.retryAt.get(e.id) ?? 0) > now) continue;
      this.due.add(e.id, e.record);
    }
    await Promise.all(work);
  }

  private owes(leading: boolean, record: ScheduleView, action: ItemAction, now: number, sweepNow: boolean): boolean {
    if (!leading) return standbyOwes(record, action, now, this.opts.standbyGraceMs, this.announced.get(record.id));
    if (action.kind === "none") return false;
    return action.kind !== "watch" || sweepNow || this.announced.has(record.id);
  }

  private advance(id: string): Promise<void> {
    this.busy.add(id);
    const job = (async () => {
      try {
        const outcome = await advanceItem(this.deps, id);
        if (outcome.kind === "retry") this.retryAt.set(id, outcome.at);
        else this.retryAt.delete(id);
      } catch (err) {
        this.deps.log.error({ err, curiosity_id: id }, "curiosity step failed; retrying shortly");
        // A request that timed out has waited already (a stream's leader died under it, and one is elected by now,
        // or soon): again at once. Anything else waits a second rather than spinning.
        this.retryAt.set(id, this.deps.clock.now() + (isTimeout(err) ? TIMEOUT_RETRY_MS : FAILURE_RETRY_MS));
      } finally {
        this.busy.delete(id);
        // A step that changed the item queued its new record already (the mirror); one that did not (a failure,
        // a lost compare-and-set) must not drop out of the queue.
        const record = this.items.get(id);
        if (record) this.due.add(id, record);
      }
    })();
    this.pending.add(job);
    void job.finally(() => {
      this.pending.delete(job);
      this.kick();
    });
    return job;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.tick().catch((err: unknown) => this.deps.log.error({ err }, "curiosity pass failed"));
      await this.sleep(this.deps.isLeader() ? this.untilNextDue() : this.untilStandbyOwes());
    }
  }

  private untilNextDue(): number {
    return this.untilOwed(0, false);
  }

  private untilStandbyOwes(): number {
    return this.untilOwed(this.opts.standbyGraceMs, true);
  }

  /** How long the loop may sleep: until the earliest due time (plus `grace`), retry, or announced end owed. */
  private untilOwed(grace: number, standby: boolean): number {
    const now = this.deps.clock.now();
    let wait = this.opts.maxIdleMs;
    // Every slot busy: the step that frees one wakes the loop (advance), so due items need not hold it at 5 ms.
    if (this.busy.size >= this.opts.concurrency) return wait;
    const next = this.due.peek();
    if (next !== undefined) wait = Math.min(wait, next.at + grace - now);
    // A retry whose step is still running is owed once it ends, and its end wakes the loop (advance): counted here,
    // a retry time already past held the loop at 5 ms for as long as the step took.
    for (const [id, at] of this.retryAt) if (!this.busy.has(id)) wait = Math.min(wait, at - now);
    // The leader hears of an announced end at once (onEvent kicks the loop); a standby waits out the grace.
    if (standby) for (const at of this.announced.values()) wait = Math.min(wait, at + grace - now);
    return Math.max(5, wait);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private onEvent(subject: string, data: Uint8Array): void {
    const type = subject.slice("events.".length);
    if (!TERMINAL_EVENTS.has(type)) return;
    try {
      const event = decodeJson<{ data?: { context?: { curiosity_id?: unknown } } }>(data);
      const id = event.data?.context?.curiosity_id;
      if (typeof id !== "string") return;
      if (!this.announced.has(id)) this.announced.set(id, this.deps.clock.now());
      this.kick();
    } catch {
      // Not ours to judge; the sweep covers it.
    }
  }
}
