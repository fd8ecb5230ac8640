// The outbound deliveries read model: newest created_at first, filterable by any combination of status,
// subscription_id and event_id (docs/api.md#webhooks). Each delivery is kept as its list view: the envelope it
// sends (most of a record's bytes) and its internal state stay in the bucket, where the detail reads them.
//
// Five index entries per delivery: every combination of status and subscription (all, status, sub, status+sub),
// and its event. An event has one delivery per subscription it matched, so a filter on event_id walks that event's
// entries and checks status and subscription on the documents (`deliveryWalk`) rather than keeping three more
// entries per delivery. The index is most of the model's bytes, and its pages count in the gateway's memory.
import { DELIVERY_RETENTION_MS } from "../../shared/webhooks/catalog.js";
import { deliveryView, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { DeliveryView } from "../../shared/webhooks/schemas.js";
import type { IndexKey, ReadModel, ReadModelSpec } from "../../shared/readmodel.js";

export interface DeliveryFilter {
  status: string | null;
  subscription_id: string | null;
  event_id: string | null;
}

/** The index name of a filter combination, e.g. "status+sub", and its values in that order. */
function parts(f: DeliveryFilter): { name: string; values: string[] } {
  const used = (
    [
      ["status", f.status],
      ["sub", f.subscription_id],
      ["event", f.event_id],
    ] as Array<[string, string | null]>
  ).filter((e): e is [string, string] => e[1] !== null);
  return { name: used.length === 0 ? "all" : used.map(([n]) => n).join("+"), values: used.map(([, v]) => v) };
}

/** How often the index drops what the bucket has forgotten (also once at start). */
export const DELIVERY_PRUNE_EVERY_MS = 3_600_000;

export const deliveryIndex: ReadModelSpec<DeliveryRecord, DeliveryView> = {
  name: "deliveries.v3",
  store: deliveryView,
  // The bucket forgets a delivery 30 days after its last write and tells no watcher: the index follows suit.
  expiry: { everyMs: DELIVERY_PRUNE_EVERY_MS, expired: (r, nowMs) => !isRetained(r, nowMs) },
  indexKeys(r) {
    const t = Date.parse(r.created_at);
    const keys: IndexKey[] = [];
    for (const status of [null, r.status]) {
      for (const sub of [null, r.subscription_id]) keys.push([...deliveryPrefix({ status, subscription_id: sub, event_id: null }), t, r.delivery_id]);
    }
    keys.push([...deliveryPrefix({ status: null, subscription_id: null, event_id: r.event_id }), t, r.delivery_id]);
    return keys;
  },
};

/** The index entries a filter walks: its own for status and subscription, the event's when it names one. */
export function deliveryPrefix(f: DeliveryFilter): IndexKey {
  const p = parts(f.event_id === null ? f : { status: null, subscription_id: null, event_id: f.event_id });
  return [p.name, ...p.values];
}

/** How a filter is listed: the entries it walks (`deliveryPrefix`) and what the walk checks on each document. */
export function deliveryWalk(f: DeliveryFilter): { prefix: IndexKey; matches(r: DeliveryView): boolean } {
  const checked = f.event_id !== null;
  return {
    prefix: deliveryPrefix(f),
    matches: (r) => !checked || ((f.status === null || r.status === f.status) && (f.subscription_id === null || r.subscription_id === f.subscription_id)),
  };
}

/**
 * The bucket forgets a delivery 30 days after its last write without telling its watchers, so the local copy
 * hides what the bucket no longer holds (between two prunes) and prunes it.
 */
export function isRetained(r: Pick<DeliveryRecord, "updated_at">, nowMs: number): boolean {
  return Date.parse(r.updated_at) > nowMs - DELIVERY_RETENTION_MS;
}

/** Every delivery of a subscription the index still shows as pending (deleting a subscription abandons them). */
export function pendingDeliveryIds(index: Pick<ReadModel<DeliveryRecord, DeliveryView>, "page">, subscriptionId: string): string[] {
  const prefix = deliveryPrefix({ status: "pending", subscription_id: subscriptionId, event_id: null });
  const ids: string[] = [];
  let after: IndexKey | null = null;
  do {
    const page = index.page(prefix, { after, limit: 200, reverse: false });
    ids.push(...page.items.map((r) => r.delivery_id));
    after = page.next;
  } while (after !== null);
  return ids;
}

/** How many dead-lettered deliveries of a subscription were created in [sinceMs, untilMs] (bulk recovery's count). */
export function deadLettersIn(index: Pick<ReadModel<DeliveryRecord, DeliveryView>, "page">, subscriptionId: string, sinceMs: number, untilMs: number): number {
  const prefix = deliveryPrefix({ status: "failed_permanent", subscription_id: subscriptionId, event_id: null });
  let count = 0;
  // Keys run by created_at within the prefix: start just before `since`, stop past `until`.
  let after: IndexKey | null = [...prefix, sinceMs - 1];
  do {
    const page = index.page(prefix, { after, limit: 500, reverse: false });
    for (const r of page.items) {
      const t = Date.parse(r.created_at);
      if (t > untilMs) return count;
      if (t >= sinceMs) count++;
    }
    after = page.next;
  } while (after !== null);
  return count;
}
