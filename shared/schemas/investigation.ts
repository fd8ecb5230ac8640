// Investigations (docs/api.md#investigations).
import { Type, type Static } from "typebox";
import { Depth, literalUnion, Mode, NextCursor, NullableTimestamp, QueryText, Scope, SeverityName, Timestamp } from "./common.js";

export const INVESTIGATION_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type InvestigationStatus = (typeof INVESTIGATION_STATUSES)[number];
export const TERMINAL_STATUSES: readonly InvestigationStatus[] = ["completed", "failed", "cancelled"];
export const isTerminal = (s: InvestigationStatus): boolean => TERMINAL_STATUSES.includes(s);

export const TRIGGER_SOURCES = ["api", "curiosity", "inbound:generic", "inbound:edr", "inbound:ci"] as const;
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];

export const InvestigationStatusSchema = literalUnion(INVESTIGATION_STATUSES);
export const TriggerSourceSchema = literalUnion(TRIGGER_SOURCES);

export const InvestigationRequest = Type.Object(
  {
    query: QueryText,
    depth: Type.Optional(Depth),
    mode: Type.Optional(Mode),
    scope: Type.Optional(Type.Union([Scope, Type.Null()], { description: "Absent or null: every agent." })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type InvestigationRequest = Static<typeof InvestigationRequest>;

const Recommendation = Type.Object({
  should_rerun_live: Type.Boolean(),
  recommended_scope: Type.Union([Scope, Type.Null()]),
  reason: Type.String(),
});

export const Freshness = Type.Object({
  data_age_seconds: Type.Union([Type.Number(), Type.Null()]),
  stale_agents: Type.Integer(),
  agents_without_snapshot: Type.Integer(),
  recommendation: Recommendation,
});
export type Freshness = Static<typeof Freshness>;

export const Links = Type.Object({ self: Type.String(), cancel: Type.String() });

export const TriggerResponse = Type.Object({
  investigation_id: Type.String(),
  status: Type.Literal("queued"),
  estimated_completion_seconds: Type.Number(),
  links: Links,
  freshness: Type.Optional(Freshness),
});

export const Evidence = Type.Object({ table: Type.String(), row: Type.Record(Type.String(), Type.Unknown()), collected_at: Timestamp });

export const Finding = Type.Object({
  finding_id: Type.String(),
  detection_id: Type.String(),
  title: Type.String(),
  severity: SeverityName,
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  agent_id: Type.String(),
  hostname: Type.String(),
  summary: Type.String(),
  evidence: Type.Array(Evidence),
  attack: Type.Array(Type.String()),
  path: Type.Optional(Type.Array(Type.String())),
  new_since_last_run: Type.Optional(Type.Boolean({ description: "Curiosity runs only: not reported by the previous run of the same item." })),
});
export type Finding = Static<typeof Finding>;

export const Progress = Type.Object({
  phase: Type.String(),
  plans_total: Type.Integer(),
  plans_completed: Type.Integer(),
  agents_targeted: Type.Integer(),
  agents_responded: Type.Integer(),
  agents_unreachable: Type.Integer(),
});
export type Progress = Static<typeof Progress>;

export const Summary = Type.Object({
  narrative: Type.String(),
  severity: SeverityName,
  verdict: Type.Union([Type.Literal("malicious"), Type.Literal("suspicious"), Type.Literal("benign"), Type.Literal("inconclusive")]),
  findings_count: Type.Integer(),
  route: Type.Union([Type.Literal("detections"), Type.Literal("pathfinder"), Type.Literal("both")]),
});
export type Summary = Static<typeof Summary>;

export const Context = Type.Object({
  trigger_source: TriggerSourceSchema,
  trigger_id: Type.Union([Type.String(), Type.Null()]),
  curiosity_id: Type.Union([Type.String(), Type.Null()]),
  inbound_endpoint_id: Type.Union([Type.String(), Type.Null()]),
  previous_investigation_id: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: "Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run).",
    }),
  ),
});
export type Context = Static<typeof Context>;

const InvestigationCore = {
  investigation_id: Type.String(),
  status: InvestigationStatusSchema,
  query: Type.String(),
  depth: Depth,
  mode: Mode,
  scope: Type.Union([Scope, Type.Null()]),
  context: Context,
  started_at: Timestamp,
  running_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  progress: Type.Union([Progress, Type.Null()]),
  summary: Type.Union([Summary, Type.Null()]),
  freshness: Type.Union([Freshness, Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  links: Links,
};

export const InvestigationListItem = Type.Object(InvestigationCore);
export type InvestigationListItem = Static<typeof InvestigationListItem>;

export const InvestigationDetail = Type.Object({
  ...InvestigationCore,
  findings: Type.Array(Finding, {
    description: "The most severe findings, most severe first, up to a bound (100 by default); every finding is at GET /v1/investigations/{id}/findings.",
  }),
  findings_total: Type.Integer({ minimum: 0, description: "How many findings the investigation has; more than `findings.length` when the list is cut at its bound." }),
  report: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: "The engine's full report: routing rationale, severity inputs, paths, coverage gaps, next steps.",
  }),
});
export type InvestigationDetail = Static<typeof InvestigationDetail>;

export const InvestigationList = Type.Object({ investigations: Type.Array(InvestigationListItem), next_cursor: NextCursor });

export const CancelResponse = Type.Object({ ok: Type.Boolean(), status: InvestigationStatusSchema });

export const InvestigationListQuery = Type.Object({
  status: Type.Optional(InvestigationStatusSchema),
  trigger_source: Type.Optional(TriggerSourceSchema),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});
