// Each event type's payload as a TypeBox schema (docs/api.md#event-types): the OpenAPI `webhooks` section and
// GET /v1/webhooks/event-types are built from these. The compile-time checks below keep them equal to the
// types producers build events with (shared/schemas/events.ts), so a change to one that misses the other fails
// the build.
import { Type, type Static, type TSchema } from "typebox";
import { Timestamp } from "./common.js";
import { EVENT_TYPES, type AgentEventData, type EventType, type FindingEventData, type InvestigationEventData, type SubscriptionEventData, type DeliveryEventData, EventTypeSchema } from "./events.js";
import { Finding, InvestigationListItem } from "./investigation.js";

export const InvestigationEventPayload = Type.Pick(InvestigationListItem, [
  "investigation_id",
  "status",
  "query",
  "depth",
  "mode",
  "scope",
  "context",
  "started_at",
  "completed_at",
  "summary",
]);

export const FindingEventPayload = Type.Object({ investigation_id: Type.String(), finding: Finding });

export const AgentEventPayload = Type.Object({
  agent_id: Type.String(),
  hostname: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  edr_device_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal("online"), Type.Literal("offline")]),
  last_seen_at: Type.Union([Timestamp, Type.Null()]),
  snapshot_collected_at: Type.Union([Timestamp, Type.Null()]),
});

export const SubscriptionEventPayload = Type.Object({
  subscription_id: Type.String(),
  url: Type.String(),
  reason: Type.Union([Type.Literal("endpoint_gone"), Type.Literal("failing")], {
    description: "endpoint_gone: it answered 410 Gone; failing: every attempt failed for INQUEST_DISABLE_FAILING_AFTER (default 5 days).",
  }),
  delivery_id: Type.String({ description: "The delivery whose attempt disabled the subscription." }),
  disabled_at: Timestamp,
});

export const DeliveryEventPayload = Type.Object({
  delivery_id: Type.String(),
  subscription_id: Type.String(),
  event_id: Type.String({ description: "The event the delivery carried." }),
  event_type: EventTypeSchema,
  attempt_count: Type.Integer({ minimum: 0 }),
  last_response_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const investigationAgrees: Same<Static<typeof InvestigationEventPayload>, InvestigationEventData> = true;
const findingAgrees: Same<Static<typeof FindingEventPayload>, FindingEventData> = true;
const agentAgrees: Same<Static<typeof AgentEventPayload>, AgentEventData> = true;
const subscriptionAgrees: Same<Static<typeof SubscriptionEventPayload>, SubscriptionEventData> = true;
const deliveryAgrees: Same<Static<typeof DeliveryEventPayload>, DeliveryEventData> = true;
void [investigationAgrees, findingAgrees, agentAgrees, subscriptionAgrees, deliveryAgrees];

const DESCRIPTIONS: Record<EventType, string> = {
  "investigation.queued": "An investigation was accepted and queued.",
  "investigation.started": "A runner started the investigation.",
  "investigation.completed": "The investigation finished; `summary` holds the outcome.",
  "investigation.failed": "The investigation failed.",
  "investigation.cancelled": "The investigation was cancelled.",
  "finding.discovered": "An investigation found something.",
  "agent.registered": "An agent said hello for the first time.",
  "agent.connected": "An agent came (back) online.",
  "agent.disconnected": "An agent stopped sending heartbeats.",
  "subscription.disabled": "The dispatcher disabled a subscription: its endpoint answered 410 Gone, or every attempt failed for days. PATCH `active: true` turns it back on.",
  "delivery.dead_lettered": "A webhook delivery failed for good (five failed attempts, or a permanent 4xx); replay it once the endpoint is fixed. Not sent for deliveries of this event type itself.",
};

function payloadOf(type: EventType): TSchema {
  if (type.startsWith("investigation.")) return InvestigationEventPayload;
  if (type === "finding.discovered") return FindingEventPayload;
  if (type === "subscription.disabled") return SubscriptionEventPayload;
  if (type === "delivery.dead_lettered") return DeliveryEventPayload;
  return AgentEventPayload;
}

/** The envelope of one event type, with that type's payload as `data`. */
export function eventEnvelopeSchema(type: EventType): TSchema {
  return Type.Object(
    {
      event_id: Type.String(),
      type: Type.Literal(type),
      created_at: Timestamp,
      data: payloadOf(type),
      test: Type.Optional(Type.Boolean({ description: "true on test deliveries" })),
    },
    { description: DESCRIPTIONS[type] },
  );
}

export interface EventTypeEntry {
  type: EventType;
  description: string;
  schema: TSchema;
}

export const EVENT_CATALOG: EventTypeEntry[] = EVENT_TYPES.map((type) => ({ type, description: DESCRIPTIONS[type], schema: eventEnvelopeSchema(type) }));
