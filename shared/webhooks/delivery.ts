// The delivery record (spec 2.5, CONTRACT §5) and how a delivery comes to exist: a record created once in the
// deliveries bucket, then a job on the jobs stream whose message id is the delivery id. Both steps are safe to
// repeat, so a fan-out, test or replay that crashed half-way is repaired by doing it again.
import { iso } from "../clock.js";
import { encodeJson } from "../nats/kvjson.js";
import type { EventEnvelope } from "../schemas/events.js";
import { WEBHOOK_SUBJECTS, type WebhookStores } from "./catalog.js";
import type { Attempt, DeliveryStatus, DeliveryView } from "./schemas.js";

export interface DeliveryRecord extends DeliveryView {
  /** The exact envelope this delivery sends (stable across replays). */
  envelope: EventEnvelope;
  /** Not shown. */
  internal: {
    /**
     * Stream sequence of the job that owns this delivery, set with its first recorded attempt. A second job
     * for the same delivery (a republish after a crash, outside the duplicate window) sees another owner and
     * is dropped, so attempts are never counted twice.
     */
    job_seq: number | null;
  };
}

export function newDeliveryRecord(input: {
  deliveryId: string;
  subscriptionId: string;
  envelope: EventEnvelope;
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
export function deliveryDetail(r: DeliveryRecord): DeliveryView & { envelope: EventEnvelope } {
  return { ...deliveryView(r), envelope: r.envelope };
}

export type EnqueueOutcome = { kind: "created" } | { kind: "requeued" } | { kind: "exists" };

/**
 * Creates the delivery and its job. When the record already exists (a repeated fan-out) the job is published
 * again only while no job has taken the delivery on; the stream's duplicate window makes that a no-op in the
 * usual case, and a job that slips through is dropped by the owner check (`internal.job_seq`).
 */
export async function enqueueDelivery(stores: Pick<WebhookStores, "js" | "deliveries">, record: DeliveryRecord): Promise<EnqueueOutcome> {
  const created = await stores.deliveries.create(record.delivery_id, record);
  let outcome: EnqueueOutcome = { kind: "created" };
  if (created === null) {
    const existing = await stores.deliveries.get(record.delivery_id);
    const r = existing?.value;
    if (!r || r.status !== "pending" || r.internal.job_seq !== null || r.attempt_count > 0) return { kind: "exists" };
    outcome = { kind: "requeued" };
  }
  await stores.js.publish(WEBHOOK_SUBJECTS.job(record.subscription_id), encodeJson({ delivery_id: record.delivery_id, subscription_id: record.subscription_id }), {
    msgID: record.delivery_id,
  });
  return outcome;
}
