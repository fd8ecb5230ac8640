// The stored outbound subscription (docs/api.md#subscriptions) and the pure rules of creating and patching one.
import { iso } from "../clock.js";
import type { EventType } from "../schemas/events.js";
import type { CreateSubscriptionRequest, Filters, PatchSubscriptionRequest, SubscriptionView } from "./schemas.js";

export interface SubscriptionRecord {
  id: string;
  url: string;
  events: EventType[];
  filters: Filters;
  active: boolean;
  created_at: string;
  updated_at: string;
  /** `encryptSecret(master key, secret)`; the plain secret is shown once, in the create response. */
  secret_sealed: string;
}

/** The same event type twice means nothing more than once; keep the first occurrence's order. */
function uniqueEvents(events: readonly EventType[]): EventType[] {
  return [...new Set(events)];
}

export function newSubscription(id: string, req: CreateSubscriptionRequest, secretSealed: string, nowMs: number): SubscriptionRecord {
  const now = iso(nowMs);
  return {
    id,
    url: req.url,
    events: uniqueEvents(req.events),
    filters: { ...(req.filters ?? {}) },
    active: req.active ?? true,
    created_at: now,
    updated_at: now,
    secret_sealed: secretSealed,
  };
}

/** Only the included fields change; `events` and `filters` are replaced as a whole (docs/api.md#webhooks). */
export function patchSubscription(current: SubscriptionRecord, patch: PatchSubscriptionRequest, nowMs: number): SubscriptionRecord {
  return {
    ...current,
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.events !== undefined ? { events: uniqueEvents(patch.events) } : {}),
    ...(patch.filters !== undefined ? { filters: { ...patch.filters } } : {}),
    ...(patch.active !== undefined ? { active: patch.active } : {}),
    updated_at: iso(nowMs),
  };
}

/** What list and get show: never the secret. */
export function subscriptionView(r: SubscriptionRecord): SubscriptionView {
  return { id: r.id, url: r.url, events: r.events, filters: r.filters, active: r.active, created_at: r.created_at, updated_at: r.updated_at };
}
