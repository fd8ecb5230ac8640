// One receipt of the inbound receiver, checked in the contract's order (CONTRACT §6): unknown provider,
// URL key (and provider match), body size, signature, JSON, inactive endpoint; then the provider decides and a
// recognised event is triggered through the one trigger path. Every answer is a value the gateway maps to HTTP.
import type { AgentRecord } from "../../shared/agents/record.js";
import type { Clock } from "../../shared/clock.js";
import { newId } from "../../shared/ids.js";
import type { InboundProvider } from "../../shared/inbound/catalog.js";
import type { ReadBody } from "../../shared/inbound/body.js";
import type { InboundEndpointRecord } from "../../shared/inbound/endpoint.js";
import type { ReceiptBody, ReceiptOutcome, ReceiptRequest } from "../../shared/inbound/messages.js";
import { authenticateUrlKey } from "../../shared/inbound/url-key.js";
import type { TriggerInput, TriggerOutcome } from "../../shared/investigations/trigger.js";
import type { Logger } from "../../shared/log.js";
import { lookupProvider, triggerSource } from "./providers/registry.js";
import type { InboundEndpointView, InboundRequest, ProviderName, TriggerInterpretation } from "./providers/types.js";
import { resolveTarget } from "./target.js";

/** The receiver URL's provider names (shared) and the provider registry's names are the same set. */
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const providerNamesAgree: SameSet<ProviderName, InboundProvider> = true;
void providerNamesAgree;

export interface ReceiveDeps {
  byPrefix(prefix: string): Promise<InboundEndpointRecord | null>;
  readBody(body: ReceiptBody): Promise<ReadBody>;
  /** Opens a sealed provider signing secret with the master key. */
  openSecret(sealed: string): string;
  byEdrDevice(deviceId: string): AgentRecord | null;
  /** Every known agent with exactly this hostname (a `workflow_job`'s runner, CONTRACT §6). */
  byHostname(hostname: string): AgentRecord[];
  trigger(input: TriggerInput): Promise<TriggerOutcome>;
  clock: Clock;
  log: Logger;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function receive(deps: ReceiveDeps, req: ReceiptRequest): Promise<ReceiptOutcome> {
  const provider = lookupProvider(req.provider);
  if (provider === null) return { kind: "unknown_provider" };
  const endpoint = await authenticateUrlKey(req.key, (prefix) => deps.byPrefix(prefix));
  if (endpoint === null || endpoint.provider !== provider.name) return { kind: "unauthorized" };
  if (req.body.kind === "too_large") return { kind: "too_large" };

  const read = await deps.readBody(req.body);
  if (!read.ok) {
    deps.log.warn({ endpoint: endpoint.id, reason: read.reason }, "inbound: could not read the body");
    return { kind: "unavailable", message: "the body could not be read; retry shortly" };
  }
  const now = deps.clock.now();
  const request: InboundRequest = { headers: req.headers, rawBody: read.body, nowSeconds: Math.floor(now / 1000) };
  if (endpoint.signing_secret_sealed !== null && provider.verify(request, deps.openSecret(endpoint.signing_secret_sealed)) !== "ok") {
    return { kind: "bad_signature" };
  }
  const body = parseJson(read.body);
  if (!body.ok) return { kind: "invalid_json" };
  if (!endpoint.active) return { kind: "ignored", reason: "this endpoint is inactive" };

  const view: InboundEndpointView = {
    id: endpoint.id,
    provider: endpoint.provider,
    default_scope: endpoint.default_scope,
    default_depth: endpoint.default_depth,
  };
  const interpretation = provider.interpret(request, body.value, view, newId("rcp", now));
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
      return queue(deps, endpoint, interpretation);
    default:
      return assertNever(interpretation);
  }
}

async function queue(deps: ReceiveDeps, endpoint: InboundEndpointRecord, interpretation: TriggerInterpretation): Promise<ReceiptOutcome> {
  const { scope, query } = resolveTarget(interpretation, {
    byEdrDevice: (deviceId) => deps.byEdrDevice(deviceId),
    byHostname: (hostname) => deps.byHostname(hostname),
  });
  let outcome: TriggerOutcome;
  try {
    outcome = await deps.trigger({
      request: { query, depth: interpretation.depth, mode: interpretation.mode, scope: scope ?? undefined },
      idempotencyKey: interpretation.idempotency_key,
      idempotencyScope: `inbound:${endpoint.id}`,
      ownerKeyId: null,
      context: { trigger_source: triggerSource(endpoint.provider), trigger_id: interpretation.trigger_id, curiosity_id: null, inbound_endpoint_id: endpoint.id },
      ...(interpretation.seeds !== undefined ? { seeds: interpretation.seeds } : {}),
    });
  } catch (err) {
    deps.log.warn({ err, endpoint: endpoint.id }, "inbound: the investigation could not be queued");
    return { kind: "not_queued", reason: "unavailable: the investigation could not be queued; retry shortly" };
  }
  switch (outcome.kind) {
    case "queued":
      return { kind: "queued", investigation_id: outcome.investigationId };
    case "rate_limited":
      return { kind: "not_queued", reason: `rate_limited: too many investigations are waiting; retry in ${outcome.retryAfterSeconds} s` };
    case "conflict":
      return { kind: "not_queued", reason: "idempotency_conflict: this idempotency_key was used with a different body in the last 24 hours" };
    default:
      return assertNever(outcome);
  }
}

function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) as unknown };
  } catch {
    return { ok: false };
  }
}

function assertNever(x: never): never {
  throw new Error(`unexpected value ${JSON.stringify(x)}`);
}
