// The newest bucket revision a local copy (a read model, a mirror) has applied, and waiting for it to reach
// the bucket's head: read-your-writes for copies that follow a bucket through a watch.
import type { KV } from "@nats-io/kv";

export class AppliedRevision {
  private value = 0;
  private waiters: Array<{ revision: number; resolve: () => void }> = [];

  constructor(private readonly kv: KV) {}

  get current(): number {
    return this.value;
  }

  /** Starts over from `revision` (a checkpoint, or 0 after a rebuild). */
  reset(revision: number): void {
    this.value = revision;
  }

  advance(revision: number): void {
    if (revision <= this.value) return;
    this.value = revision;
    this.waiters = this.waiters.filter((w) => {
      if (w.revision > this.value) return true;
      w.resolve();
      return false;
    });
  }

  /**
   * Waits until every write the bucket held at call time is applied; false when `timeoutMs` passed first.
   * With `adoptHeadOnTimeout` the head then counts as reached, so a revision a watch never shows (a purge
   * marker) cannot stall every later call.
   */
  async catchUp(timeoutMs: number, adoptHeadOnTimeout = false): Promise<boolean> {
    const head = await this.head();
    if (head <= this.value) return true;
    const caughtUp = await new Promise<boolean>((resolve) => {
      const waiter = {
        revision: head,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      // A waiter that timed out leaves the list (kept, each list call would add one until the next write).
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
    if (!caughtUp && adoptHeadOnTimeout) this.advance(head);
    return caughtUp;
  }

  /** Waiters now (tests). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Lets every waiter go (shutdown). */
  release(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /** The bucket's head revision now. */
  async head(): Promise<number> {
    return (await this.kv.status()).streamInfo.state.last_seq;
  }
}
