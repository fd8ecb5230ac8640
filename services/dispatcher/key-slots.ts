// Per-key slots: at most `limit` tasks of one key (one subscription) run at once, the rest wait in arrival order.
// The dispatcher uses it three times: for the requests in flight to each subscription's endpoint (what
// INQUEST_SUBSCRIPTION_CONCURRENCY promises the endpoint; only the POST and the checks right before it hold one),
// under KeyLimiter for the jobs each subscription runs, which read and write delivery records around the POST, and
// for the fan-out's first attempts (first-attempt.ts), whose waiting ones are abandoned when the endpoint turns slow.

interface SlotsOfKey {
  active: number;
  /** Each waiting task's turn: true to run, false when it was abandoned (`abandonWaiting`). */
  waiting: Array<(go: boolean) => void>;
}

/** What a waiting `run` rejects with when `abandonWaiting` gives up its turn: its task never ran. */
export class SlotAbandoned extends Error {
  constructor(key: string) {
    super(`the wait for a slot of ${key} was abandoned`);
    this.name = "SlotAbandoned";
  }
}

export class KeySlots {
  private readonly keys = new Map<string, SlotsOfKey>();
  private total = 0;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`KeySlots: limit must be a positive integer, got ${limit}`);
  }

  /** Runs `fn` once one of `key`'s slots is free; the slot is given back when it settles. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const slots = this.keys.get(key) ?? { active: 0, waiting: [] };
    this.keys.set(key, slots);
    this.total++;
    if (slots.active >= this.limit) {
      if (!(await new Promise<boolean>((resolve) => slots.waiting.push(resolve)))) throw new SlotAbandoned(key);
    } else slots.active++;
    try {
      return await fn();
    } finally {
      this.total--;
      const next = slots.waiting.shift();
      // The slot passes straight to the next in line (it stays counted); a key with nothing left is forgotten.
      if (next) next(true);
      else if (--slots.active === 0) this.keys.delete(key);
    }
  }

  /** Gives up the turn of every task of `key` still waiting: their `run` rejects with SlotAbandoned. */
  abandonWaiting(key: string): void {
    const slots = this.keys.get(key);
    if (!slots) return;
    for (const resume of slots.waiting.splice(0)) {
      this.total--;
      resume(false);
    }
  }

  /** Tasks of `key` running now. */
  inFlight(key: string): number {
    return this.keys.get(key)?.active ?? 0;
  }

  /** Tasks of `key` waiting for a slot. */
  waiting(key: string): number {
    return this.keys.get(key)?.waiting.length ?? 0;
  }

  /** Tasks running or waiting, over all keys. */
  held(): number {
    return this.total;
  }
}
