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
  random?: () => number;
}

interface KeyState {
  active: number;
  waiting: Array<() => void>;
  /** Moving average of a task's duration (ms). */
  avgMs: number;
}

export type Admission = { kind: "accepted"; done: Promise<void> } | { kind: "refused"; backoffMs: number };

export class KeyLimiter {
  private keys = new Map<string, KeyState>();
  private readonly random: () => number;

  constructor(private readonly opts: KeyLimiterOptions) {
    this.random = opts.random ?? Math.random;
  }

  /** Runs `task` when a slot of `key` is free, or refuses it when the key's queue is full. */
  submit(key: string, task: () => Promise<void>): Admission {
    const state = this.keys.get(key) ?? { active: 0, waiting: [], avgMs: 0 };
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
            // An idle key keeps its state: its average duration is what sizes the next back-off.
            state.waiting.shift()?.();
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

  /** Running and waiting tasks of a key (tests, metrics). */
  load(key: string): { active: number; waiting: number } {
    const s = this.keys.get(key);
    return { active: s?.active ?? 0, waiting: s?.waiting.length ?? 0 };
  }
}
