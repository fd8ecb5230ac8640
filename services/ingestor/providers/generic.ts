// `generic`: the caller says what to investigate. Body `{query, agent_ids?, scope?, depth?, mode?,
// idempotency_key?}`; no signature scheme (the URL key is the credential). CONTRACT §6.

import { DEPTHS, MODES } from "./types.js";
import type { Depth, Interpretation, Mode, Provider, Scope } from "./types.js";
import { isObject, MAX_QUERY_CHARS } from "./payload.js";
import type { JsonObject } from "./payload.js";

const MAX_IDEMPOTENCY_KEY_CHARS = 255;
const MAX_AGENT_IDS = 1000;

type Field<T> = { ok: true; value: T | undefined } | { ok: false; invalid: Interpretation };

const invalid = (path: string, message: string): { ok: false; invalid: Interpretation } => ({
  ok: false,
  invalid: { kind: "invalid", path, message },
});

function stringList(value: unknown, path: string): Field<string[]> {
  if (value === undefined) return { ok: true, value: undefined };
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_AGENT_IDS) {
    return invalid(path, `${path.slice(1).replaceAll("/", ".")} must be an array of 1..${MAX_AGENT_IDS} agent ids`);
  }
  const ids: string[] = [];
  for (const item of value) {
    if (typeof item !== "string" || item.trim() === "") return invalid(path, "agent ids must be non-empty strings");
    ids.push(item);
  }
  return { ok: true, value: ids };
}

function readScope(value: unknown): Field<Scope> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (!isObject(value) || value["type"] !== "selector" || !isObject(value["filter"])) {
    return invalid("/scope", 'scope must be {"type": "selector", "filter": {"tags"?: {...}, "agent_ids"?: [...]}}');
  }
  const filter: Scope["filter"] = {};
  const tags = value["filter"]["tags"];
  if (tags !== undefined) {
    if (!isObject(tags)) return invalid("/scope/filter/tags", "scope.filter.tags must map tag names to string values");
    const copy: Record<string, string> = {};
    for (const [name, tagValue] of Object.entries(tags)) {
      if (typeof tagValue !== "string") {
        return invalid(`/scope/filter/tags/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`, "scope.filter.tags must map tag names to string values");
      }
      copy[name] = tagValue;
    }
    filter.tags = copy;
  }
  const ids = stringList(value["filter"]["agent_ids"], "/scope/filter/agent_ids");
  if (!ids.ok) return ids;
  if (ids.value !== undefined) filter.agent_ids = ids.value;
  return { ok: true, value: { type: "selector", filter } };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): Field<T> {
  if (value === undefined) return { ok: true, value: undefined };
  const match = allowed.find((a) => a === value);
  return match === undefined ? invalid(path, `${path.slice(1)} must be one of ${allowed.join(", ")}`) : { ok: true, value: match };
}

function readIdempotencyKey(value: unknown): Field<string> {
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    return invalid("/idempotency_key", `idempotency_key must be a string of 1..${MAX_IDEMPOTENCY_KEY_CHARS} characters`);
  }
  return { ok: true, value };
}

/** Top-level `agent_ids` narrows `scope` (or the default scope when there is no `scope`). */
function resolveScope(body: JsonObject, endpointDefault: Scope | null): Field<Scope | null> {
  const scope = readScope(body["scope"]);
  if (!scope.ok) return scope;
  const ids = stringList(body["agent_ids"], "/agent_ids");
  if (!ids.ok) return ids;
  if (ids.value === undefined) return { ok: true, value: scope.value ?? endpointDefault };
  if (scope.value === undefined) return { ok: true, value: { type: "selector", filter: { agent_ids: ids.value } } };
  if (scope.value.filter.agent_ids !== undefined) {
    return invalid("/agent_ids", "give agent_ids either at the top level or in scope.filter, not both");
  }
  return { ok: true, value: { type: "selector", filter: { ...scope.value.filter, agent_ids: ids.value } } };
}

export const genericProvider: Provider<"generic"> = {
  name: "generic",

  verify() {
    return "ok";
  },

  interpret(_req, body, endpoint, receiptId) {
    if (!isObject(body)) return { kind: "invalid", message: "body must be a JSON object with a query" };
    const query = body["query"];
    if (typeof query !== "string" || query.trim() === "" || query.length > MAX_QUERY_CHARS) {
      return { kind: "invalid", path: "/query", message: `query is required: a string of 1..${MAX_QUERY_CHARS} characters` };
    }
    const scope = resolveScope(body, endpoint.default_scope);
    if (!scope.ok) return scope.invalid;
    const depth = oneOf<Depth>(body["depth"], DEPTHS, "/depth");
    if (!depth.ok) return depth.invalid;
    const mode = oneOf<Mode>(body["mode"], MODES, "/mode");
    if (!mode.ok) return mode.invalid;
    const key = readIdempotencyKey(body["idempotency_key"]);
    if (!key.ok) return key.invalid;

    return {
      kind: "trigger",
      query,
      depth: depth.value ?? endpoint.default_depth,
      scope: scope.value ?? null,
      target: { kind: "scope" },
      trigger_id: key.value ?? receiptId,
      ...(key.value !== undefined ? { idempotency_key: key.value } : {}),
      ...(mode.value !== undefined ? { mode: mode.value } : {}),
    };
  },
};
