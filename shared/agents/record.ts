// The agent registry record (docs/api.md#agents), kept in the agents KV bucket under the agent id.
import { Type } from "typebox";
import { AGENT_ID_PATTERN, AgentId, type Scope } from "../schemas/common.js";
import { EventEnvelope as WireEnvelope, type EventEnvelope } from "../schemas/events.js";
import { checker } from "../validate.js";

export type AgentStatus = "online" | "offline";

export interface AgentRecord {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  edr_device_id: string | null;
  status: AgentStatus;
  registered_at: string;
  last_seen_at: string | null;
  snapshot_collected_at: string | null;
  /** How often the agent promises to heartbeat; it is offline after three missed beats. */
  heartbeat_interval_ms: number;
  /** When it last went offline (a bye, or missed heartbeats): it stays offline for a dwell after (registry.ts). */
  offline_since?: string;
  /** Lifecycle events written with the state change and not yet published (shared/agents/outbox.ts). */
  outbox?: EventEnvelope[];
}

/**
 * The shape every reader of a record relies on. Only the registry writes the bucket, but a value of another shape
 * found there (an older bug let an agent have an ack stored over a record) must not stop readers: each skips it
 * (`isAgentRecord`) rather than throw on it, and the agent's next hello replaces it. Times are any text here: they
 * are checked where they come in, and a record from before that check is still a record.
 */
const AgentRecordShape = Type.Object({
  agent_id: AgentId,
  hostname: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  edr_device_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal("online"), Type.Literal("offline")]),
  registered_at: Type.String(),
  last_seen_at: Type.Union([Type.String(), Type.Null()]),
  snapshot_collected_at: Type.Union([Type.String(), Type.Null()]),
  heartbeat_interval_ms: Type.Integer({ minimum: 1 }),
  offline_since: Type.Optional(Type.String()),
  outbox: Type.Optional(Type.Array(WireEnvelope)),
});
const agentRecordShape = checker(AgentRecordShape);

export function isAgentRecord(value: unknown): value is AgentRecord {
  return agentRecordShape.check(value).ok;
}

/** Tags AND together; agent_ids, when given, narrows to those agents. No scope = every agent. */
export function matchesScope(agent: Pick<AgentRecord, "agent_id" | "tags">, scope: Scope | null | undefined): boolean {
  if (!scope) return true;
  const { tags, agent_ids } = scope.filter;
  if (agent_ids && !agent_ids.includes(agent.agent_id)) return false;
  for (const [k, v] of Object.entries(tags ?? {})) {
    if (agent.tags[k] !== v) return false;
  }
  return true;
}

/**
 * The agents in scope, by agent id. Live copies (AgentDirectory) hold only records of the full shape; what is
 * checked here is only what matching reads (an id, tags), so a stray value never throws, at no cost per agent on
 * the trigger path (the full check costs ~10 ms per resolve of 10,000 agents).
 */
export function resolveScope(agents: AgentRecord[], scope: Scope | null | undefined): AgentRecord[] {
  return agents.filter((a) => matchable(a) && matchesScope(a, scope)).sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0));
}

function matchable(a: unknown): boolean {
  const r = a as Partial<AgentRecord> | null;
  return typeof r === "object" && r !== null && typeof r.agent_id === "string" && typeof r.tags === "object" && r.tags !== null;
}

export function agentView(a: AgentRecord): Omit<AgentRecord, "registered_at" | "heartbeat_interval_ms"> {
  return {
    agent_id: a.agent_id,
    hostname: a.hostname,
    tags: a.tags,
    edr_device_id: a.edr_device_id,
    status: a.status,
    last_seen_at: a.last_seen_at,
    snapshot_collected_at: a.snapshot_collected_at,
  };
}

const AGENT_ID_RE = new RegExp(AGENT_ID_PATTERN);

/** Agent ids travel in subject tokens (agents.<id>.plan, snapshots.<id>): letters, digits, _ and - only. */
export function assertAgentId(id: string): void {
  if (!AGENT_ID_RE.test(id)) throw new Error(`agent id ${JSON.stringify(id)} must be 1 to 128 of A-Z a-z 0-9 _ -`);
}
