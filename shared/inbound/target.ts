// Where a triggered investigation runs. A provider names a scope, an EDR device or a CI runner:
// - a device resolves to the agent registered with that `edr_device_id`;
// - a CI runner resolves to the agents among the repository's CI runners (the provider's scope: tags
//   `role=ci-runner`, `repository=<full_name>`) whose `hostname` equals the runner's name.
// When nothing matches, the investigation falls back to the provider's scope (the endpoint's default for a
// device, the repository's CI runners for a runner) with a sentence in the query saying so (docs/api.md#inbound).
import type { AgentRecord } from "../agents/record.js";
import { matchesScope } from "../agents/record.js";
import { clip, MAX_QUERY_CHARS } from "./providers/payload.js";
import type { Scope, TriggerInterpretation } from "./providers/types.js";
import { assertNever } from "../never.js";

export interface ResolvedTarget {
  scope: Scope | null;
  query: string;
}

/** The agent directory lookups target resolution needs (shared/agents/directory.ts). */
export interface AgentLookup {
  byEdrDevice(deviceId: string): AgentRecord | null;
  /** Every known agent whose `hostname` is exactly this. */
  byHostname(hostname: string): AgentRecord[];
}

export function resolveTarget(interpretation: TriggerInterpretation, agents: AgentLookup): ResolvedTarget {
  const target = interpretation.target;
  switch (target.kind) {
    case "scope":
      return { scope: interpretation.scope, query: interpretation.query };
    case "edr_device": {
      const agent = agents.byEdrDevice(target.device_id);
      if (agent) return { scope: { type: "selector", filter: { agent_ids: [agent.agent_id] } }, query: interpretation.query };
      const note =
        `No agent is registered with EDR device id ${clip(target.device_id, 100)}, so this investigation covers ` +
        `${describeScope(interpretation.scope)} instead.`;
      return { scope: interpretation.scope, query: withNote(note, interpretation.query) };
    }
    case "ci_runner": {
      const ids = agents
        .byHostname(target.hostname)
        .filter((a) => a.hostname === target.hostname && matchesScope(a, interpretation.scope))
        .map((a) => a.agent_id)
        .sort();
      if (ids.length > 0) return { scope: { type: "selector", filter: { agent_ids: [...new Set(ids)] } }, query: interpretation.query };
      const note =
        `No CI runner agent of ${clip(target.repository, 200)} has hostname "${clip(target.hostname, 100)}", so this ` +
        `investigation covers ${describeSelector(interpretation.scope)} instead.`;
      return { scope: interpretation.scope, query: withNote(note, interpretation.query) };
    }
    default:
      return assertNever(target, "target");
  }
}

/** "the endpoint's default scope (every agent)" / "(tags env=prod)" / "(agents a, b)". */
export function describeScope(scope: Scope | null): string {
  return `the endpoint's default scope (${selectorParts(scope)})`;
}

/** "every agent" / "the agents with tags role=ci-runner, repository=o/r". */
function describeSelector(scope: Scope | null): string {
  const parts = selectorParts(scope);
  return parts === "every agent" ? parts : `the agents with ${parts}`;
}

function selectorParts(scope: Scope | null): string {
  if (scope === null) return "every agent";
  const parts: string[] = [];
  const tags = Object.entries(scope.filter.tags ?? {});
  if (tags.length > 0) parts.push(`tags ${tags.map(([k, v]) => `${k}=${v}`).join(", ")}`);
  const ids = scope.filter.agent_ids ?? [];
  if (ids.length > 0) parts.push(`agents ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}`);
  return parts.length > 0 ? clip(parts.join("; "), 300) : "every agent";
}

/** The note first, then as much of the query as still fits the 2000-character limit. */
function withNote(note: string, query: string): string {
  return `${note} ${clip(query, MAX_QUERY_CHARS - note.length - 1)}`;
}

