// The agent protocol: everything an agent says and hears, on subjects that carry its own agent id. Agents run
// on the hosts being investigated, so they are outside the trust boundary: they publish only these subjects
// for their own id, answer only their own plans, and never write a bucket or provision a stream. The agent
// registry (services/runner/registry.ts) is the one writer of the agents bucket; it checks every message
// against these schemas and that the message's agent id is the one in its subject.
//
//   agents.<id>.hello      request  Hello      -> Ack    register or refresh identity (re-sent until acked)
//   agents.<id>.heartbeat  request  Heartbeat  -> Ack    online, last seen, latest snapshot time
//   agents.<id>.bye        request  Bye        -> Ack    a clean stop: offline at once
//   agents.<id>.plan       request  PlanRequest -> PlanReply | PlanError   (the runner asks, the agent answers)
//   snapshots.<id>         JetStream Snapshot            the latest telemetry, kept one per agent
import { Type, type Static } from "typebox";
import { AGENT_ID_PATTERN, AgentId, literalUnion, TAG_KEY_PATTERN } from "../schemas/common.js";
import { checker } from "../validate.js";
import { withoutControlCharacters } from "../control-characters.js";
import { parseDuration } from "../durations.js";

/** Agent ids travel in subject tokens: letters, digits, _ and - only (one pattern for the API and the protocol). */
export { AGENT_ID_PATTERN };

/**
 * When rows were collected: copied into every evidence row of a finding and into the record, so a date, not any text.
 * The runner keeps it in UTC, and replaces one ahead of the answer's arrival by that arrival (services/runner/collect.ts answeredAt).
 */
const CollectedAt = Type.String({ format: "date-time", maxLength: 40 });

export const AGENT_SUBJECTS = {
  hello: (agentId: string) => `agents.${agentId}.hello`,
  heartbeat: (agentId: string) => `agents.${agentId}.heartbeat`,
  bye: (agentId: string) => `agents.${agentId}.bye`,
  plan: (agentId: string) => `agents.${agentId}.plan`,
  snapshot: (agentId: string) => `snapshots.${agentId}`,
};

/** What the registry subscribes to (one queue group across runners: each message is handled once). */
export const REGISTRY_SUBJECTS = { hello: "agents.*.hello", heartbeat: "agents.*.heartbeat", bye: "agents.*.bye" } as const;
export const REGISTRY_QUEUE = "agent-registry";
export type RegistryMessageKind = keyof typeof REGISTRY_SUBJECTS;

/** The agent id a protocol subject carries (`agents.<id>.<verb>` or `snapshots.<id>`), or null. */
export function subjectAgentId(subject: string): string | null {
  const parts = subject.split(".");
  const id = parts[0] === "agents" && parts.length === 3 ? parts[1] : parts[0] === "snapshots" && parts.length === 2 ? parts[1] : undefined;
  return id !== undefined && new RegExp(AGENT_ID_PATTERN).test(id) ? id : null;
}

// ---- registration -------------------------------------------------------------------------------

/**
 * The heartbeat periods a hello may promise. INQUEST_HEARTBEAT_INTERVAL and `inquest agent|fleet --heartbeat` are
 * held to them at start: outside them the agent connected, its hello was refused, and only then did it fail.
 */
export const HEARTBEAT_RANGE = ["100ms", "1h"] as const;
const [HEARTBEAT_MIN_MS, HEARTBEAT_MAX_MS] = HEARTBEAT_RANGE.map((d) => parseDuration(d) as number) as [number, number];

/**
 * Text an agent declares (its hostname, tag keys and values, EDR device id): anything a host, a tag or a device could
 * be named, but no control characters (C0, DEL, C1) and no bidirectional overrides or isolates. It is quoted in
 * narratives, reports, the console and the CLI's terminal output, where a newline would forge a line and an override
 * would reverse what an analyst reads.
 */
const DECLARED_TEXT = withoutControlCharacters("+");
const DECLARED_TEXT_OR_EMPTY = withoutControlCharacters("*");

export const Hello = Type.Object({
  agent_id: AgentId,
  hostname: Type.String({ minLength: 1, maxLength: 255, pattern: DECLARED_TEXT }),
  // A tag key follows the rule of a scope's tag names (shared/schemas/common.ts): every declared tag can be selected.
  tags: Type.Record(Type.String({ pattern: TAG_KEY_PATTERN }), Type.String({ maxLength: 256, pattern: DECLARED_TEXT_OR_EMPTY }), { maxProperties: 64, additionalProperties: false }),
  edr_device_id: Type.Union([Type.String({ minLength: 1, maxLength: 256, pattern: DECLARED_TEXT }), Type.Null()]),
  /** How often the agent promises to heartbeat; it is marked offline after three missed beats. */
  heartbeat_interval_ms: Type.Integer({ minimum: HEARTBEAT_MIN_MS, maximum: HEARTBEAT_MAX_MS }),
});
export type Hello = Static<typeof Hello>;

export const Heartbeat = Type.Object({
  agent_id: AgentId,
  /**
   * `collected_at` of the latest snapshot the agent published, or null. The registry records it in UTC, and not at
   * all when it is ahead of its own clock (services/runner/registry.ts claimedSnapshotTime).
   */
  snapshot_collected_at: Type.Union([CollectedAt, Type.Null()]),
});
export type Heartbeat = Static<typeof Heartbeat>;

export const Bye = Type.Object({ agent_id: AgentId });
export type Bye = Static<typeof Bye>;

export const REGISTRY_ERRORS = ["invalid_message", "agent_mismatch", "unknown_agent", "unavailable"] as const;
export type RegistryErrorCode = (typeof REGISTRY_ERRORS)[number];

/** The registry's answer. `unknown_agent` to a heartbeat: say hello again (the record is gone). */
export const Ack = Type.Union([
  Type.Object({ ok: Type.Literal(true) }),
  Type.Object({
    ok: Type.Literal(false),
    error: Type.Object({ code: literalUnion(REGISTRY_ERRORS), message: Type.String() }),
  }),
]);
export type Ack = Static<typeof Ack>;

// ---- plans and snapshots --------------------------------------------------------------------------

/**
 * A row: any JSON object (its keys are strings, its values anything, bounded in depth by rowsWithinDepth). Written
 * as an object with no declared properties rather than a record of unknown values, which says the same of JSON but
 * compiles to a check that walks each row's entries (an array per row, a pair per value, a regex per key): over
 * 10,000 plan answers a run, the runner's largest source of garbage (docs/architecture.md#runner-memory).
 */
const Row = Type.Unsafe<Record<string, unknown>>(Type.Object({}));
const TablesSchema = Type.Record(Type.String(), Type.Array(Row));
/** osquery-shaped tables: name -> rows. */
export type Tables = Record<string, Array<Record<string, unknown>>>;

/** How deep the values of a row may nest (osquery's are flat): deeper, the answer is refused. */
export const MAX_ROW_DEPTH = 8;

/**
 * Whether every value of every row nests at most `max` levels (a value in a row is level 1). An agent's answer can
 * nest 100,000 levels deep, which JSON.parse takes and JSON.stringify, later, would not: the walk goes no deeper
 * than `max`, so its recursion is bounded. It allocates nothing (it runs on every answer of every run).
 */
export function rowsWithinDepth(tables: Tables, max = MAX_ROW_DEPTH): boolean {
  for (const name in tables) {
    const rows = tables[name] as Array<Record<string, unknown>>;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Record<string, unknown>;
      for (const key in row) if (!nestsWithin(row[key], 1, max)) return false;
    }
  }
  return true;
}

function nestsWithin(value: unknown, depth: number, max: number): boolean {
  if (value === null || typeof value !== "object") return true;
  if (depth >= max) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!nestsWithin(value[i], depth + 1, max)) return false;
    return true;
  }
  const fields = value as Record<string, unknown>;
  for (const key in fields) if (!nestsWithin(fields[key], depth + 1, max)) return false;
  return true;
}

/** Tables cut short to fit the server's max_payload (largest tables halved first). */
const Truncated = Type.Optional(Type.Array(Type.String()));

export const Snapshot = Type.Object({
  agent_id: Type.String(),
  hostname: Type.String(),
  collected_at: CollectedAt,
  tables: TablesSchema,
  truncated: Truncated,
});
export type Snapshot = Static<typeof Snapshot>;

export const PlanRequest = Type.Object({
  investigation_id: Type.String(),
  tables: Type.Array(Type.String()),
  deadline_ms: Type.Integer(),
});
export type PlanRequest = Static<typeof PlanRequest>;

export const PlanReply = Type.Object({
  agent_id: Type.String(),
  collected_at: CollectedAt,
  tables: TablesSchema,
  truncated: Truncated,
});
export type PlanReply = Static<typeof PlanReply>;

export const PLAN_ERRORS = ["invalid_plan", "deadline_passed", "failed"] as const;

/** A plan the agent will not run: answered at once, so the runner does not wait out its deadline. */
export const PlanError = Type.Object({
  agent_id: Type.String(),
  error: Type.Object({ code: literalUnion(PLAN_ERRORS), message: Type.String() }),
});
export type PlanError = Static<typeof PlanError>;

export const helloChecker = checker(Hello);
export const heartbeatChecker = checker(Heartbeat);
export const byeChecker = checker(Bye);
export const ackChecker = checker(Ack);
export const planRequestChecker = checker(PlanRequest);
