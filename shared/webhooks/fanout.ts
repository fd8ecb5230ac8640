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

/** `filters.min_severity` drops events whose severity is below it; events without severity pass. */
export function passesFilters(sub: Pick<SubscriptionRecord, "filters">, event: WireEnvelope): boolean {
  const min = sub.filters.min_severity;
  if (min === undefined) return true;
  const severity = severityOf(event);
  return severity === null || rank(severity) >= rank(min);
}

/**
 * Whether an event, stored in the EVENTS stream at `storedAtMs`, goes to `sub`: the subscription is active,
 * lists the type, existed when the event was stored (a new subscription is not sent history) and its filters pass.
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
  if (Date.parse(sub.created_at) > storedAtMs) return false;
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
