// A counting semaphore: `acquire` waits while every permit is taken.
export class Permits {
  private free: number;
  private waiters: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }

  /** Wakes every waiter (shutdown). */
  drain(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get inUse(): number {
    return this.size - this.free;
  }
}
