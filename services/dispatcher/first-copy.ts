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

/** The message id a stream message was published with, if any. */
export function messageIdOf(msg: Pick<JsMsg, "headers">): string | undefined {
  return msg.headers?.get(MSG_ID_HEADER) || undefined;
}
