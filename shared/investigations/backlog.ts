// The work-queue depth the trigger compares with its limit, read from JetStream at most every `maxAgeMs`
// and counted forward locally in between, so a burst of triggers costs one stream-info request, not one each.
import type { Clock } from "../clock.js";

export class BacklogGauge {
  private known = 0;
  private added = 0;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly read: () => Promise<number>,
    private readonly clock: Clock,
    private readonly maxAgeMs = 250,
  ) {}

  async current(): Promise<number> {
    if (this.clock.now() - this.fetchedAt > this.maxAgeMs) {
      this.refreshing ??= this.read()
        .then((n) => {
          this.known = n;
          this.added = 0;
          this.fetchedAt = this.clock.now();
        })
        .finally(() => {
          this.refreshing = null;
        });
      await this.refreshing;
    }
    return this.known + this.added;
  }

  /** One more investigation was queued since the last read. */
  noteQueued(): void {
    this.added += 1;
  }
}
