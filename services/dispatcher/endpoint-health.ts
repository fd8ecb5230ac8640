// Which subscriptions' endpoints answer quickly and well right now. The fan-out makes a delivery's first attempt
// itself only for those (first-attempt.ts); a subscription whose POST takes longer than `slowMs`, or whose answer
// is not a 2xx, goes back to the job path for `coolDownMs`, so a slow endpoint never holds the fan-out (and with
// it every other subscription's events) for longer than `slowMs`.
import type { Clock } from "../../shared/clock.js";

export interface EndpointHealthOptions {
  /** A POST still running after this long marks its subscription unhealthy. */
  slowMs: number;
  /** How long an unhealthy subscription stays on the job path. */
  coolDownMs: number;
}

export const DEFAULT_ENDPOINT_HEALTH: EndpointHealthOptions = { slowMs: 1_000, coolDownMs: 30_000 };

export class EndpointHealth {
  private readonly coolUntil = new Map<string, number>();
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
    try {
      const result = await post();
      if (!delivered(result)) this.markUnhealthy(subscriptionId);
      return result;
    } catch (err) {
      this.markUnhealthy(subscriptionId);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  markUnhealthy(subscriptionId: string): void {
    this.coolUntil.set(subscriptionId, this.clock.now() + this.opts.coolDownMs);
    for (const listener of this.listeners) listener(subscriptionId);
  }
}
