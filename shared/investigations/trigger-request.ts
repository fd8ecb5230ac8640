// What a trigger may ask for: the investigations API's own request schema (docs/api.md#investigations), whoever built
// the request. POST /v1/investigations checks its body against InvestigationRequest before it triggers; an inbound
// provider (from a payload, the endpoint's defaults and the agents its target resolved to) and a curiosity run build
// theirs, so the one trigger path checks every request against the same schema: nothing the API would refuse is
// stored, whichever way it came, and the answer names the field as the API would.
import { Type } from "typebox";
import { InvestigationRequest } from "../schemas/investigation.js";
import { checker, type ValidationDetail } from "../validate.js";
import type { TriggerRequest } from "./trigger.js";

/** The API's request without its idempotency key (a trigger takes the key beside the request). */
const requestChecker = checker(Type.Omit(InvestigationRequest, ["idempotency_key"]));

/** Why the API would refuse this request, as its validation details; null when it would accept it. */
export function triggerRequestInvalid(request: TriggerRequest): ValidationDetail[] | null {
  // The schema speaks of JSON, where an absent field has no key: a field set to undefined here is absent.
  const json: Record<string, unknown> = { query: request.query };
  if (request.depth !== undefined) json.depth = request.depth;
  if (request.mode !== undefined) json.mode = request.mode;
  if (request.scope !== undefined) json.scope = request.scope;
  const checked = requestChecker.check(json);
  return checked.ok ? null : checked.details;
}
