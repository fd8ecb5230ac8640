// When the dispatcher's copy of the subscriptions is fresh enough for an event: `after(since)` resolves once a check
// that started at or after `since` (performance.now() of when the event arrived) has found the copy holding every
// write the bucket had. A check is one round trip to the bucket's stream, then the wait for the watch to apply its
// head (subscription-cache.ts).
//
// Checks overlap: a caller whose input arrived while a check was already running starts its own at once rather than
// waiting for that one to end and then for another, which made an event wait one to two round trips (half a round
// trip more on average, and either trip's stall). Every caller that arrived before a check started shares it; at
// most `maxRunning` run, so a steady stream of events costs at most that many head reads in flight.
export interface FreshnessCheckOptions {
  /** Checks running at once. */
  maxRunning: number;
  /** The clock `since` is read on (performance.now()). */
  now(): number;
}

const DEFAULTS: FreshnessCheckOptions = { maxRunning: 4, now: () => performance.now() };

export class FreshnessChecks {
  /** When the newest check that succeeded started. */
  private verifiedAt = -Infinity;
  /** The checks running, oldest first. */
  private readonly running: Array<{ startedAt: number; done: Promise<void> }> = [];
  private readonly opts: FreshnessCheckOptions;

  /** `run`: one check, resolving once the copy holds what the bucket held when it began. */
  constructor(
    private readonly run: () => Promise<void>,
    opts: Partial<FreshnessCheckOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Resolves once a check that started at or after `since` succeeded; rejects with the failure of the one it waited for. */
  async after(since: number): Promise<void> {
    while (this.verifiedAt < since) {
      // The earliest running check that started after the input arrived answers it soonest.
      const covering = this.running.find((c) => c.startedAt >= since);
      if (covering) await covering.done;
      else if (this.running.length < this.opts.maxRunning) await this.start();
      // Every check allowed is running and began before the input: the first to end makes room.
      else await Promise.race(this.running.map((c) => c.done.catch(() => undefined)));
    }
  }

  private start(): Promise<void> {
    const startedAt = this.opts.now();
    const check = {
      startedAt,
      done: this.run()
        .then(() => {
          if (startedAt > this.verifiedAt) this.verifiedAt = startedAt;
        })
        .finally(() => this.running.splice(this.running.indexOf(check), 1)),
    };
    this.running.push(check);
    return check.done;
  }
}
