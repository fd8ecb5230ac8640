// Failing endpoints (docs/api.md#failing-endpoints): a subscription is turned off when its endpoint answers 410 Gone,
// or when every attempt has failed for INQUEST_DISABLE_FAILING_AFTER; either is announced as subscription.disabled,
// and a delivery that fails for good as delivery.dead_lettered. Each event has an id derived from the delivery. A
// subscription.disabled is published before the subscription is turned off, so a crash in between leaves it on and
// the next call publishes the same id again (deduplicated by the stream). The attempt that owes a 410's disable or a
// dead letter is recorded first, with them owed in its record, and its job publishes what a failure left owed
// (announcements.ts): neither is lost, and the delivery is not attempted again for them.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import { iso } from "../../shared/clock.js";
import { envelope, publishEvent } from "../../shared/events.js";
import { derivedId } from "../../shared/ids.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import type { DisabledReason } from "../../shared/schemas/events.js";
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { disableSubscription, failingTooLong, noteAttempt, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";

export interface FailingDeps {
  js: JetStreamClient;
  subscriptions: JsonKv<SubscriptionRecord>;
  clock: Clock;
  log: Logger;
  /** INQUEST_DISABLE_FAILING_AFTER. */
  failingWindowMs: number;
}

const REASON_TEXT: Record<DisabledReason, string> = {
  endpoint_gone: "the endpoint answered 410 Gone",
  failing: "every attempt failed for the whole failing window",
};

/**
 * Turns the subscription off for `reason`, announcing it first (subscription.disabled). `sub` is the copy the attempt
 * found before its POST; the stored record decides: one already off is not announced again (another delivery in
 * flight at the same time turned it off). The event id comes from the subscription as it was while on (its id and
 * `updated_at`, which only a change by the API moves), not from the delivery: deliveries in flight together that
 * each turn it off (a 410 each, each failing past the window) publish the same id, stored once, and a repeat after
 * a crash between the publish and the write carries it too.
 */
export async function disable(deps: FailingDeps, sub: SubscriptionRecord, record: DeliveryRecord, reason: DisabledReason): Promise<void> {
  if (!sub.active) return;
  const stored = (await deps.subscriptions.get(sub.id))?.value;
  if (stored) await disableStored(deps, sub, stored, record, reason);
}

/** `disable` given the subscription as stored (just read by the caller); `sub` is the attempt's copy, as above. */
async function disableStored(deps: FailingDeps, sub: SubscriptionRecord, stored: SubscriptionRecord, record: DeliveryRecord, reason: DisabledReason): Promise<void> {
  if (!stored.active) return;
  const onSinceMs = Date.parse(stored.updated_at);
  const eventId = derivedId("evt", Number.isFinite(onSinceMs) ? onSinceMs : 0, `${sub.id}:disabled:${stored.updated_at}`);
  const now = deps.clock.now();
  await publishEvent(
    deps.js,
    envelope(eventId, "subscription.disabled", now, { subscription_id: sub.id, url: sub.url, reason, delivery_id: record.delivery_id, disabled_at: iso(now) }),
  );
  const result = await deps.subscriptions.update(sub.id, (current) => disableSubscription(current, reason, now));
  if (result?.changed) deps.log.warn({ subscription_id: sub.id, delivery_id: record.delivery_id, reason }, `${REASON_TEXT[reason]}: subscription disabled (PATCH active: true turns it back on)`);
}

/**
 * After an attempt is recorded: a success ends the subscription's run of failures, a failure starts one, and a
 * failure when the run is older than the window turns the subscription off. `sub` is the dispatcher's copy:
 * the record is written only when it looks like a transition (and compare-and-set decides).
 */
export async function noteOutcome(deps: FailingDeps, sub: SubscriptionRecord, record: DeliveryRecord, delivered: boolean, attemptStartedMs: number): Promise<void> {
  if (!delivered && failingTooLong(sub, deps.failingWindowMs, deps.clock.now())) {
    // The copy was read before the POST: a success of another delivery in flight may have ended that run since. The
    // stored record decides (read only here, on the way to turning the subscription off).
    const stored = (await deps.subscriptions.get(sub.id))?.value;
    if (!stored) return;
    if (failingTooLong(stored, deps.failingWindowMs, deps.clock.now())) return disableStored(deps, stored, stored, record, "failing");
    sub = stored;
  }
  if (delivered === ((sub.failing_since ?? null) === null)) return; // nothing changes: no write
  await deps.subscriptions.update(sub.id, (current) => noteAttempt(current, delivered, attemptStartedMs));
}

/**
 * Announces a delivery recorded as failed for good (delivery.dead_lettered), owed in its record until published
 * (announcements.ts): published again after a failure or a crash, it carries the same event id. Never for a delivery
 * of this event type itself, so an endpoint that fails cannot feed itself an endless chain of its own failures.
 */
export async function announceDeadLetter(deps: Pick<FailingDeps, "js" | "clock">, record: DeliveryRecord): Promise<void> {
  if (record.event_type === "delivery.dead_lettered") return;
  const createdMs = Date.parse(record.created_at);
  const eventId = derivedId("evt", Number.isFinite(createdMs) ? createdMs : 0, `${record.delivery_id}:dead-lettered`);
  await publishEvent(
    deps.js,
    envelope(eventId, "delivery.dead_lettered", deps.clock.now(), {
      delivery_id: record.delivery_id,
      subscription_id: record.subscription_id,
      event_id: record.event_id,
      event_type: record.event_type,
      attempt_count: record.attempt_count,
      last_response_code: record.last_response_code,
      last_error: record.last_error,
    }),
  );
}
