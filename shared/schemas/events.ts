// Outbound event types and the envelope (CONTRACT §5).
import { Type, type Static } from "typebox";
import { literalUnion, Timestamp } from "./common.js";

export const EVENT_TYPES = [
  "investigation.queued",
  "investigation.started",
  "investigation.completed",
  "investigation.failed",
  "investigation.cancelled",
  "finding.discovered",
  "agent.registered",
  "agent.connected",
  "agent.disconnected",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventTypeSchema = literalUnion(EVENT_TYPES);

export const EventEnvelope = Type.Object({
  event_id: Type.String(),
  type: EventTypeSchema,
  created_at: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown()),
  test: Type.Optional(Type.Boolean()),
});
export type EventEnvelope = Static<typeof EventEnvelope>;
