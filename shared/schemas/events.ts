// Outbound event types and the envelope (docs/api.md#webhooks).
import { Type, type Static } from "typebox";
import { literalUnion, Timestamp } from "./common.js";
import type { Finding, InvestigationListItem } from "./investigation.js";

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
  "subscription.disabled",
  "delivery.dead_lettered",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventTypeSchema = literalUnion(EVENT_TYPES);

/**
 * The envelope as the wire carries it, validated where events are received (the dispatcher) and documented in
 * the API: its `data` is any object, since receivers forward what producers sent.
 */
export const EventEnvelope = Type.Object({
  // Any publisher's id, within what a header and a filter can carry: it is sent as `webhook-id`, and the deliveries
  // list filters on it (1-128 visible ASCII characters; ours are evt_ and a ULID).
  event_id: Type.String({ minLength: 1, maxLength: 128, pattern: "^[\\x21-\\x7e]+$", description: "1-128 visible ASCII characters (no spaces); Inquest's own are evt_ and 26 characters" }),
  type: EventTypeSchema,
  created_at: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown()),
  test: Type.Optional(Type.Boolean()),
});
export type WireEnvelope = Static<typeof EventEnvelope>;

export type InvestigationEventType = Extract<EventType, `investigation.${string}`>;
export type AgentEventType = Extract<EventType, `agent.${string}`>;

/** investigation.* data: the investigation as the list shows it, without progress, freshness, error or links. */
export type InvestigationEventData = Pick<
  InvestigationListItem,
  "investigation_id" | "status" | "query" | "depth" | "mode" | "scope" | "context" | "started_at" | "completed_at" | "summary"
>;

export type FindingEventData = {
  investigation_id: string;
  finding: Finding;
};

/** agent.* data: the agent as GET /v1/agents shows it. */
export type AgentEventData = {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  edr_device_id: string | null;
  status: "online" | "offline";
  last_seen_at: string | null;
  snapshot_collected_at: string | null;
};

/** Why the dispatcher turned a subscription off: its endpoint answered 410 Gone, or every attempt failed for the window. */
export type DisabledReason = "endpoint_gone" | "failing";

/** subscription.disabled data: which subscription the dispatcher turned off, and why (docs/api.md#failing-endpoints). */
export type SubscriptionEventData = {
  subscription_id: string;
  url: string;
  reason: DisabledReason;
  /** The delivery whose attempt disabled it (a 410 Gone, or the last failure of the failing window). */
  delivery_id: string;
  disabled_at: string;
};

/** delivery.dead_lettered data: a webhook delivery that will not be attempted again (docs/api.md#failing-endpoints). */
export type DeliveryEventData = {
  delivery_id: string;
  subscription_id: string;
  event_id: string;
  event_type: EventType;
  attempt_count: number;
  last_response_code: number | null;
  last_error: string | null;
};

/** The data each event type carries (object types, so each is also a WireEnvelope's Record data). */
export type EventData<T extends EventType> = T extends InvestigationEventType
  ? InvestigationEventData
  : T extends "finding.discovered"
    ? FindingEventData
    : T extends AgentEventType
      ? AgentEventData
      : T extends "subscription.disabled"
        ? SubscriptionEventData
        : T extends "delivery.dead_lettered"
          ? DeliveryEventData
          : never;

/**
 * An event as producers build it: a union keyed by `type`, so `event.type === "finding.discovered"` narrows
 * `event.data` to its finding. Every member is a WireEnvelope.
 */
export type EventEnvelope = {
  [T in EventType]: { event_id: string; type: T; created_at: string; data: EventData<T>; test?: boolean };
}[EventType];
