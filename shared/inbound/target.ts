// Where a triggered investigation runs. A provider names a scope, an EDR device or a CI runner:
// - a device resolves to the agents registered with that `edr_device_id`;
// - a CI runner resolves to the agents among the repository's CI runners (the provider's scope: tags
//   `role=ci-runner`, `repository=<full_name>`) whose `hostname` equals the runner's name.
// Agents declare their device id and hostname themselves, with nothing making them unique: when several claim
// the one named, all of them are investigated (never the first to register, which could be an impersonator hiding
// the real host) and a sentence in the query says so. When nothing matches, or more agents match than a scope may
// name (MAX_SCOPE_AGENT_IDS: a scope the API itself would refuse), the investigation falls back to the provider's
// scope (the endpoint's default for a device, the repository's CI runners for a runner) with a sentence in the
// query saying so (docs/api.md#inbound).
import type { AgentRecord } from "../agents/record.js";
import { matchesScope } from "../agents/record.js";
import { MAX_SCOPE_AGENT_IDS } from "../schemas/common.js";
import { clip, MAX_QUERY_CHARS } from "./providers/payload.js";
import type { Scope, TriggerInterpretation } from "./providers/types.js";
import { assertNever } from "../never.js";

export interface ResolvedTarget {
  scope: Scope | null;
  query: string;
}

/** The agent directory lookups target resolution needs (shared/agents/directory.ts). */
export interface AgentLookup {
  /** Every known agent that declared this `edr_device_id`. */
  byEdrDevice(deviceId: string): AgentRecord[];
  /** Every known agent whose `hostname` is exactly this. */
  byHostname(hostname: string): AgentRecord[];
}

/** Why a target that matched falls back all the same: its agents could not be named in a scope the API accepts. */
const overBound = `(more than the ${MAX_SCOPE_AGENT_IDS} agents a scope may name)`;

export function resolveTarget(interpretation: TriggerInterpretation, agents: AgentLookup): ResolvedTarget {
  const target = interpretation.target;
  switch (target.kind) {
    case "scope":
      return { scope: interpretation.scope, query: interpretation.query };
    case "edr_device": {
      const ids = idsOf(agents.byEdrDevice(target.device_id).filter((a) => a.edr_device_id === target.device_id));
      const device = clip(target.device_id, 100);
      if (ids.length > 0 && ids.length <= MAX_SCOPE_AGENT_IDS) {
        const claimed = `${ids.length} agents claim EDR device id ${device} (${idList(ids)}), so this investigation covers all of them.`;
        return targeted(ids, claimed, interpretation.query);
      }
      const found = ids.length === 0 ? `No agent is registered with EDR device id ${device}` : `${ids.length} agents claim EDR device id ${device} ${overBound}`;
      const note = `${found}, so this investigation covers ${describeScope(interpretation.scope)} instead.`;
      return { scope: interpretation.scope, query: withNote(note, interpretation.query) };
    }
    case "ci_runner": {
      const ids = idsOf(agents.byHostname(target.hostname).filter((a) => a.hostname === target.hostname && matchesScope(a, interpretation.scope)));
      const repository = clip(target.repository, 200);
      const hostname = clip(target.hostname, 100);
      if (ids.length > 0 && ids.length <= MAX_SCOPE_AGENT_IDS) {
        const claimed = `${ids.length} CI runner agents of ${repository} have hostname "${hostname}" (${idList(ids)}), so this investigation covers all of them.`;
        return targeted(ids, claimed, interpretation.query);
      }
      const found = ids.length === 0 ? `No CI runner agent of ${repository} has hostname "${hostname}"` : `${ids.length} CI runner agents of ${repository} have hostname "${hostname}" ${overBound}`;
      const note = `${found}, so this investigation covers ${describeSelector(interpretation.scope)} instead.`;
      return { scope: interpretation.scope, query: withNote(note, interpretation.query) };
    }
    default:
      return assertNever(target, "target");
  }
}

/** The agents, by id; with the note that several claimed the target when more than one did. */
function targeted(ids: string[], severalNote: string, query: string): ResolvedTarget {
  return { scope: { type: "selector", filter: { agent_ids: ids } }, query: ids.length > 1 ? withNote(severalNote, query) : query };
}

function idsOf(agents: AgentRecord[]): string[] {
  return [...new Set(agents.map((a) => a.agent_id))].sort();
}

/** "a, b, c, d, e and 2 more". */
function idList(ids: string[]): string {
  return clip(`${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}`, 300);
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
  if (ids.length > 0) parts.push(`agents ${idList(ids)}`);
  return parts.length > 0 ? clip(parts.join("; "), 300) : "every agent";
}

/** The note first, then as much of the query as still fits the 2000-character limit. */
function withNote(note: string, query: string): string {
  return `${note} ${clip(query, MAX_QUERY_CHARS - note.length - 1)}`;
}

