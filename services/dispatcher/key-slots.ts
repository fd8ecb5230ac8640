// Per-key slots: at most `limit` tasks of one key (one subscription) run at once, the rest wait in arrival order.
// The dispatcher uses it twice: for the requests in flight to each subscription's endpoint (what
// INQUEST_SUBSCRIPTION_CONCURRENCY promises the endpoint; only the POST and the checks right before it hold one),
// and under KeyLimiter for the jobs each subscription runs, which read and write delivery records around the POST.

interface SlotsOfKey {
  active: number;
  waiting: Array<() => void>;
}

export class KeySlots {
  private readonly keys = new Map<string, SlotsOfKey>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`KeySlots: limit must be a positive integer, got ${limit}`);
  }

  /** Runs `fn` once one of `key`'s slots is free; the slot is given back when it settles. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const slots = this.keys.get(key) ?? { active: 0, waiting: [] };
    this.keys.set(key, slots);
    if (slots.active >= this.limit) await new Promise<void>((resolve) => slots.waiting.push(resolve));
    else slots.active++;
    try {
      return await fn();
    } finally {
      const next = slots.waiting.shift();
      // The slot passes straight to the next in line (it stays counted); a key with nothing left is forgotten.
      if (next) next();
      else if (--slots.active === 0) this.keys.delete(key);
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
}
