// The agent registry record (docs/api.md#agents), kept in the agents KV bucket under the agent id.
import type { Scope } from "../schemas/common.js";
import type { EventEnvelope } from "../schemas/events.js";

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
  /** Lifecycle events written with the state change and not yet published (shared/agents/outbox.ts). */
  outbox?: EventEnvelope[];
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

export function resolveScope(agents: AgentRecord[], scope: Scope | null | undefined): AgentRecord[] {
  return agents.filter((a) => matchesScope(a, scope)).sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0));
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

const AGENT_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** Agent ids travel in subject tokens (agents.<id>.plan, snapshots.<id>): letters, digits, _ and - only. */
export function assertAgentId(id: string): void {
  if (!AGENT_ID_RE.test(id)) throw new Error(`agent id ${JSON.stringify(id)} must be 1 to 128 of A-Z a-z 0-9 _ -`);
}
