// The message catalog: every stream, bucket and subject of the system in one place, each subject with its
// schema. Services validate what they receive against these at the edge.
import { Type, type Static } from "typebox";
import { AGENT_SUBJECTS } from "../agents/protocol.js";
import { RetentionPolicy, StorageType, DiscardPolicy, type StreamConfig } from "@nats-io/jetstream";

const SECOND_NS = 1_000_000_000;
const DAY_NS = 86_400 * SECOND_NS;

/** A stream's configuration; its replica count comes from INQUEST_NATS_REPLICAS at provisioning. */
export type StreamSpec = Pick<StreamConfig, "name" | "subjects" | "retention" | "storage" | "max_age" | "duplicate_window"> &
  Partial<Pick<StreamConfig, "max_msgs_per_subject" | "discard" | "num_replicas" | "no_ack">> & { description: string };

export const STREAMS = {
  /** Public: every event envelope (docs/api.md#public-subjects), retained 30 days. */
  events: {
    name: "EVENTS",
    description: "Every Inquest event envelope on events.<type>",
    subjects: ["events.>"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 30 * DAY_NS,
    duplicate_window: 120 * SECOND_NS,
  },
  /** Internal: investigations waiting for a runner. */
  work: {
    name: "INQ_WORK",
    description: "Investigation work queue",
    subjects: ["work.investigations"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_age: 0,
    duplicate_window: 120 * SECOND_NS,
  },
  /** Internal: the latest telemetry snapshot of each agent. */
  snapshots: {
    name: "INQ_SNAPSHOTS",
    description: "Latest telemetry snapshot per agent",
    subjects: ["snapshots.*"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.Old,
    max_age: 0,
    duplicate_window: 120 * SECOND_NS,
    // Agents publish here, and JetStream would send its publish ack to whatever reply subject they name, as the
    // server, in the services' account: `$KV.inq_agents.<another agent>` stored the ack over that agent's record.
    no_ack: true,
  },
  /** Internal: batches of agents' heartbeat times (shared/agents/presence.ts), kept for the presence window. */
  presence: {
    name: "INQ_PRESENCE",
    description: "Agents' last-seen times, in batches from the registry",
    subjects: ["presence.beats"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 180 * SECOND_NS,
    duplicate_window: 10 * SECOND_NS,
  },
} satisfies Record<string, StreamSpec>;

export interface BucketSpec {
  name: string;
  history: number;
  /** Milliseconds; 0 = keep forever. */
  ttl: number;
}

export const BUCKETS = {
  apiKeys: { name: "inq_api_keys", history: 1, ttl: 0 },
  investigations: { name: "inq_investigations", history: 1, ttl: 0 },
  /** Every finding, in chunks keyed `<investigation_id>.<attempt>.<chunk>`; kept as long as investigations (docs/nats.md#findings). */
  findings: { name: "inq_findings", history: 1, ttl: 0 },
  idempotency: { name: "inq_idempotency", history: 1, ttl: 24 * 3_600_000 },
  agents: { name: "inq_agents", history: 1, ttl: 0 },
} satisfies Record<string, BucketSpec>;

export const SUBJECTS = {
  work: "work.investigations",
  event: (type: string) => `events.${type}`,
  snapshot: AGENT_SUBJECTS.snapshot,
  plan: AGENT_SUBJECTS.plan,
  cancel: (investigationId: string) => `ctl.investigations.${investigationId}.cancel`,
  cancelAll: "ctl.investigations.*.cancel",
  presence: "presence.beats",
};

export const CONSUMERS = {
  runner: { stream: STREAMS.work.name, durable: "runner" },
};

// The agent protocol (hello, heartbeat, plan, snapshot) is defined in shared/agents/protocol.ts.
export { AGENT_ID_PATTERN, PlanReply, PlanRequest, Snapshot } from "../agents/protocol.js";

// ---- message schemas ---------------------------------------------------------------------------

/** A queued investigation; it carries the initial record so a trigger that crashed before writing it still runs. */
export const WorkItem = Type.Object({ investigation_id: Type.String(), record: Type.Optional(Type.Record(Type.String(), Type.Unknown())) });
export type WorkItem = Static<typeof WorkItem>;
