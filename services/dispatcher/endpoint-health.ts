// Which subscriptions' endpoints answer quickly and well right now. The fan-out makes a delivery's first attempt
// itself only for those (first-attempt.ts); a subscription whose POST takes longer than `slowMs`, or whose answer
// is not a 2xx, goes back to the job path for `coolDownMs`, so a slow endpoint never holds the fan-out (and with
// it every other subscription's events) for longer than `slowMs`. A subscription whose last `quickStreak` POSTs each
// answered within `quickMs` is quick: its first attempts may hold more of the fan-out (first-attempt.ts), since
// they free it again within milliseconds.
import type { Clock } from "../../shared/clock.js";

export interface EndpointHealthOptions {
  /** A POST still running after this long marks its subscription unhealthy. */
  slowMs: number;
  /** How long an unhealthy subscription stays on the job path. */
  coolDownMs: number;
  /** A POST answered (2xx) within this long counts toward the subscription being quick. */
  quickMs?: number;
  /** Quick POSTs in a row that make the subscription quick; any other outcome starts the count again. */
  quickStreak?: number;
}

export const DEFAULT_ENDPOINT_HEALTH: EndpointHealthOptions = { slowMs: 1_000, coolDownMs: 30_000, quickMs: 100, quickStreak: 16 };

export class EndpointHealth {
  private readonly coolUntil = new Map<string, number>();
  /** Each subscription's quick POSTs in a row (deleted when one is not). */
  private readonly streaks = new Map<string, number>();
  private readonly listeners: Array<(subscriptionId: string) => void> = [];

  constructor(private readonly clock: Clock, private readonly opts: EndpointHealthOptions = DEFAULT_ENDPOINT_HEALTH) {}

  /** Whether the subscription's recent POSTs were quick 2xx answers (or it has none). */
  healthy(subscriptionId: string): boolean {
    const until = this.coolUntil.get(subscriptionId);
    if (until === undefined) return true;
    if (until > this.clock.now()) return false;
    this.coolUntil.delete(subscriptionId);
    return true;
  }

  /** Whether the subscription is healthy and its last `quickStreak` POSTs each answered within `quickMs`. */
  quick(subscriptionId: string): boolean {
    return this.healthy(subscriptionId) && (this.streaks.get(subscriptionId) ?? 0) >= (this.opts.quickStreak ?? Infinity);
  }

  /** Called with the subscription's id when it turns unhealthy. */
  onUnhealthy(listener: (subscriptionId: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Runs one POST to the subscription's endpoint: the subscription turns unhealthy as soon as the POST has taken
   * `slowMs`, or when `delivered` says its answer was not a success.
   */
  async watch<T>(subscriptionId: string, post: () => Promise<T>, delivered: (result: T) => boolean): Promise<T> {
    const timer = setTimeout(() => this.markUnhealthy(subscriptionId), this.opts.slowMs);
    timer.unref();
    // Measured on the same clock as `slowMs` (real time), whatever clock the records are dated with.
    const started = performance.now();
    try {
      const result = await post();
      if (!delivered(result)) this.markUnhealthy(subscriptionId);
      else if (performance.now() - started < (this.opts.quickMs ?? 0)) this.streaks.set(subscriptionId, (this.streaks.get(subscriptionId) ?? 0) + 1);
      else this.streaks.delete(subscriptionId);
      return result;
    } catch (err) {
      this.markUnhealthy(subscriptionId);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  markUnhealthy(subscriptionId: string): void {
    this.streaks.delete(subscriptionId);
    this.coolUntil.set(subscriptionId, this.clock.now() + this.opts.coolDownMs);
    for (const listener of this.listeners) listener(subscriptionId);
  }
}
