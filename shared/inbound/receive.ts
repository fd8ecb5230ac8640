// One receipt of the inbound receiver, checked in the contract's order (docs/api.md#inbound): unknown provider,
// URL key (and provider match), body size, signature, JSON, inactive endpoint; then the provider decides and a
// recognised event is triggered through the one trigger path. Every answer is a value the gateway maps to HTTP
// (routes/inbound.ts). The providers are pure, so the gateway calls this in process: the body never crosses
// NATS; the only round trips are the endpoint read and the trigger.
import type { AgentRecord } from "../agents/record.js";
import type { Clock } from "../clock.js";
import { newId } from "../ids.js";
import type { InboundProvider } from "./catalog.js";
import type { InboundEndpointRecord } from "./endpoint.js";
import type { ValidationDetail } from "../validate.js";
import { authenticateUrlKey } from "./url-key.js";
import type { TriggerInput, TriggerOutcome } from "../investigations/trigger.js";
import type { Logger } from "../log.js";
import { lookupProvider, triggerSource } from "./providers/registry.js";
import type { InboundEndpointView, InboundRequest, Provider, ProviderName, TriggerInterpretation } from "./providers/types.js";
import { resolveTarget } from "./target.js";
import { assertNever } from "../never.js";
import { BusUnavailableError } from "../errors.js";
import { mediaTypeOf } from "../media-type.js";
import type { SignatureHold } from "./replay-guard.js";

/** The receiver URL's provider names (shared) and the provider registry's names are the same set. */
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const providerNamesAgree: SameSet<ProviderName, InboundProvider> = true;
void providerNamesAgree;

/** One POST to `/v1/webhooks/incoming/<provider>/<key>`. */
export interface ReceiptRequest {
  provider: string;
  key: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The raw body; null when it was over the receiver's limit and not read (answered 413 once the key checks out). */
  body: Buffer | null;
  /** This receipt's id (a provider without an event id uses it as the trigger id); a new one when absent. */
  receiptId?: string;
  /** When the request came (its receipt's `received_at`, the time its signature is checked at); now when absent. */
  receivedAtMs?: number;
  /**
   * A replay of a stored receipt (docs/api.md#inbound-receipts): the signature is checked as at the original
   * receipt's time (its window is skipped) and not claimed again.
   */
  replayOf?: { receivedAtMs: number };
}

/** What the receiver decided; the gateway maps each kind to HTTP in one place (routes/inbound.ts). */
export type ReceiptOutcome =
  | { kind: "unknown_provider" }
  | { kind: "unauthorized" }
  | { kind: "too_large" }
  | { kind: "bad_signature"; provider: string }
  /** A valid signature already accepted once (docs/api.md#inbound-replay-protection): answered as a bad signature. */
  | { kind: "replayed_signature" }
  | { kind: "invalid_json" }
  | { kind: "ignored"; reason: string }
  /** `details`: every problem found (the shared validator's), when there is more than one field to name. */
  | { kind: "invalid"; message: string; path?: string; details?: ValidationDetail[] }
  | { kind: "queued"; investigation_id: string }
  /** A recognised event whose investigation could not be queued (rate limit, idempotency conflict, NATS). */
  | { kind: "not_queued"; reason: string };

export interface ReceiveDeps {
  byPrefix(prefix: string): Promise<InboundEndpointRecord | null>;
  /** Opens a sealed provider signing secret with the master key. */
  openSecret(sealed: string): string;
  /** Every known agent that declared this `edr_device_id` (several may: docs/api.md#inbound). */
  byEdrDevice(deviceId: string): AgentRecord[];
  /** Every known agent with exactly this hostname (a `workflow_job`'s runner, docs/api.md#inbound). */
  byHostname(hostname: string): AgentRecord[];
  trigger(input: TriggerInput): Promise<TriggerOutcome>;
  /**
   * Claims a timestamped signature for this endpoint (shared/inbound/replay-guard.ts); null when a request carrying
   * it was answered before. Absent: no replay protection.
   */
  claimSignature?(endpointId: string, material: string, receiptId: string): Promise<SignatureHold | null>;
  clock: Clock;
  log: Logger;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function receive(deps: ReceiveDeps, req: ReceiptRequest): Promise<ReceiptOutcome> {
  return (await receiveAt(deps, req)).outcome;
}

/** `receive`, also naming the endpoint the URL key authenticated (null when none did): receipts are kept per endpoint. */
export async function receiveAt(deps: ReceiveDeps, req: ReceiptRequest): Promise<{ outcome: ReceiptOutcome; endpoint: InboundEndpointRecord | null }> {
  const provider = lookupProvider(req.provider);
  if (provider === null) return { outcome: { kind: "unknown_provider" }, endpoint: null };
  const endpoint = await authenticateUrlKey(req.key, (prefix) => deps.byPrefix(prefix));
  if (endpoint === null || endpoint.provider !== provider.name) return { outcome: { kind: "unauthorized" }, endpoint: null };
  return { outcome: await decide(deps, req, endpoint), endpoint };
}

/** The checks after the URL key, for an endpoint already authenticated (a replay starts here). */
export async function decide(deps: ReceiveDeps, req: ReceiptRequest, endpoint: InboundEndpointRecord): Promise<ReceiptOutcome> {
  const provider = lookupProvider(endpoint.provider);
  if (provider === null) return { kind: "unknown_provider" };
  if (req.body === null) return { kind: "too_large" };

  const now = req.receivedAtMs ?? deps.clock.now();
  const receiptId = req.receiptId ?? newId("rcp", now);
  const checkedAt = req.replayOf?.receivedAtMs ?? now;
  const request: InboundRequest = { headers: req.headers, rawBody: req.body, nowSeconds: Math.floor(checkedAt / 1000) };
  if (endpoint.signing_secret_sealed !== null) {
    if (provider.verify(request, deps.openSecret(endpoint.signing_secret_sealed)) !== "ok") return { kind: "bad_signature", provider: provider.name };
    const material = req.replayOf === undefined ? (provider.onceOnly?.(request) ?? null) : null;
    if (material !== null && deps.claimSignature !== undefined) {
      const hold = await deps.claimSignature(endpoint.id, material, receiptId);
      if (hold === null) return { kind: "replayed_signature" };
      // Keyed on the claim, a retry of this request after a crash past the trigger answers the same investigation.
      const outcome = await signed(deps, endpoint, provider, request, receiptId, hold.triggerKey);
      // Before the answer: a crash before it leaves the claim pending, for the sender's retry (a replay only once answered).
      try {
        await hold.answered();
      } catch (cause) {
        throw new BusUnavailableError("the signature's acceptance could not be recorded; a retry of the same request is safe", { cause, changed: "unknown" });
      }
      return outcome;
    }
  }
  return signed(deps, endpoint, provider, request, receiptId);
}

/** The checks after the signature: JSON, the active flag, then the provider's interpretation. */
async function signed(deps: ReceiveDeps, endpoint: InboundEndpointRecord, provider: Provider, request: InboundRequest, receiptId: string, onceKey?: string): Promise<ReceiptOutcome> {
  const field = provider.formField;
  const body = field !== undefined && mediaTypeOf(request.headers) === "application/x-www-form-urlencoded" ? parseFormField(request.rawBody, field) : parseJson(request.rawBody);
  if (!body.ok) return { kind: "invalid_json" };
  if (!endpoint.active) return { kind: "ignored", reason: "this endpoint is inactive" };

  const view: InboundEndpointView = {
    id: endpoint.id,
    provider: endpoint.provider,
    default_scope: endpoint.default_scope,
    default_depth: endpoint.default_depth,
  };
  const interpretation = provider.interpret(request, body.value, view, receiptId);
  switch (interpretation.kind) {
    case "ignored":
      return { kind: "ignored", reason: interpretation.reason };
    case "invalid":
      return {
        kind: "invalid",
        message: interpretation.message,
        ...(interpretation.path !== undefined ? { path: interpretation.path } : {}),
        ...(interpretation.details !== undefined && interpretation.details.length > 0 ? { details: interpretation.details } : {}),
      };
    case "trigger":
      return queue(deps, endpoint, interpretation, onceKey);
    default:
      return assertNever(interpretation);
  }
}

/** `onceKey`: the idempotency key of a once-only signature's claim, for an event that brings none of its own. */
async function queue(deps: ReceiveDeps, endpoint: InboundEndpointRecord, interpretation: TriggerInterpretation, onceKey?: string): Promise<ReceiptOutcome> {
  const { scope, query } = resolveTarget(interpretation, {
    byEdrDevice: (deviceId) => deps.byEdrDevice(deviceId),
    byHostname: (hostname) => deps.byHostname(hostname),
  });
  let outcome: TriggerOutcome;
  try {
    outcome = await deps.trigger({
      request: { query, depth: interpretation.depth, mode: interpretation.mode, scope: scope ?? undefined },
      idempotencyKey: interpretation.idempotency_key ?? onceKey,
      idempotencyScope: `inbound:${endpoint.id}`,
      ownerKeyId: null,
      context: { trigger_source: triggerSource(endpoint.provider), trigger_id: interpretation.trigger_id, curiosity_id: null, inbound_endpoint_id: endpoint.id },
      ...(interpretation.seeds !== undefined ? { seeds: interpretation.seeds } : {}),
    });
  } catch (err) {
    deps.log.warn({ err, endpoint: endpoint.id }, "inbound: the investigation could not be queued");
    // The bus may have stored the work without confirming it: then it runs, and a retry may start a second one.
    if (err instanceof BusUnavailableError && err.changed === "unknown") {
      const retry = interpretation.idempotency_key !== undefined ? "a retry with the same idempotency_key is safe" : "a retry may start it a second time";
      return { kind: "not_queued", reason: `unavailable: the message bus did not confirm the investigation was queued, so it may have been; ${retry}` };
    }
    return { kind: "not_queued", reason: "unavailable: the investigation could not be queued; retry shortly" };
  }
  switch (outcome.kind) {
    case "queued":
      return { kind: "queued", investigation_id: outcome.investigationId };
    case "rate_limited":
      // A once-only signature was spent on this request: the same bytes again are a replay (401), so the way back is
      // the stored receipt's replay, or a newly signed request from the provider.
      return {
        kind: "not_queued",
        reason: onceKey === undefined
          ? `rate_limited: too many investigations are waiting; retry in ${outcome.retryAfterSeconds} s`
          : `rate_limited: too many investigations are waiting; this request's signature is spent, so in ${outcome.retryAfterSeconds} s replay its receipt (POST /v1/webhooks/incoming/endpoints/${endpoint.id}/receipts/{receipt_id}/replay) or have the provider send a newly signed one`,
      };
    case "conflict":
      return { kind: "not_queued", reason: "idempotency_conflict: this idempotency_key was used with a different body in the last 24 hours" };
    case "invalid":
      // What the event asks for is not an investigation the API would accept (trigger-request.ts), or is too large to store.
      return { kind: "invalid", message: describeInvalid(outcome.details), details: outcome.details };
    default:
      return assertNever(outcome);
  }
}

/** The first problem, for the answer's message and the receipt's reason: "/query: must ...", or a whole-request one as it is. */
function describeInvalid(details: ValidationDetail[]): string {
  const first = details[0];
  if (first === undefined) return "the investigation this request asks for is not valid";
  return first.path === "/" ? first.message : `${first.path}: ${first.message}`;
}

/** The JSON in one field of a form-encoded body (the first if repeated). */
function parseFormField(bytes: Buffer, field: string): { ok: true; value: unknown } | { ok: false } {
  let value: string | null;
  try {
    value = new URLSearchParams(utf8.decode(bytes)).get(field);
  } catch {
    return { ok: false };
  }
  return value === null ? { ok: false } : parseJson(Buffer.from(value));
}

function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) as unknown };
  } catch {
    return { ok: false };
  }
}

