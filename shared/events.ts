// Publishing events to the EVENTS stream. The event id is the JetStream message id, so a retried publish
// of the same event within the duplicate window is stored once; later repeats carry the same event_id.
import type { JetStreamClient } from "@nats-io/jetstream";
import { iso } from "./clock.js";
import { SUBJECTS } from "./nats/catalog.js";
import type { EventData, EventEnvelope, EventType } from "./schemas/events.js";
import { encodeJson } from "./nats/kvjson.js";

/** An event of `type` with that type's data (the union member is chosen by `type`). */
export function envelope<T extends EventType>(eventId: string, type: T, createdAtMs: number, data: EventData<T>): EventEnvelope {
  // TypeScript does not narrow a generic to one union member; the signature ties `data` to `type`.
  return { event_id: eventId, type, created_at: iso(createdAtMs), data } as EventEnvelope;
}

export async function publishEvent(js: JetStreamClient, event: EventEnvelope): Promise<void> {
  await publishEventBytes(js, event.type, event.event_id, encodeJson(event));
}

/** An event already encoded (findingEventBytes); `eventId` must be the one inside it. */
export async function publishEventBytes(js: JetStreamClient, type: EventType, eventId: string, bytes: Uint8Array): Promise<void> {
  await js.publish(SUBJECTS.event(type), bytes, { msgID: eventId });
}

/**
 * A finding.discovered envelope around a finding already serialized: the same bytes as
 * encodeJson(envelope(eventId, "finding.discovered", createdAtMs, { investigation_id, finding })), without
 * serializing the finding again.
 */
export function findingEventBytes(eventId: string, createdAtMs: number, investigationId: string, findingJson: string | Uint8Array): Uint8Array {
  return findingEventEncoder(createdAtMs, investigationId)(eventId, findingJson);
}

/**
 * findingEventBytes for the findings of one investigation: what every event of it shares is encoded once, and each
 * event is written straight into a buffer of its size (a run over 10,000 hosts announces 10,000 of them).
 */
export function findingEventEncoder(createdAtMs: number, investigationId: string): (eventId: string, findingJson: string | Uint8Array) => Uint8Array {
  const shared = Buffer.from(`,"type":"finding.discovered","created_at":${JSON.stringify(iso(createdAtMs))},"data":{"investigation_id":${JSON.stringify(investigationId)},"finding":`);
  return (eventId, findingJson) => {
    const head = `{"event_id":${JSON.stringify(eventId)}`;
    const headBytes = Buffer.byteLength(head);
    const findingBytes = typeof findingJson === "string" ? Buffer.byteLength(findingJson) : findingJson.length;
    const out = Buffer.allocUnsafe(headBytes + shared.length + findingBytes + CLOSE_FINDING_EVENT.length);
    let at = out.write(head, 0);
    at += shared.copy(out, at);
    if (typeof findingJson === "string") at += out.write(findingJson, at);
    else {
      out.set(findingJson, at);
      at += findingBytes;
    }
    CLOSE_FINDING_EVENT.copy(out, at);
    return out;
  };
}

const CLOSE_FINDING_EVENT = Buffer.from("}}");
