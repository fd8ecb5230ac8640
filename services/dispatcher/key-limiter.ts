// Per-key (per-subscription) admission: at most `limit` tasks of one key run at once (key-slots.ts), up to `queue`
// more wait their turn, and the rest are refused with a suggested back-off. With a `total` (the pool the keys share),
// a key is also refused once it holds as many tasks as the pool has left free: one key gets at most half of it, a
// second at most half of the rest, and so on, so a few slow or failing subscribers together never take every slot of
// the dispatcher (their fixed shares added up to all of it: two slow subscriptions of half each stalled the rest).
// The back-off grows with how long the key's queue takes to drain.
import { KeySlots } from "./key-slots.js";

export interface KeyLimiterOptions {
  /** Tasks of one key running at once. */
  limit: number;
  /** Tasks of one key waiting for a slot. */
  queue: number;
  /** Tasks all keys hold at most (the shared pool); absent: no shared bound. */
  total?: number;
  minBackoffMs: number;
  maxBackoffMs: number;
  /**
   * How long an idle key (nothing running or waiting) keeps its state, its average duration, before it is
   * forgotten; default 10 minutes. Keys come and go with subscriptions, so idle ones must not pile up.
   */
  idleTtlMs?: number;
  random?: () => number;
  /** ms clock for idle expiry (tests). */
  now?: () => number;
}

/** What the limiter remembers of a key besides its slots (key-slots.ts). */
interface KeyStats {
  /** Moving average of a task's duration (ms). */
  avgMs: number;
  /** When the key last became idle (ms, `now()`); null while it is busy. */
  idleSince: number | null;
}

const DEFAULT_IDLE_TTL_MS = 10 * 60_000;

export type Admission = { kind: "accepted"; done: Promise<void> } | { kind: "refused"; backoffMs: number };

export class KeyLimiter {
  private readonly slots: KeySlots;
  private readonly keys = new Map<string, KeyStats>();
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly idleTtlMs: number;
  private lastSweep: number;

  constructor(private readonly opts: KeyLimiterOptions) {
    this.slots = new KeySlots(opts.limit);
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? (() => performance.now());
    this.idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.lastSweep = this.now();
  }

  /** Runs `task` when a slot of `key` is free, or refuses it when the key's queue is full. */
  submit(key: string, task: () => Promise<void>): Admission {
    this.sweep();
    const stats = this.keys.get(key) ?? { avgMs: 0, idleSince: null };
    stats.idleSince = null;
    this.keys.set(key, stats);
    if (this.slots.inFlight(key) >= this.opts.limit && this.slots.waiting(key) >= this.opts.queue) {
      return { kind: "refused", backoffMs: this.backoff(key, stats) };
    }
    if (this.opts.total !== undefined && this.heldBy(key) >= this.opts.total - this.slots.held()) {
      return { kind: "refused", backoffMs: this.backoff(key, stats) };
    }
    const timed = async (): Promise<void> => {
      const started = performance.now();
      await task().catch(() => undefined);
      const took = performance.now() - started;
      stats.avgMs = stats.avgMs === 0 ? took : stats.avgMs * 0.8 + took * 0.2;
    };
    const done = this.slots.run(key, timed).then(() => {
      // An idle key keeps its state for a while (its average duration sizes the next back-off), then it is
      // forgotten (`sweep`).
      if (this.slots.inFlight(key) === 0 && this.slots.waiting(key) === 0) {
        stats.idleSince = this.now();
        if (this.idleTtlMs <= 0 && this.keys.get(key) === stats) this.keys.delete(key);
      }
    });
    return { kind: "accepted", done };
  }

  /** Tasks of the key running or waiting. */
  private heldBy(key: string): number {
    return this.slots.inFlight(key) + this.slots.waiting(key);
  }

  /** Roughly how long the key's backlog takes to drain, with jitter so refused work does not return in a herd. */
  private backoff(key: string, stats: KeyStats): number {
    const drainMs = (stats.avgMs * this.heldBy(key)) / this.opts.limit;
    const base = Math.min(this.opts.maxBackoffMs, Math.max(this.opts.minBackoffMs, drainMs));
    return Math.round(base * (1 + this.random() * 0.5));
  }

  /** Forgets keys idle for longer than the TTL; runs at most once per TTL/2 so submit stays O(1) on average. */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < this.idleTtlMs / 2) return;
    this.lastSweep = now;
    for (const [key, stats] of this.keys) {
      if (stats.idleSince !== null && now - stats.idleSince >= this.idleTtlMs) this.keys.delete(key);
    }
  }

  /** Keys with state (running, waiting or recently idle): tests, metrics. */
  get size(): number {
    return this.keys.size;
  }

  /** Running and waiting tasks of a key (tests, metrics). */
  load(key: string): { active: number; waiting: number } {
    return { active: this.slots.inFlight(key), waiting: this.slots.waiting(key) };
  }
}
