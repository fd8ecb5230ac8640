// Publishing events to the EVENTS stream. The event id is the JetStream message id, so a retried publish
// of the same event within the duplicate window is stored once; later repeats carry the same event_id.
import type { JetStreamClient } from "@nats-io/jetstream";
import { iso } from "./clock.js";
import { SUBJECTS } from "./nats/catalog.js";
import type { EventEnvelope, EventType } from "./schemas/events.js";
import { encodeJson } from "./nats/kvjson.js";

export function envelope(eventId: string, type: EventType, createdAtMs: number, data: Record<string, unknown>): EventEnvelope {
  return { event_id: eventId, type, created_at: iso(createdAtMs), data };
}

export async function publishEvent(js: JetStreamClient, event: EventEnvelope): Promise<void> {
  await js.publish(SUBJECTS.event(event.type), encodeJson(event), { msgID: event.event_id });
}
