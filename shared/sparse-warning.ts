// A warning that something outside the trust boundary can cause at will (an agent sending the same bad message
// in a loop) is logged at most once per interval, with how many occurrences since the last line: the log says
// it happens without the sender choosing how much the service writes.
import type { Logger } from "./log.js";

export class SparseWarning {
  private lastMs = Number.NEGATIVE_INFINITY;
  private unlogged = 0;

  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly everyMs = 60_000,
  ) {}

  /** Logs `fields` now unless a line was logged within the interval (then only counted, in the next line's `more`). */
  note(fields: Record<string, unknown>, nowMs: number): void {
    if (nowMs - this.lastMs < this.everyMs) {
      this.unlogged++;
      return;
    }
    this.log.warn({ ...fields, more: this.unlogged }, this.message);
    this.lastMs = nowMs;
    this.unlogged = 0;
  }
}
