// Inbound webhooks (docs/api.md#inbound): endpoint management, and the public receiver, which decides each
// receipt in process (shared/inbound/receive.ts: pure providers, one endpoint read, the one trigger path) and
// maps the outcome to HTTP here, in one place.
import { Type } from "typebox";
import type { Clock } from "../../../shared/clock.js";
import { iso } from "../../../shared/clock.js";
import { newId } from "../../../shared/ids.js";
import { INBOUND_BODY_LIMIT, INBOUND_PROVIDERS, isInboundProvider } from "../../../shared/inbound/catalog.js";
import {
  CreateEndpointRequest,
  defaultScopeTooLarge,
  EndpointCreated,
  EndpointList,
  endpointView,
  receiverUrl,
  type InboundEndpointRecord,
} from "../../../shared/inbound/endpoint.js";
import { receiveAt, type ReceiptOutcome, type ReceiveDeps } from "../../../shared/inbound/receive.js";
import type { ReceiptRecord } from "../../../shared/inbound/receipt.js";
import { isEndpointRecord, type EndpointBucketEntry, type InboundEndpointStore } from "../../../shared/inbound/store.js";
import type { ReadModel } from "../../../shared/readmodel.js";
import { BusUnavailableError } from "../../../shared/errors.js";
import { isUnavailable } from "../../../shared/nats/errors.js";
import { ErrorBody } from "../../../shared/schemas/common.js";
import { encryptSecret, hashToken, newInboundKey, SecretDecryptError, splitInboundKey } from "../../../shared/secrets.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { fail, invalid, noContent, notFound, ok } from "../http/reply.js";
import { route, type Reply, type Route } from "../http/types.js";
import { ENDPOINTS_PREFIX } from "../inbound-index.js";
import { assertNever } from "../../../shared/never.js";
import { receiptRoutes, type ReceiptRecorder } from "./inbound-receipts.js";

export interface InboundRouteDeps {
  store: InboundEndpointStore;
  /** The endpoints read model (services/gateway/inbound-index.ts). */
  index: Pick<ReadModel<EndpointBucketEntry>, "page" | "catchUp">;
  /** What deciding a receipt needs: the endpoint lookup, the agent directory, the trigger. */
  receive: ReceiveDeps;
  /** The receipt log (docs/api.md#inbound-receipts): written in the background, listed through its read model. */
  receipts: { recorder: ReceiptRecorder; index: Pick<ReadModel<ReceiptRecord>, "page" | "catchUp"> };
  masterKey: Buffer;
  publicUrl: string;
  clock: Clock;
}

const err = (description: string) => ({ description, schema: ErrorBody });
const CREATE_ATTEMPTS = 3;

const Receipt202 = Type.Union([
  Type.Object({ investigation_id: Type.String() }),
  Type.Object({ ignored: Type.Literal(true), reason: Type.String() }),
  Type.Object({ error: Type.String({ description: "Why the investigation could not be queued (e.g. rate_limited)." }) }),
]);

/** The receiver's answer for each outcome (docs/api.md#inbound). */
export function receiptReply(outcome: ReceiptOutcome): Reply {
  switch (outcome.kind) {
    case "unknown_provider":
      return fail(404, "not_found", `unknown inbound provider; use one of ${INBOUND_PROVIDERS.join(", ")}`);
    case "unauthorized":
      return fail(401, "unauthorized", "unknown or deleted receiver URL, or a provider that does not match the endpoint");
    case "too_large":
      return fail(413, "payload_too_large", `the body is larger than ${INBOUND_BODY_LIMIT} bytes`);
    case "bad_signature":
    case "replayed_signature":
      // A replayed signature is answered exactly as a bad one (docs/api.md#inbound-replay-protection); its receipt says which.
      return fail(401, "unauthorized", "the provider signature does not verify");
    case "invalid_json":
      return fail(400, "invalid_json", "the body is not valid JSON");
    case "ignored":
      return ok({ ignored: true, reason: outcome.reason }, 202);
    case "invalid":
      return invalid(
        outcome.details !== undefined && outcome.details.length > 0 ? outcome.details : [{ path: outcome.path ?? "/", message: outcome.message }],
        outcome.message,
      );
    case "queued":
      return ok({ investigation_id: outcome.investigation_id }, 202);
    case "not_queued":
      return ok({ error: outcome.reason }, 202);
    default:
      return assertNever(outcome, "outcome");
  }
}

export function inboundRoutes(deps: InboundRouteDeps): Route[] {
  return [
    ...receiptRoutes({ endpoints: deps.store, recorder: deps.receipts.recorder, index: deps.receipts.index, receive: deps.receive, reply: receiptReply, clock: deps.clock }),
    route({
      method: "POST",
      path: "/v1/webhooks/incoming/endpoints",
      access: "webhooks:manage",
      body: CreateEndpointRequest,
      doc: {
        summary: "Create an inbound endpoint (the receiver URL is shown once)",
        tags: ["inbound webhooks"],
        responses: { 201: { description: "Created", schema: EndpointCreated }, 400: err("Validation error") },
      },
      async handle(ctx) {
        const body = ctx.body;
        const secret = body.provider_signing_secret;
        // A scope no alert could be stored with would make each of them a 400 (there is no update: this is the one check).
        const tooLarge = defaultScopeTooLarge(body.provider, body.default_scope ?? null);
        if (tooLarge) return invalid([tooLarge], "the default scope is too large for an alert's investigation to be stored");
        // An empty agent list selects no agent: every event falling back to it would investigate nothing (a generic
        // body's own empty list is refused the same way, shared/inbound/providers/generic.ts).
        if (body.default_scope?.filter.agent_ids?.length === 0) {
          return invalid([{ path: "/default_scope/filter/agent_ids", message: "must name at least one agent (leave agent_ids out for every agent)" }], "the default scope selects no agent");
        }
        for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
          const now = deps.clock.now();
          const issued = newInboundKey();
          const record: InboundEndpointRecord = {
            id: newId("iep", now),
            provider: body.provider,
            default_scope: body.default_scope ?? null,
            default_depth: body.default_depth ?? "standard",
            active: body.active ?? true,
            url_key_prefix: issued.prefix,
            url_key_hash: hashToken(issued.key),
            signing_secret_sealed: secret === undefined ? null : encryptSecret(deps.masterKey, secret),
            created_at: iso(now),
          };
          if (await deps.store.create(record)) {
            return ok({ ...endpointView(record), url: receiverUrl(deps.publicUrl, record.provider, issued.key) }, 201);
          }
        }
        throw new Error("could not issue a URL key with an unused prefix");
      },
    }),
    route({
      method: "GET",
      path: "/v1/webhooks/incoming/endpoints",
      access: "webhooks:manage",
      query: Type.Object({ cursor: Type.Optional(Type.String()), limit: Type.Optional(Type.String()) }),
      doc: {
        summary: "List inbound endpoints (no URL secrets), oldest first",
        tags: ["inbound webhooks"],
        responses: { 200: { description: "A page of endpoints", schema: EndpointList }, 400: err("Bad limit or cursor") },
      },
      async handle(ctx) {
        const list = listId("endpoints");
        const page = parsePage(ctx.query, ENDPOINTS_PREFIX, list);
        if (isReply(page)) return page;
        await deps.index.catchUp();
        const result = deps.index.page(ENDPOINTS_PREFIX, { after: page.after, limit: page.limit, reverse: false, accept: isEndpointRecord });
        return ok({ endpoints: result.items.filter(isEndpointRecord).map(endpointView), next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "DELETE",
      path: "/v1/webhooks/incoming/endpoints/:id",
      ids: { id: "iep" },
      access: "webhooks:manage",
      doc: {
        summary: "Delete an inbound endpoint; its receiver URL answers 401 from then on",
        tags: ["inbound webhooks"],
        responses: { 204: { description: "Deleted" }, 404: err("Not found") },
      },
      async handle(ctx) {
        return (await deps.store.delete(ctx.params.id)) ? noContent() : notFound("inbound endpoint");
      },
    }),
    // The receiver hands its raw bytes to the provider (it answers 413 itself, after the key check).
    route({
      method: "POST",
      path: "/v1/webhooks/incoming/:provider/:key",
      access: "public",
      rawBody: true,
      bodyLimit: INBOUND_BODY_LIMIT,
      doc: {
        summary: "Receive a provider's webhook (authenticated by the URL key and, when set, the provider signature)",
        tags: ["inbound webhooks"],
        responses: {
          202: { description: "Queued, ignored, or could not queue", schema: Receipt202 },
          400: err("Not JSON, or a payload the provider cannot use"),
          401: err("Unknown or deleted URL key, provider mismatch, or bad signature"),
          404: err("Unknown provider"),
          413: err("Body over 1 MiB"),
          503: err("The message bus is unavailable; nothing was queued"),
        },
      },
      async handle(ctx) {
        const { provider, key } = ctx.params;
        if (!isInboundProvider(provider)) return receiptReply({ kind: "unknown_provider" });
        // A key that cannot be one we issued needs no round trip (receive() checks real ones).
        if (!splitInboundKey(key).ok) return receiptReply({ kind: "unauthorized" });
        // One instant for the request: its receipt says it was received then, and its signature is checked as
        // then, so a replay (which checks it as at the receipt's time) reaches the same decision.
        const receivedAtMs = deps.clock.now();
        const receiptId = newId("rcp", receivedAtMs);
        const body = ctx.bodyTooLarge ? null : ctx.rawBody;
        try {
          const { outcome, endpoint } = await receiveAt(deps.receive, { provider, key, headers: ctx.headers, body, receiptId, receivedAtMs });
          const reply = receiptReply(outcome);
          // Every request to a known endpoint is recorded, in the background: the answer never waits for it.
          if (endpoint !== null) {
            const built = deps.receipts.recorder.build(endpoint, receiptId, outcome, reply, body === null ? null : { headers: ctx.headers, body }, null, receivedAtMs);
            deps.receipts.recorder.submit(built.record, built.request);
          }
          return reply;
        } catch (err) {
          // receive() queues nothing before its last step and answers a failed trigger itself (202 with error):
          // a bus failure that reaches here changed nothing, unless receive() says otherwise (a signature claim
          // it could not mark answered: the retry of the same request is taken as it, not as a replay).
          if (err instanceof BusUnavailableError) throw err;
          if (isUnavailable(err)) throw new BusUnavailableError("the endpoint could not be read", { cause: err, changed: "nothing" });
          if (!(err instanceof SecretDecryptError)) throw err;
          deps.receive.log.error({ err }, "inbound: a stored signing secret does not open with INQUEST_MASTER_KEY (was the key changed?)");
          return fail(500, "internal", "internal error");
        }
      },
    }),
  ];
}

