// Operational events of failing endpoints (docs/api.md#failing-endpoints). A subscription whose endpoint answered
// 410 Gone is turned off and that is announced as subscription.disabled
// (docs/api.md#failing-endpoints). The event is published first, with an id derived from the delivery, then the
// subscription is turned off by compare-and-set: a crash in between makes the job's next attempt meet 410 again and
// publish the same event id (deduplicated by the stream), so the event is neither lost nor doubled.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import { iso } from "../../shared/clock.js";
import { envelope, publishEvent } from "../../shared/events.js";
import { derivedId } from "../../shared/ids.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { disableGone, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";

export interface GoneDeps {
  js: JetStreamClient;
  subscriptions: JsonKv<SubscriptionRecord>;
  clock: Clock;
  log: Logger;
}

export async function goneEndpoint(deps: GoneDeps, sub: SubscriptionRecord, record: DeliveryRecord): Promise<void> {
  if (!sub.active) return;
  const createdMs = Date.parse(record.created_at);
  const eventId = derivedId("evt", Number.isFinite(createdMs) ? createdMs : 0, `${sub.id}:disabled:${record.delivery_id}`);
  const now = deps.clock.now();
  await publishEvent(
    deps.js,
    envelope(eventId, "subscription.disabled", now, { subscription_id: sub.id, url: sub.url, reason: "endpoint_gone", delivery_id: record.delivery_id, disabled_at: iso(now) }),
  );
  const result = await deps.subscriptions.update(sub.id, (current) => disableGone(current, now));
  if (result?.changed) deps.log.warn({ subscription_id: sub.id, delivery_id: record.delivery_id }, "the endpoint answered 410 Gone: subscription disabled (PATCH active: true turns it back on)");
}

/**
 * Announces a delivery that failed for good (delivery.dead_lettered), before its record says so: a crash in between
 * makes the job attempt again and publish the same event id. Never for a delivery of this event type itself, so an
 * endpoint that fails cannot feed itself an endless chain of its own failures.
 */
export async function announceDeadLetter(deps: Pick<GoneDeps, "js" | "clock">, record: DeliveryRecord): Promise<void> {
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
