// Fan-out rules (docs/api.md#events): which subscriptions an event goes to, and the one delivery id each
// (event, subscription) pair gets however often the fan-out runs.
import { derivedId, idKey } from "../ids.js";
import { severityRank, type Severity } from "../severity.js";
import type { WireEnvelope } from "../schemas/events.js";
import type { SubscriptionRecord } from "./subscription.js";

const rank = severityRank;

/** A finding's severity, or a completed investigation's summary severity; null for events without one. */
export function severityOf(event: WireEnvelope): Severity | null {
  let value: unknown;
  if (event.type === "finding.discovered") {
    value = (event.data.finding as { severity?: unknown } | undefined)?.severity;
  } else if (event.type === "investigation.completed") {
    value = (event.data.summary as { severity?: unknown } | null | undefined)?.severity;
  }
  return rank(value) >= 0 ? (value as Severity) : null;
}

/**
 * `filters.min_severity` drops events whose severity is below it; events of types without one pass. A finding always
 * has a severity: one whose severity is missing or not a severity (published by hand on `events.finding.discovered`)
 * is below any minimum, not above it.
 */
export function passesFilters(sub: Pick<SubscriptionRecord, "filters">, event: WireEnvelope): boolean {
  const min = sub.filters.min_severity;
  if (min === undefined) return true;
  const severity = severityOf(event);
  if (severity === null) return event.type !== "finding.discovered";
  return rank(severity) >= rank(min);
}

/**
 * How much later than the event's own `created_at` a subscription may have been created and still receive it: the
 * clocks of the event's producer and of the gateway that created the subscription, apart.
 */
export const SUBSCRIPTION_CLOCK_SKEW_MS = 2_000;

/**
 * Whether an event, stored in the EVENTS stream at `storedAtMs`, goes to `sub`: the subscription is active,
 * lists the type, existed when the event was stored and when it happened (`created_at`, give or take the clocks'
 * skew): a new subscription is not sent history; and its filters pass.
 */
/**
 * Whether an envelope was published on its own type's subject (`events.<type>`), as every producer publishes. One that
 * was not would reach subscribers of a type it was not published as: the fan-out and recovery both refuse it.
 */
export function onItsSubject(subject: string, event: Pick<WireEnvelope, "type">): boolean {
  return subject === `events.${event.type}`;
}

export function wantsEvent(sub: SubscriptionRecord, event: WireEnvelope, storedAtMs: number): boolean {
  if (!sub.active) return false;
  if (!sub.events.includes(event.type)) return false;
  const created = Date.parse(sub.created_at);
  if (created > storedAtMs) return false;
  // An event stored again long after it happened (an idempotent retry's announcement, stored anew once the stream's
  // duplicate window has passed) is history to a subscription made in between.
  const happened = Date.parse(event.created_at);
  if (Number.isFinite(happened) && created > happened + SUBSCRIPTION_CLOCK_SKEW_MS) return false;
  return passesFilters(sub, event);
}

/** The key delivery ids are derived with: bound to that purpose, from the master key (INQUEST_MASTER_KEY). */
export function deliveryIdKey(masterKey: Buffer): Buffer {
  return idKey(masterKey, "webhook-delivery/v1");
}

/**
 * The delivery id of (event, subscription): the same however many times the fan-out runs, time-ordered by the
 * event's time, and unguessable (docs/api.md#http): its random part is an HMAC under `key` (`deliveryIdKey`), so
 * knowing the event id and the subscription id is not enough to compute it.
 */
export function deliveryIdFor(event: WireEnvelope, subscriptionId: string, storedAtMs: number, key: Buffer): string {
  const eventMs = Date.parse(event.created_at);
  return derivedId("dlv", Number.isFinite(eventMs) && eventMs >= 0 ? eventMs : storedAtMs, `${event.event_id}:${subscriptionId}`, key);
}
