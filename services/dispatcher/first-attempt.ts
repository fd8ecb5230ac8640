// A delivery's first attempt made by the fan-out itself, for subscriptions whose endpoints answer quickly and well
// (endpoint-health.ts): the event's consumer POSTs, then creates the delivery record with the attempt in it, and only
// then acks the event. A delivery that succeeds this way costs one record write, where the job path costs a job
// publish, the job's delivery and ack, a record create, a read and a write. A delivery still pending after it gets
// its job for the next attempt (`recordFirstAttempt`); anything the fan-out declines goes the job path.
//
// At-least-once: a crash before the record is created leaves the event unacknowledged, and its redelivery takes
// the job path, which makes the attempt again (the same event_id). A redelivered event never comes here.
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { recordFirstAttempt } from "../../shared/webhooks/delivery.js";
import { recordAttempt } from "../../shared/webhooks/delivery-state.js";
import type { WebhookStores } from "../../shared/webhooks/catalog.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { announceOwed, withAnnouncementsOwed } from "./announcements.js";
import { afterRecording, postAttempt, type DeliverDeps, type Posted } from "./deliver.js";
import type { EndpointHealth } from "./endpoint-health.js";
import { KeySlots, SlotAbandoned } from "./key-slots.js";

export interface FirstAttemptDeps {
  deliver: DeliverDeps;
  stores: Pick<WebhookStores, "js" | "deliveries">;
  health: EndpointHealth;
  /** Told how each delivery the fan-out looked at went (metrics). */
  observe?(outcome: FirstAttemptOutcome): void;
}

/**
 * - `made`: attempted and recorded here;
 * - `deleted`: the subscription was deleted before the POST: nothing sent, nothing recorded;
 * - `joined`: a copy of the same delivery was being attempted here: this one waited for it;
 * - the rest were declined, for the job path: `inactive` (paused, or turned off), `rate_limited` (the job path
 *   keeps its rate), `unhealthy` (endpoint-health.ts), `busy` (too many first attempts of the subscription
 *   waiting), `recorded` (the delivery has a record already).
 */
export const FIRST_ATTEMPT_OUTCOMES = ["made", "deleted", "joined", "inactive", "rate_limited", "unhealthy", "busy", "recorded"] as const;
export type FirstAttemptOutcome = (typeof FIRST_ATTEMPT_OUTCOMES)[number];

const HANDLED: ReadonlySet<FirstAttemptOutcome> = new Set<FirstAttemptOutcome>(["made", "deleted", "joined"]);

export interface FirstAttemptOptions {
  /** First attempts to one subscription made at once (its POSTs also wait for its request slots). */
  perSubscription: number;
  /**
   * First attempts to one subscription that may wait for their turn; more are declined (they take the job path),
   * so one busy subscription cannot fill the fan-out and hold up every other subscription's events.
   */
  waitingPerSubscription: number;
  /**
   * First attempts held at once over all subscriptions (running or waiting); more are declined, so part of the
   * fan-out always enqueues: many slow-but-healthy endpoints cannot hold every event behind their POSTs.
   */
  total: number;
  /**
   * The same bound for a delivery to a quick subscription (EndpointHealth.quick: its recent POSTs all answered within
   * milliseconds), whose waiting first attempts free the fan-out again almost at once; its own waiting limit grows to
   * match. Declining those sent a quarter of a burst to one subscription down the job path, which costs several more
   * round trips per delivery. Default: `total`.
   */
  quickTotal?: number;
}

export class FirstAttempts {
  /** Each subscription's first attempts: `perSubscription` running, the rest waiting their turn. */
  private readonly slots: KeySlots;
  /** Deliveries whose first attempt is being made here: a second copy of the event waits for it instead. */
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: FirstAttemptDeps, private readonly opts: FirstAttemptOptions) {
    this.slots = new KeySlots(opts.perSubscription);
    // A subscription that turns slow or failing sends its waiting first attempts to the job path at once.
    deps.health.onUnhealthy((id) => this.slots.abandonWaiting(id));
  }

  /**
   * Makes the delivery's first attempt and records it; false when it declines (nothing sent, nothing written: the
   * caller enqueues the delivery). Declined: the subscription is paused or rate limited, its endpoint is not
   * healthy, too many of its first attempts are waiting already, or the delivery has a record already (the same
   * event twice in the stream, its first copy fanned out before: the job path finds the record and sends nothing).
   * A copy of the event that comes while its first copy's attempt is running here waits for it and sends nothing.
   * `firstCopy`: the event's message is the first copy the stream stored (first-copy.ts): no record can exist, and
   * the read that looks for one is skipped.
   */
  async attempt(record: DeliveryRecord, sub: SubscriptionRecord, opts: { firstCopy?: boolean } = {}): Promise<boolean> {
    const id = record.delivery_id;
    const running = this.inFlight.get(id);
    if (running) {
      // That copy records the delivery, enqueues it, or fails and has its event redelivered: nothing is left to do.
      await running.catch(() => undefined);
      this.deps.observe?.("joined");
      return true;
    }
    const attempt = this.run(record, sub, opts.firstCopy === true).then((outcome) => {
      this.deps.observe?.(outcome);
      return HANDLED.has(outcome);
    });
    this.inFlight.set(id, attempt);
    try {
      return await attempt;
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async run(record: DeliveryRecord, sub: SubscriptionRecord, firstCopy: boolean): Promise<FirstAttemptOutcome> {
    if (!sub.active) return "inactive";
    if ((sub.rate_limit_per_second ?? null) !== null) return "rate_limited";
    if (!this.deps.health.healthy(sub.id)) return "unhealthy";
    if (!firstCopy && (await this.deps.stores.deliveries.get(record.delivery_id)) !== null) return "recorded";
    if (this.full(sub.id)) return this.deps.health.healthy(sub.id) ? "busy" : "unhealthy";
    const deliver = this.deps.deliver;
    const post = () => postAttempt(deliver, record);
    let posted: Posted;
    try {
      posted = await this.slots.run(sub.id, () => (deliver.requestSlot ? deliver.requestSlot(sub.id, post) : post()));
    } catch (err) {
      if (err instanceof SlotAbandoned) return "unhealthy";
      throw err;
    }
    // Paused since the match: the job path waits for it.
    if (posted.kind === "wait") return "inactive";
    // Deleted since the match: as if it had been deleted before the event, nothing is recorded.
    if (posted.kind === "deleted") return "deleted";
    const { result, startedMs, endedMs } = posted;
    const attempted = recordAttempt(record, { startedMs, endedMs, result, retryDelaysMs: this.deps.deliver.retryDelaysMs, jobSeq: null }).record;
    const next = withAnnouncementsOwed(deliver, result, attempted);
    if (await recordFirstAttempt(this.deps.stores, next)) {
      await afterRecording(deliver, posted, next);
      // A failure here leaves them owed in the record and the event unacknowledged: its redelivery publishes the
      // delivery's job (enqueueDelivery's recheck, or republishLostJob once a 410 turned the subscription off), which
      // announces them without POSTing again.
      await announceOwed(deliver, next, posted.sub);
    }
    return "made";
  }

  /** First attempts of the subscription running now and waiting, and all held (for tests and metrics). */
  load(subscriptionId: string): { running: number; waiting: number; held: number } {
    return { running: this.slots.inFlight(subscriptionId), waiting: this.slots.waiting(subscriptionId), held: this.slots.held() };
  }

  /**
   * No room for another first attempt: `total` (`quickTotal` for a quick subscription) held over all subscriptions,
   * or this one's running and waiting full.
   */
  private full(id: string): boolean {
    const quickTotal = this.opts.quickTotal ?? this.opts.total;
    const quick = quickTotal > this.opts.total && this.deps.health.quick(id);
    const total = quick ? quickTotal : this.opts.total;
    if (this.slots.held() >= total) return true;
    const waiting = quick ? Math.max(this.opts.waitingPerSubscription, total - this.opts.perSubscription) : this.opts.waitingPerSubscription;
    return this.slots.inFlight(id) >= this.opts.perSubscription && this.slots.waiting(id) >= waiting;
  }
}
