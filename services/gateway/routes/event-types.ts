// The event-type catalog (docs/api.md#event-types): every type with its envelope's JSON Schema, from the same
// TypeBox schemas as the OpenAPI `webhooks` section (shared/schemas/event-payloads.ts).
import { Type } from "typebox";
import { EVENT_CATALOG } from "../../../shared/schemas/event-payloads.js";
import { EventTypeSchema } from "../../../shared/schemas/events.js";
import { ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";

export const EventTypeList = Type.Object({
  event_types: Type.Array(
    Type.Object({
      type: EventTypeSchema,
      description: Type.String(),
      schema: Type.Record(Type.String(), Type.Unknown(), { description: "JSON Schema (2020-12) of the envelope, `data` included." }),
    }),
  ),
});

export function eventTypeRoutes(): Route[] {
  const body = { event_types: EVENT_CATALOG.map((e) => ({ type: e.type, description: e.description, schema: JSON.parse(JSON.stringify(e.schema)) as unknown })) };
  return [
    route({
      method: "GET",
      path: "/v1/webhooks/event-types",
      access: "webhooks:manage",
      doc: { summary: "List the event types with each envelope's JSON Schema", tags: ["webhooks"], responses: { 200: { description: "Every event type", schema: EventTypeList } } },
      async handle() {
        return ok(body);
      },
    }),
  ];
}
