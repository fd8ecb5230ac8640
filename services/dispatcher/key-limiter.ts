// Per-key (per-subscription) concurrency: at most `limit` tasks of one key run at once, up to `queue` more
// wait their turn, and the rest are refused with a suggested back-off, so one slow or failing subscriber
// never takes every slot of the dispatcher. The back-off grows with how long the key's queue takes to drain.

export interface KeyLimiterOptions {
  /** Tasks of one key running at once. */
  limit: number;
  /** Tasks of one key waiting for a slot. */
  queue: number;
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

interface KeyState {
  active: number;
  waiting: Array<() => void>;
  /** Moving average of a task's duration (ms). */
  avgMs: number;
  /** When the key last became idle (ms, `now()`); null while it is busy. */
  idleSince: number | null;
}

const DEFAULT_IDLE_TTL_MS = 10 * 60_000;

export type Admission = { kind: "accepted"; done: Promise<void> } | { kind: "refused"; backoffMs: number };

export class KeyLimiter {
  private keys = new Map<string, KeyState>();
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly idleTtlMs: number;
  private lastSweep: number;

  constructor(private readonly opts: KeyLimiterOptions) {
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? (() => performance.now());
    this.idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.lastSweep = this.now();
  }

  /** Runs `task` when a slot of `key` is free, or refuses it when the key's queue is full. */
  submit(key: string, task: () => Promise<void>): Admission {
    this.sweep();
    const state = this.keys.get(key) ?? { active: 0, waiting: [], avgMs: 0, idleSince: null };
    state.idleSince = null;
    this.keys.set(key, state);
    if (state.active >= this.opts.limit && state.waiting.length >= this.opts.queue) {
      return { kind: "refused", backoffMs: this.backoff(state) };
    }
    const done = new Promise<void>((resolve) => {
      const run = (): void => {
        state.active++;
        const started = performance.now();
        void task()
          .catch(() => undefined)
          .finally(() => {
            const took = performance.now() - started;
            state.avgMs = state.avgMs === 0 ? took : state.avgMs * 0.8 + took * 0.2;
            state.active--;
            state.waiting.shift()?.();
            // An idle key keeps its state for a while (its average duration sizes the next back-off), then it
            // is forgotten (`sweep`).
            if (state.active === 0 && state.waiting.length === 0) {
              state.idleSince = this.now();
              if (this.idleTtlMs <= 0 && this.keys.get(key) === state) this.keys.delete(key);
            }
            resolve();
          });
      };
      if (state.active < this.opts.limit) run();
      else state.waiting.push(run);
    });
    return { kind: "accepted", done };
  }

  /** Roughly how long the key's backlog takes to drain, with jitter so refused work does not return in a herd. */
  private backoff(state: KeyState): number {
    const drainMs = (state.avgMs * (state.active + state.waiting.length)) / this.opts.limit;
    const base = Math.min(this.opts.maxBackoffMs, Math.max(this.opts.minBackoffMs, drainMs));
    return Math.round(base * (1 + this.random() * 0.5));
  }

  /** Forgets keys idle for longer than the TTL; runs at most once per TTL/2 so submit stays O(1) on average. */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < this.idleTtlMs / 2) return;
    this.lastSweep = now;
    for (const [key, state] of this.keys) {
      if (state.idleSince !== null && now - state.idleSince >= this.idleTtlMs) this.keys.delete(key);
    }
  }

  /** Keys with state (running, waiting or recently idle): tests, metrics. */
  get size(): number {
    return this.keys.size;
  }

  /** Running and waiting tasks of a key (tests, metrics). */
  load(key: string): { active: number; waiting: number } {
    const s = this.keys.get(key);
    return { active: s?.active ?? 0, waiting: s?.waiting.length ?? 0 };
  }
}
