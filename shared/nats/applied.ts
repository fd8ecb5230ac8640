// The newest bucket revision a local copy (a read model, a mirror) has applied, and waiting for it to reach
// the bucket's head: read-your-writes for copies that follow a bucket through a watch.
import type { KV } from "@nats-io/kv";

/** The watch feeding a copy, as a catch-up that timed out asks it (followBucket's Follower). */
export interface WatchProbe {
  /** How many entries the watch has delivered so far (applied, or skipped as not applicable). */
  readonly deliveries: number;
  /**
   * true when the watch has nothing left to deliver up to `head`; false when it is behind, after reopening it if it
   * delivered nothing since it had made `deliveriesBefore` deliveries.
   */
  settled(head: number, deliveriesBefore: number): Promise<boolean>;
}

export class AppliedRevision {
  private value = 0;
  /** Bumped by every reset: a wait for a head read before it waits for a revision of another bucket. */
  private epoch = 0;
  private waiters: Array<{ revision: number; resolve: (reached: boolean) => void }> = [];

  constructor(private readonly kv: KV) {}

  get current(): number {
    return this.value;
  }

  /**
   * Starts over from `revision` (a checkpoint, or 0 after a rebuild or when the bucket was created again): catch-ups
   * under way read the head again.
   */
  reset(revision: number): void {
    this.value = revision;
    this.epoch++;
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }

  advance(revision: number): void {
    if (revision <= this.value) return;
    this.value = revision;
    this.waiters = this.waiters.filter((w) => {
      if (w.revision > this.value) return true;
      w.resolve(true);
      return false;
    });
  }

  /**
   * Waits until every write the bucket held at call time is applied; false when it is not. With the `watch` that
   * feeds this copy, a wait that times out asks it why: when it has nothing left to deliver up to the head (the head
   * was delivered but not applied, a document the copy could not take; or it is gone, expired), the head counts as
   * reached, so such a revision cannot stall every later call. Otherwise the watch is behind; stalled (its consumer
   * lost with a node), it is reopened, and the wait goes on once more for `timeoutMs`: a head the watch has not
   * delivered is never adopted.
   */
  async catchUp(timeoutMs: number, watch?: WatchProbe): Promise<boolean> {
    // A reset meanwhile (the copy started over on a bucket created again) makes the head read before it another
    // bucket's: the wait starts again with the new head, a few times at most.
    for (let round = 0; round < 3; round++) {
      const epoch = this.epoch;
      const head = await this.head();
      if (epoch !== this.epoch) continue;
      if (head <= this.value) return true;
      const deliveriesBefore = watch?.deliveries ?? 0;
      if (await this.reach(head, timeoutMs)) return true;
      if (epoch !== this.epoch) continue;
      if (!watch) return false;
      const settled = await watch.settled(head, deliveriesBefore);
      if (epoch !== this.epoch) continue;
      if (settled) {
        this.advance(head);
        return true;
      }
      return this.reach(head, timeoutMs);
    }
    return false;
  }

  /** Waits until `head` is applied; false when `timeoutMs` passed first. */
  private reach(head: number, timeoutMs: number): Promise<boolean> {
    if (head <= this.value) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        revision: head,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      // A waiter that timed out leaves the list (kept, each list call would add one until the next write).
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Waiters now (tests). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Lets every waiter go (shutdown). */
  release(): void {
    for (const w of this.waiters.splice(0)) w.resolve(true);
  }

  /** The bucket's head revision now. */
  async head(): Promise<number> {
    return (await this.kv.status()).streamInfo.state.last_seq;
  }
}
