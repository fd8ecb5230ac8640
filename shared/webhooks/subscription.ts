// The stored outbound subscription (docs/api.md#subscriptions) and the pure rules of creating and patching one.
import { canonicalJson } from "../canonical.js";
import { iso } from "../clock.js";
import type { DisabledReason, EventType } from "../schemas/events.js";
import type { CreateSubscriptionRequest, Filters, PatchSubscriptionRequest, SubscriptionView } from "./schemas.js";

export interface SubscriptionRecord {
  id: string;
  url: string;
  events: EventType[];
  filters: Filters;
  active: boolean;
  created_at: string;
  updated_at: string;
  /**
   * When `events` or `filters` last changed (absent or null: never since creation). A recovery owes only events
   * stored since then: a subscription is never sent history, and one that now lists a type it did not list then was
   * not owed that type's older events.
   */
  wants_since?: string | null;
  /** `encryptSecret(master key, secret)`; the plain secret is shown once, in the create response. */
  secret_sealed: string;
  /** The secret before the last rotation, sealed the same way; it also signs until `previous_secret_expires_at`. */
  previous_secret_sealed?: string | null;
  previous_secret_expires_at?: string | null;
  /** Why the dispatcher turned it off (absent or null: it did not; a PATCH to `active: true` clears it). */
  disabled_reason?: DisabledReason | null;
  /** When the first of an unbroken run of failed attempts started (null: the last attempt succeeded). */
  failing_since?: string | null;
  /** The custom headers, `sealHeaders(master key, headers)`; absent or null: none. */
  headers_sealed?: string | null;
  /** Their names, shown by list and get (the values never are). */
  header_names?: string[];
  /** Seconds one attempt waits; absent or null: the dispatcher's INQUEST_DELIVERY_TIMEOUT. */
  timeout_seconds?: number | null;
  /** POSTs started per second at most, across dispatchers; absent or null: no limit. */
  rate_limit_per_second?: number | null;
}

/** The custom headers as stored: sealed values and their names (null sealed: none). */
export interface SealedHeaders {
  sealed: string | null;
  names: string[];
}

function headerFields(h: SealedHeaders | undefined): Partial<SubscriptionRecord> {
  return h === undefined ? {} : { headers_sealed: h.sealed, header_names: h.names };
}

/**
 * A new secret replaces the current one, which keeps signing for `graceMs` (docs/api.md#secret-rotation). Only the
 * newest two secrets sign: rotating again within a grace period drops the oldest at once.
 */
export function rotateSecret(current: SubscriptionRecord, newSealed: string, graceMs: number, nowMs: number): SubscriptionRecord {
  return {
    ...current,
    secret_sealed: newSealed,
    previous_secret_sealed: graceMs > 0 ? current.secret_sealed : null,
    previous_secret_expires_at: graceMs > 0 ? iso(nowMs + graceMs) : null,
    updated_at: iso(nowMs),
  };
}

/** The sealed previous secret while it still signs at `nowMs`, else null. */
export function previousSealed(sub: SubscriptionRecord, nowMs: number): string | null {
  if (!sub.previous_secret_sealed || !sub.previous_secret_expires_at) return null;
  return Date.parse(sub.previous_secret_expires_at) > nowMs ? sub.previous_secret_sealed : null;
}

/** The same event type twice means nothing more than once; keep the first occurrence's order. */
function uniqueEvents(events: readonly EventType[]): EventType[] {
  return [...new Set(events)];
}

export function newSubscription(id: string, req: CreateSubscriptionRequest, secretSealed: string, nowMs: number, headers?: SealedHeaders): SubscriptionRecord {
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
    ...headerFields(headers),
    timeout_seconds: req.timeout_seconds ?? null,
    rate_limit_per_second: req.rate_limit_per_second ?? null,
  };
}

/**
 * Only the included fields change; `events`, `filters` and `headers` (sealed by the caller into `headers`) are
 * replaced as a whole (docs/api.md#webhooks).
 */
export function patchSubscription(current: SubscriptionRecord, patch: PatchSubscriptionRequest, nowMs: number, headers?: SealedHeaders): SubscriptionRecord {
  const events = patch.events === undefined ? current.events : uniqueEvents(patch.events);
  const filters = patch.filters === undefined ? current.filters : { ...patch.filters };
  const wanted = (e: readonly EventType[], f: Filters): string => canonicalJson({ events: [...e].sort(), filters: f });
  const wantsChanged = wanted(events, filters) !== wanted(current.events, current.filters);
  return {
    ...current,
    ...headerFields(headers),
    ...(patch.timeout_seconds !== undefined ? { timeout_seconds: patch.timeout_seconds } : {}),
    ...(patch.rate_limit_per_second !== undefined ? { rate_limit_per_second: patch.rate_limit_per_second } : {}),
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.events !== undefined ? { events: uniqueEvents(patch.events) } : {}),
    ...(patch.filters !== undefined ? { filters: { ...patch.filters } } : {}),
    ...(patch.active !== undefined ? { active: patch.active } : {}),
    ...(patch.active === true ? { disabled_reason: null, failing_since: null } : {}),
    ...(wantsChanged ? { wants_since: iso(nowMs) } : {}),
    updated_at: iso(nowMs),
  };
}

/** Turned off by the dispatcher, saying why (null when it already was off). */
export function disableSubscription(current: SubscriptionRecord, reason: DisabledReason, nowMs: number): SubscriptionRecord | null {
  if (!current.active) return null;
  return { ...current, active: false, disabled_reason: reason, updated_at: iso(nowMs) };
}

/**
 * After an attempt: a success ends a run of failures, a failure starts one (at `atMs`); null when that changes
 * nothing, so only these transitions are written, not every attempt.
 */
export function noteAttempt(current: SubscriptionRecord, delivered: boolean, atMs: number): SubscriptionRecord | null {
  const failingSince = current.failing_since ?? null;
  if (delivered) return failingSince === null ? null : { ...current, failing_since: null };
  return failingSince === null ? { ...current, failing_since: iso(atMs) } : null;
}

/** Whether every attempt has failed for at least `windowMs` by `nowMs`. */
export function failingTooLong(sub: SubscriptionRecord, windowMs: number, nowMs: number): boolean {
  const since = sub.failing_since ? Date.parse(sub.failing_since) : NaN;
  return Number.isFinite(since) && nowMs - since >= windowMs;
}

/** What list and get show: never the secret. */
export function subscriptionView(r: SubscriptionRecord): SubscriptionView {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    filters: r.filters,
    active: r.active,
    disabled_reason: r.disabled_reason ?? null,
    failing_since: r.failing_since ?? null,
    header_names: r.header_names ?? [],
    timeout_seconds: r.timeout_seconds ?? null,
    rate_limit_per_second: r.rate_limit_per_second ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
