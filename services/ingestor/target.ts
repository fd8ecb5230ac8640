// Where a triggered investigation runs. A provider names either a scope or an EDR device; a device resolves to
// the agent registered with that `edr_device_id`, and an unknown device falls back to the provider's scope (the
// endpoint's default) with a sentence in the query saying so (CONTRACT §6).
import type { AgentRecord } from "../../shared/agents/record.js";
import { clip, MAX_QUERY_CHARS } from "./providers/payload.js";
import type { Scope, TriggerInterpretation } from "./providers/types.js";

export interface ResolvedTarget {
  scope: Scope | null;
  query: string;
}

export function resolveTarget(interpretation: TriggerInterpretation, byEdrDevice: (deviceId: string) => AgentRecord | null): ResolvedTarget {
  const target = interpretation.target;
  switch (target.kind) {
    case "scope":
      return { scope: interpretation.scope, query: interpretation.query };
    case "edr_device": {
      const agent = byEdrDevice(target.device_id);
      if (agent) return { scope: { type: "selector", filter: { agent_ids: [agent.agent_id] } }, query: interpretation.query };
      const note =
        `No agent is registered with EDR device id ${clip(target.device_id, 100)}, so this investigation covers ` +
        `${describeScope(interpretation.scope)} instead.`;
      return { scope: interpretation.scope, query: withNote(note, interpretation.query) };
    }
    default:
      return assertNever(target);
  }
}

/** "the endpoint's default scope (every agent)" / "(tags env=prod)" / "(agents a, b)". */
export function describeScope(scope: Scope | null): string {
  if (scope === null) return "the endpoint's default scope (every agent)";
  const parts: string[] = [];
  const tags = Object.entries(scope.filter.tags ?? {});
  if (tags.length > 0) parts.push(`tags ${tags.map(([k, v]) => `${k}=${v}`).join(", ")}`);
  const ids = scope.filter.agent_ids ?? [];
  if (ids.length > 0) parts.push(`agents ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}`);
  return `the endpoint's default scope (${parts.length > 0 ? clip(parts.join("; "), 300) : "every agent"})`;
}

/** The note first, then as much of the query as still fits the 2000-character limit. */
function withNote(note: string, query: string): string {
  return `${note} ${clip(query, MAX_QUERY_CHARS - note.length - 1)}`;
}

function assertNever(x: never): never {
  throw new Error(`unexpected target ${JSON.stringify(x)}`);
}
