// The delivery record (docs/api.md#deliveries) and how a delivery comes to exist: a job on the jobs stream whose
// message id is the delivery id and which carries what the record is made of, then the record, created once in
// the deliveries bucket. No crash or failure between the steps can leave a record without a job: a job whose
// record is not there yet creates it, and repeating both steps (a redelivered fan-out) changes nothing. A delivery
// whose first attempt the fan-out made is recorded first and gets a job only if still pending (`recordFirstAttempt`).
import { iso } from "../clock.js";
import { encodeJson } from "../nats/kvjson.js";
import type { WireEnvelope } from "../schemas/events.js";
import { DELIVERY_RETENTION_MS, WEBHOOK_SUBJECTS, type DeliveryJob, type WebhookStores } from "./catalog.js";
import type { DeliveryRecord } from "./delivery-record.js";
import type { Attempt, AttemptList, DeliveryStatus, DeliveryView } from "./schemas.js";

export type { DeliveryRecord };

export function newDeliveryRecord(input: {
  deliveryId: string;
  subscriptionId: string;
  envelope: WireEnvelope;
  nowMs: number;
  replayOf?: string | null;
}): DeliveryRecord {
  const now = iso(input.nowMs);
  return {
    delivery_id: input.deliveryId,
    event_id: input.envelope.event_id,
    event_type: input.envelope.type,
    subscription_id: input.subscriptionId,
    status: "pending",
    attempt_count: 0,
    last_response_code: null,
    last_response_body: null,
    last_error: null,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
    replay_of: input.replayOf ?? null,
    attempts: [],
    envelope: input.envelope,
    internal: { job_seq: null },
  };
}

export function isTerminalDelivery(status: DeliveryStatus): boolean {
  return status !== "pending";
}

/** Re-sends of one delivery its record keeps the ids of (`internal.replays`): the newest, which a recovery looks at. */
export const MAX_REPLAYS_NOTED = 16;

/** The delivery's record with a replay (or a recovery's re-send) made of it noted (`internal.replays`); the view does not change. */
export function noteReplay(r: DeliveryRecord, replayId: string): DeliveryRecord {
  const replays = [...(r.internal.replays ?? []), replayId].slice(-MAX_REPLAYS_NOTED);
  return { ...r, internal: { ...r.internal, replays } };
}

/** The recorded attempt still owes announcing something (`internal.announce_pending`): its job publishes it. */
export function owesAnnouncements(r: DeliveryRecord): boolean {
  return (r.internal.announce_pending?.length ?? 0) > 0;
}

/** The list shape: everything but the envelope and the bookkeeping. */
export function deliveryView(r: DeliveryRecord): DeliveryView {
  return {
    delivery_id: r.delivery_id,
    event_id: r.event_id,
    event_type: r.event_type,
    subscription_id: r.subscription_id,
    status: r.status,
    attempt_count: r.attempt_count,
    last_response_code: r.last_response_code,
    last_response_body: r.last_response_body,
    last_error: r.last_error,
    next_attempt_at: r.next_attempt_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    replay_of: r.replay_of,
    attempts: r.attempts.map((a: Attempt) => ({ ...a })),
  };
}

/** GET /v1/webhooks/deliveries/{id}: the list shape plus the stored envelope. */
export function deliveryDetail(r: DeliveryRecord): DeliveryView & { envelope: WireEnvelope } {
  return { ...deliveryView(r), envelope: r.envelope };
}

/** GET /v1/webhooks/deliveries/{id}/attempts: each attempt with what its answer said. */
export function deliveryAttempts(r: DeliveryRecord): AttemptList {
  const answers = r.internal.answers ?? [];
  return {
    delivery_id: r.delivery_id,
    attempts: r.attempts.map((a, i) => ({ ...a, ...(answers[i] ?? { response_headers: null, response_body: null }) })),
  };
}

/** The job of a delivery, with the seed its record is made of. */
export function deliveryJob(record: DeliveryRecord): DeliveryJob {
  return {
    delivery_id: record.delivery_id,
    subscription_id: record.subscription_id,
    seed: { envelope: record.envelope, created_at: record.created_at, replay_of: record.replay_of },
  };
}

/**
 * The record a job creates when it finds none: exactly the one its publisher creates. Null for a job without a
 * seed, and for one older than the deliveries' retention (its record expired; it is not brought back).
 */
export function recordFromJob(job: DeliveryJob, nowMs: number): DeliveryRecord | null {
  if (!job.seed) return null;
  const createdMs = Date.parse(job.seed.created_at);
  if (!Number.isFinite(createdMs) || createdMs <= nowMs - DELIVERY_RETENTION_MS) return null;
  return newDeliveryRecord({
    deliveryId: job.delivery_id,
    subscriptionId: job.subscription_id,
    envelope: job.seed.envelope,
    nowMs: createdMs,
    replayOf: job.seed.replay_of,
  });
}

/**
 * - `created`: the job was published and the record created.
 * - `requeued`: the record was already there (a repeated fan-out) and its job was published again (the stream's
 *   duplicate window usually stores it once; a copy that slips through is dropped by the owner check).
 * - `exists`: (with `recheck`) a job has already taken the delivery on, or it is over: nothing was published. A
 *   pending record no job has taken on yet gets its job published again (a first attempt made by the fan-out, whose
 *   job's publish a crash may have cut off: `recordFirstAttempt`), and so does one whose attempt still owes its
 *   announcements (`owesAnnouncements`: a first attempt whose announcement failed; the job publishes them).
 */
export type EnqueueOutcome = { kind: "created" } | { kind: "requeued" } | { kind: "exists" };

/**
 * Publishes the delivery's job, then creates its record. The job goes first and carries the record's seed, so a
 * publisher that fails or stops after the publish leaves a job that creates the record itself; a failed publish
 * leaves nothing. `recheck` (a fan-out that runs again): a delivery some job already took on is not published
 * again.
 */
export async function enqueueDelivery(
  stores: Pick<WebhookStores, "js" | "deliveries">,
  record: DeliveryRecord,
  opts: { recheck?: boolean } = {},
): Promise<EnqueueOutcome> {
  if (opts.recheck) {
    const r = (await stores.deliveries.get(record.delivery_id))?.value;
    if (r && owesAnnouncements(r)) {
      await publishJob(stores, r);
      return { kind: "requeued" };
    }
    if (r && (r.status !== "pending" || r.internal.job_seq !== null)) return { kind: "exists" };
  }
  await publishJob(stores, record);
  const created = await stores.deliveries.create(record.delivery_id, record);
  return created === null ? { kind: "requeued" } : { kind: "created" };
}

/**
 * Records a delivery whose first attempt the fan-out made itself (services/dispatcher/first-attempt.ts): the record
 * is created with the attempt in it, then, if the delivery is still pending, the job that makes the next attempt is
 * published (it waits for `next_attempt_at`). The record goes first so the job never finds it missing and makes
 * its own first attempt at once. A crash between the two leaves the event unacknowledged: the fan-out runs again,
 * and `enqueueDelivery` with `recheck` publishes the job of a pending record no job has taken on. False when the
 * record was there already (another copy of the fan-out made it, and its job).
 */
export async function recordFirstAttempt(stores: Pick<WebhookStores, "js" | "deliveries">, record: DeliveryRecord): Promise<boolean> {
  if ((await stores.deliveries.create(record.delivery_id, record)) === null) return false;
  if (record.status === "pending") {
    await publishJob(stores, record);
  }
  return true;
}

/**
 * Publishes the job of a pending delivery no job has taken on (a first attempt's whose publish was cut off:
 * `recordFirstAttempt`), or of one whose attempt still owes its announcements; false when there is nothing to
 * repair. For a subscription the fan-out no longer targets when the event comes again (paused since, or turned off
 * by that attempt's 410): its delivery was owed before, and its job waits the pause out (or only announces).
 */
export async function republishLostJob(stores: Pick<WebhookStores, "js" | "deliveries">, deliveryId: string): Promise<boolean> {
  const r = (await stores.deliveries.get(deliveryId))?.value;
  if (!r) return false;
  if (!owesAnnouncements(r) && (r.status !== "pending" || r.internal.job_seq !== null)) return false;
  await publishJob(stores, r);
  return true;
}

/** Publishes the delivery's job (message id = delivery id: the stream's duplicate window stores a repeat once). */
async function publishJob(stores: Pick<WebhookStores, "js">, record: DeliveryRecord): Promise<void> {
  await stores.js.publish(WEBHOOK_SUBJECTS.job(record.subscription_id), encodeJson(deliveryJob(record)), { msgID: record.delivery_id });
}
