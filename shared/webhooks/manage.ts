// The management operations behind /v1/webhooks (docs/api.md#webhooks): each returns its outcome as a value, which the
// gateway maps to an HTTP status in one place.
import { type Clock } from "../clock.js";
import { newId } from "../ids.js";
import { encryptSecret, newWebhookSecret } from "../secrets.js";
import type { WebhookStores } from "./catalog.js";
import { enqueueDelivery, newDeliveryRecord, noteReplay } from "./delivery.js";
import { abandonDelivery } from "./delivery-state.js";
import type { CreateSubscriptionRequest, DeliveryStatus, PatchSubscriptionRequest, SubscriptionView } from "./schemas.js";
import { newSubscription, patchSubscription, rotateSecret, subscriptionView, type SealedHeaders } from "./subscription.js";
import { customHeaderProblems, sealHeaders } from "./custom-headers.js";
import type { ValidationDetail } from "../validate.js";
import type { TargetCheck } from "./targets.js";
import { testEnvelope } from "./test-envelope.js";

export interface ManageDeps {
  stores: Pick<WebhookStores, "js" | "subscriptions" | "deliveries">;
  masterKey: Buffer;
  clock: Clock;
  /** The create/PATCH URL check (scheme, and private targets unless allowed). */
  checkUrl(url: string): Promise<TargetCheck>;
  publicUrl: string;
  /** Ids of the subscription's deliveries that may still be pending (a local index; the dispatcher re-checks). */
  pendingDeliveries(subscriptionId: string): Promise<string[]>;
}

/** Pending deliveries of a deleted subscription are closed this many at a time. */
const ABANDON_BATCH = 32;

type BadUrl = { kind: "bad_url"; message: string };
type BadHeaders = { kind: "bad_headers"; details: ValidationDetail[] };
export type CreateOutcome = { kind: "created"; subscription: SubscriptionView; secret: string } | BadUrl | BadHeaders;
export type PatchOutcome = { kind: "updated"; subscription: SubscriptionView } | { kind: "not_found" } | BadUrl | BadHeaders;
export type RotateOutcome = { kind: "rotated"; id: string; secret: string; previousSecretExpiresAt: string | null } | { kind: "not_found" };
export type DeleteOutcome = { kind: "deleted"; abandoned: number } | { kind: "not_found" };
export type QueuedOutcome = { kind: "queued"; deliveryId: string; status: DeliveryStatus } | { kind: "not_found" };

async function urlProblem(deps: ManageDeps, url: string): Promise<BadUrl | null> {
  const check = await deps.checkUrl(url);
  return check.ok ? null : { kind: "bad_url", message: check.message };
}

/** The headers sealed for storage (null: none, as {}), or what is wrong with them; undefined when the request has none. */
function sealedHeaders(deps: ManageDeps, given: Record<string, string> | null | undefined): SealedHeaders | BadHeaders | undefined {
  if (given === undefined) return undefined;
  const headers = given ?? {};
  const details = customHeaderProblems(headers);
  if (details.length > 0) return { kind: "bad_headers", details };
  return { sealed: sealHeaders(deps.masterKey, headers), names: Object.keys(headers) };
}

export async function createSubscription(deps: ManageDeps, req: CreateSubscriptionRequest): Promise<CreateOutcome> {
  const headers = sealedHeaders(deps, req.headers);
  if (headers && "kind" in headers) return headers;
  const bad = await urlProblem(deps, req.url);
  if (bad) return bad;
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const record = newSubscription(newId("sub", now), req, encryptSecret(deps.masterKey, secret), now, headers);
  await deps.stores.subscriptions.put(record.id, record);
  return { kind: "created", subscription: subscriptionView(record), secret };
}

export async function updateSubscription(deps: ManageDeps, id: string, patch: PatchSubscriptionRequest): Promise<PatchOutcome> {
  const headers = sealedHeaders(deps, patch.headers);
  if (headers && "kind" in headers) return headers;
  if (patch.url !== undefined) {
    const bad = await urlProblem(deps, patch.url);
    if (bad) return bad;
  }
  const result = await deps.stores.subscriptions.update(id, (current) => patchSubscription(current, patch, deps.clock.now(), headers));
  return result ? { kind: "updated", subscription: subscriptionView(result.value) } : { kind: "not_found" };
}

/** Deletes the subscription; its pending deliveries end failed_permanent with last_error subscription_deleted. */
export async function deleteSubscription(deps: ManageDeps, id: string): Promise<DeleteOutcome> {
  const found = await deps.stores.subscriptions.get(id);
  if (!found) return { kind: "not_found" };
  await deps.stores.subscriptions.delete(id);
  const pending = await deps.pendingDeliveries(id);
  let abandoned = 0;
  for (let i = 0; i < pending.length; i += ABANDON_BATCH) {
    const results = await Promise.all(
      pending
        .slice(i, i + ABANDON_BATCH)
        .map((deliveryId) => deps.stores.deliveries.update(deliveryId, (d) => (d.status === "pending" ? abandonDelivery(d, deps.clock.now(), "subscription_deleted") : null))),
    );
    abandoned += results.filter((r) => r?.changed).length;
  }
  return { kind: "deleted", abandoned };
}

/** A synthetic delivery of the subscription's first event type, sent like any other. */
export async function sendTestDelivery(deps: ManageDeps, id: string): Promise<QueuedOutcome> {
  const found = await deps.stores.subscriptions.get(id);
  const type = found?.value.events[0];
  if (!found || type === undefined) return { kind: "not_found" };
  const now = deps.clock.now();
  const record = newDeliveryRecord({ deliveryId: newId("dlv", now), subscriptionId: id, envelope: testEnvelope(newId("evt", now), type, now), nowMs: now });
  await enqueueDelivery(deps.stores, record);
  return { kind: "queued", deliveryId: record.delivery_id, status: record.status };
}

/** Fires a delivery again: a new delivery id, the same event id and envelope, a fresh attempt budget. */
export async function replayDelivery(deps: ManageDeps, id: string): Promise<QueuedOutcome> {
  const found = await deps.stores.deliveries.get(id);
  if (!found) return { kind: "not_found" };
  const now = deps.clock.now();
  const original = found.value;
  const record = newDeliveryRecord({ deliveryId: newId("dlv", now), subscriptionId: original.subscription_id, envelope: original.envelope, nowMs: now, replayOf: original.delivery_id });
  // Noted on the replayed delivery first, so a bulk recovery that finds it dead-lettered knows the event was sent
  // again (docs/api.md#recovery). A recovery that finds it noted without a record (this enqueue not done yet, or
  // failed) enqueues it itself under this id: the event is sent again once, whichever of the two enqueues first.
  if (!(await deps.stores.deliveries.update(id, (d) => noteReplay(d, record.delivery_id)))) return { kind: "not_found" };
  await enqueueDelivery(deps.stores, record);
  return { kind: "queued", deliveryId: record.delivery_id, status: record.status };
}

/** A new secret, shown once; the old one keeps signing for `graceSeconds` (docs/api.md#secret-rotation). */
export async function rotateSubscriptionSecret(deps: ManageDeps, id: string, graceSeconds: number): Promise<RotateOutcome> {
  const secret = newWebhookSecret();
  const sealed = encryptSecret(deps.masterKey, secret);
  const result = await deps.stores.subscriptions.update(id, (current) => rotateSecret(current, sealed, graceSeconds * 1000, deps.clock.now()));
  if (!result) return { kind: "not_found" };
  return { kind: "rotated", id, secret, previousSecretExpiresAt: result.value.previous_secret_expires_at ?? null };
}
