// Agent lifecycle events ride in the agent's own record: a state change and its event are written in one
// compare-and-set, then published, then cleared. A crash in between leaves the event in the record, and the
// next flush (by the agent, or by any runner's liveness sweep) publishes it with the same event id.
import type { JetStreamClient } from "@nats-io/jetstream";
import { envelope, publishEvent } from "../events.js";
import { newId } from "../ids.js";
import type { JsonKv } from "../nats/kvjson.js";
import type { EventEnvelope } from "../schemas/events.js";
import { agentView, isAgentRecord, type AgentRecord } from "./record.js";

export type AgentEventType = "agent.registered" | "agent.connected" | "agent.disconnected";

/** The record with `type` queued in its outbox, the event carrying the record as it now is. */
export function withEvent(r: AgentRecord, type: AgentEventType, nowMs: number): AgentRecord {
  const event = envelope(newId("evt", nowMs), type, nowMs, agentView(r));
  return { ...r, outbox: [...(r.outbox ?? []), event] };
}

/** Publishes what the record's outbox holds, then removes exactly those events. */
export async function flushOutbox(registry: JsonKv<AgentRecord>, js: JetStreamClient, agentId: string): Promise<void> {
  const current = await registry.get(agentId);
  // A value not of the record's shape has no outbox to trust (its agent's next hello replaces it).
  const pending: EventEnvelope[] = current && isAgentRecord(current.value) ? (current.value.outbox ?? []) : [];
  if (pending.length === 0) return;
  for (const event of pending) await publishEvent(js, event);
  const sent = new Set(pending.map((e) => e.event_id));
  await registry.update(agentId, (r) => {
    if (!isAgentRecord(r)) return null;
    const rest = (r.outbox ?? []).filter((e) => !sent.has(e.event_id));
    return rest.length === (r.outbox ?? []).length ? null : { ...r, outbox: rest };
  });
}
