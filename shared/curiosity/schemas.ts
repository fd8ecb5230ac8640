// Curiosity items (docs/api.md#curiosity): the request bodies the gateway validates and the item it returns.
import { Type, type Static } from "typebox";
import { Depth, NextCursor, QueryText, Scope, Timestamp } from "../schemas/common.js";

/** docs/api.md#curiosity: a number plus unit; the configured minimum is checked on top of the pattern. */
export const INTERVAL_PATTERN = "^[1-9][0-9]*(s|m|h|d|w)$";

const Query = QueryText;
const Interval = Type.String({ pattern: INTERVAL_PATTERN, description: "Recurrence: a number plus s, m, h, d or w, at least INQUEST_CURIOSITY_MIN_INTERVAL." });
const FirstRunAt = Type.String({ format: "date-time", description: "RFC 3339 time of the first run; default: immediately." });
const ItemScope = Type.Union([Scope, Type.Null()], { description: "Agent selector; absent or null = every agent." });

export const CuriosityCreate = Type.Object(
  {
    query: Query,
    interval: Interval,
    scope: Type.Optional(ItemScope),
    depth: Type.Optional(Depth),
    first_run_at: Type.Optional(FirstRunAt),
    active: Type.Optional(Type.Boolean({ description: "false pauses without deleting; default true." })),
  },
  { additionalProperties: false },
);
export type CuriosityCreate = Static<typeof CuriosityCreate>;

/** The create fields, each optional (derived, so the two cannot drift apart). */
export const CuriosityPatch = Type.Partial(CuriosityCreate, {
  additionalProperties: false,
  description: "Any subset of the create fields; only included fields change.",
});
export type CuriosityPatch = Static<typeof CuriosityPatch>;

export const CuriosityItem = Type.Object({
  id: Type.String(),
  query: Type.String(),
  interval: Type.String(),
  scope: Type.Union([Scope, Type.Null()]),
  depth: Depth,
  first_run_at: Timestamp,
  active: Type.Boolean(),
  next_run_at: Type.String({ format: "date-time", description: "When the item is next due (while a run is in flight: when that run was due). List order key." }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_run_at: Type.Union([Timestamp, Type.Null()], { description: "When the last finished run ended." }),
  last_investigation_id: Type.Union([Type.String(), Type.Null()]),
  run_count: Type.Integer({ minimum: 0, description: "Finished runs." }),
});
export type CuriosityItem = Static<typeof CuriosityItem>;

export const CuriosityList = Type.Object({ items: Type.Array(CuriosityItem), next_cursor: NextCursor });

export const CuriosityListQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});
