// `generic`: the caller says what to investigate. Body `{query, agent_ids?, scope?, depth?, mode?,
// idempotency_key?}`. The URL key is the credential; an endpoint created with a signing secret also verifies
// `X-Hub-Signature-256` (HMAC-SHA256 of the raw body, the ci provider's scheme), which any poster can compute.
// docs/api.md#inbound.

import { Type } from "typebox";
import { AgentId, MAX_SCOPE_AGENT_IDS, Scope } from "../../schemas/common.js";
import { checker, type ValidationDetail } from "../../validate.js";
import { DEPTHS, MODES } from "./types.js";
import type { Depth, Interpretation, Mode, Provider } from "./types.js";
import { verifyHubSignature } from "./ci.js";
import { isObject, MAX_QUERY_CHARS } from "./payload.js";
import type { JsonObject } from "./payload.js";

const MAX_IDEMPOTENCY_KEY_CHARS = 255;
/** Longest detail path or message echoed back (a path may carry a client's tag name of any length). */
const MAX_DETAIL_CHARS = 300;

/** The investigations API's own scope schema: tag key pattern and count, value lengths, agent ids and their count. */
const scopeChecker = checker(Scope);
/** Top-level `agent_ids`: the same bounds as `scope.filter.agent_ids` (1..1000 agent ids). */
const agentIdsChecker = checker(Type.Array(AgentId, { minItems: 1, maxItems: MAX_SCOPE_AGENT_IDS }));

type Field<T> = { ok: true; value: T | undefined } | { ok: false; invalid: Interpretation };

const invalid = (path: string, message: string, details?: ValidationDetail[]): { ok: false; invalid: Interpretation } => ({
  ok: false,
  invalid: { kind: "invalid", path, message, ...(details !== undefined ? { details } : {}) },
});

const short = (text: string): string => (text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS - 1)}…`);

/** The validator's details, re-rooted at `base` (a JSON pointer into the body) and kept short. */
function rooted(base: string, details: ValidationDetail[]): ValidationDetail[] {
  return details.map((d) => ({ path: short(d.path === "/" ? base : `${base}${d.path}`), message: short(d.message) }));
}

function failed(base: string, message: string, details: ValidationDetail[]): { ok: false; invalid: Interpretation } {
  const all = rooted(base, details.length > 0 ? details : [{ path: "/", message }]);
  return invalid(all[0]?.path ?? base, message, all);
}


function readAgentIds(value: unknown): Field<string[]> {
  if (value === undefined) return { ok: true, value: undefined };
  const checked = agentIdsChecker.check(value);
  if (!checked.ok) return failed("/agent_ids", "agent_ids must be an array of 1..1000 agent ids (1..128 of A-Z a-z 0-9 _ -)", checked.details);
  return { ok: true, value: [...checked.value] };
}

function readScope(value: unknown): Field<Scope> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  const checked = scopeChecker.check(value);
  if (!checked.ok) {
    return failed("/scope", 'scope must be {"type": "selector", "filter": {"tags"?: {...}, "agent_ids"?: [...]}} within the documented limits', checked.details);
  }
  const filter: Scope["filter"] = {};
  const { tags, agent_ids } = checked.value.filter;
  // Tag names were checked by the schema (TAG_KEY_PATTERN in shared/schemas/common.ts: a name outside it is an
  // unknown field of the tags record, test/unit/tag-names.test.ts).
  if (tags !== undefined) filter.tags = { ...tags };
  if (agent_ids !== undefined) {
    if (agent_ids.length === 0) return invalid("/scope/filter/agent_ids", "scope.filter.agent_ids must name at least one agent");
    filter.agent_ids = [...agent_ids];
  }
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
  const ids = readAgentIds(body["agent_ids"]);
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

  verify: verifyHubSignature,

  interpret(_req, body, endpoint, receiptId) {
    if (!isObject(body)) return { kind: "invalid", message: "body must be a JSON object with a query" };
    // Its length is the API's to check, as the API counts characters (the trigger does: trigger-request.ts).
    const query = body["query"];
    if (typeof query !== "string" || query.trim() === "") {
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
