// What a delivery's attempt announces (docs/api.md#failing-endpoints): a 410 Gone turns the subscription off
// (subscription.disabled), a delivery that fails for good is dead-lettered (delivery.dead_lettered). The attempt is
// recorded first, with its announcements owed in the record (`internal.announce_pending`, the same write), then
// they are published, then cleared. A publish that fails, or a crash before it, leaves them owed: the delivery's
// job (redelivered, or published again by the fan-out's recheck of the event) publishes them without POSTing again,
// so the five-attempt limit holds whatever EVENTS does. Each has an id derived from the delivery: one published
// twice is stored once within the stream's duplicate window, and carries the same event id after it.
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { Announcement } from "../../shared/webhooks/delivery-record.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import type { DeliverDeps } from "./deliver.js";

/** 410 Gone: the endpoint says it will never take deliveries again. */
export function isGone(result: AttemptResult): boolean {
  return result.kind === "response" && result.status === 410;
}

/** The attempt's record (`next`, the attempt in it) with what it owes announcing, in order. */
export function withAnnouncementsOwed(deps: Pick<DeliverDeps, "disableGone" | "deadLettered">, result: AttemptResult, next: DeliveryRecord): DeliveryRecord {
  const owed: Announcement[] = [];
  if (isGone(result) && deps.disableGone) owed.push("subscription.disabled");
  if (next.status === "failed_permanent" && deps.deadLettered) owed.push("delivery.dead_lettered");
  return owed.length === 0 ? next : { ...next, internal: { ...next.internal, announce_pending: owed } };
}

/**
 * Publishes what the recorded delivery owes announcing, then clears exactly that from the record; throws (and leaves
 * it owed) when a publish fails. `sub`: the subscription as the attempt found it; absent, it is read now (deleted
 * since: there is nothing left to turn off).
 */
export async function announceOwed(deps: DeliverDeps, record: DeliveryRecord, sub?: SubscriptionRecord): Promise<void> {
  const owed = record.internal.announce_pending ?? [];
  if (owed.length === 0) return;
  for (const announcement of owed) {
    if (announcement === "subscription.disabled") {
      const current = sub ?? (await deps.subscription(record.subscription_id));
      if (current && deps.disableGone) await deps.disableGone(current, record);
    } else if (deps.deadLettered) {
      await deps.deadLettered(record);
    }
  }
  await deps.deliveries.update(record.delivery_id, (d) => {
    const pending = d.internal.announce_pending ?? [];
    const rest = pending.filter((a) => !owed.includes(a));
    if (rest.length === pending.length) return null;
    const { announce_pending: _done, ...internal } = d.internal;
    return { ...d, internal: rest.length === 0 ? internal : { ...internal, announce_pending: rest } };
  });
}
