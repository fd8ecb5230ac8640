// Whether an event message is the first copy of its event the EVENTS stream stored, known without asking the bucket.
//
// The fan-out's first attempt reads the delivery record before it POSTs: a second copy of an event (a runner that
// publishes a terminal record's events again after a crash) must not be sent again. That read is a round trip per
// delivery. For most events it cannot find anything, and the message itself proves it:
// - every Inquest event is published with its event id as the JetStream message id (shared/events.ts), and the
//   stream stores a message id once per duplicate window;
// - so a second stored copy was stored at least one window after the first, and the first no earlier than the
//   event was made (`created_at`, the publisher's clock);
// - so a copy stored less than half a window after `created_at` is the first, unless the publisher's clock ran
//   more than half a window (60 s on EVENTS) ahead of the server's.
// Anything else (no message id, one that is not the event id, an older event, a bad date) keeps the read. Were the
// clocks that far apart, the worst case is one more POST of the same event_id, which at-least-once allows.
//
// That proves no other copy was fanned out; the message itself must not have been either (`isFirstDelivery`). A
// redelivery says so (a delivery count above 1), but a fan-out durable deleted and made again delivers the stream's
// whole history once more, each message with a delivery count of 1. So the message must also have been stored after
// the durable delivering it was created, and be fresh: received within seconds of being stored. The second bound
// covers a replica whose idea of the durable's creation is stale (another replica made it again): at worst the
// events of the last seconds before the durable was made again are sent once more, with the same event_id.
import type { JsMsg } from "@nats-io/jetstream";
import { STREAMS } from "../../shared/nats/catalog.js";

const MSG_ID_HEADER = "Nats-Msg-Id";

/** Half the EVENTS stream's duplicate window, in ms: the skew between a publisher's clock and the server's allowed. */
export const FIRST_COPY_HORIZON_MS = STREAMS.events.duplicate_window / 1_000_000 / 2;

export function isFirstStoredCopy(event: { event_id: string; created_at: string }, msgId: string | undefined, storedAtMs: number, horizonMs = FIRST_COPY_HORIZON_MS): boolean {
  if (!msgId || msgId !== event.event_id) return false;
  const createdMs = Date.parse(event.created_at);
  return Number.isFinite(createdMs) && Number.isFinite(storedAtMs) && storedAtMs - createdMs < horizonMs;
}

/** How soon after it was stored a message must reach the fan-out to skip the read (a backlog keeps the read). */
export const FIRST_DELIVERY_FRESH_MS = 10_000;
/** Messages stored this soon after the durable was created keep the read (the server's clocks may differ a little). */
export const CONSUMER_CREATED_MARGIN_MS = 1_000;

/**
 * Whether this delivery of the message is the first there has been to any fan-out: not a redelivery, stored after
 * the durable delivering it was created (`consumerCreatedMs`, null when unknown: no), and received (`nowMs`, this
 * process's clock) less than FIRST_DELIVERY_FRESH_MS after it was stored.
 */
export function isFirstDelivery(storedAtMs: number, opts: { redelivered: boolean; consumerCreatedMs: number | null; nowMs: number }): boolean {
  if (opts.redelivered || opts.consumerCreatedMs === null || !Number.isFinite(storedAtMs)) return false;
  return storedAtMs > opts.consumerCreatedMs + CONSUMER_CREATED_MARGIN_MS && opts.nowMs - storedAtMs < FIRST_DELIVERY_FRESH_MS;
}

/** The message id a stream message was published with, if any. */
export function messageIdOf(msg: Pick<JsMsg, "headers">): string | undefined {
  return msg.headers?.get(MSG_ID_HEADER) || undefined;
}
