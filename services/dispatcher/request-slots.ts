// Requests in flight to each subscription's endpoint: at most `limit` at once per subscription (what
// INQUEST_SUBSCRIPTION_CONCURRENCY promises the endpoint), the rest wait in arrival order. Only the POST (with the
// checks right before it) holds a slot; the jobs around it, which read and write delivery records, are bounded
// apart (delivery-consumer.ts), so a record write waiting on NATS never keeps a request from starting.

interface KeySlots {
  active: number;
  waiting: Array<() => void>;
}

export class RequestSlots {
  private readonly keys = new Map<string, KeySlots>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`RequestSlots: limit must be a positive integer, got ${limit}`);
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

  /** Requests of `key` running now (tests, metrics). */
  inFlight(key: string): number {
    return this.keys.get(key)?.active ?? 0;
  }

  /** Requests of `key` waiting for a slot (tests, metrics). */
  waiting(key: string): number {
    return this.keys.get(key)?.waiting.length ?? 0;
  }
}
