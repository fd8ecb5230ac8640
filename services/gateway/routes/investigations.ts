// /v1/investigations (docs/api.md#investigations).

import { cancelInvestigation, type CancelDeps } from "../../../shared/investigations/cancel.js";
import { queuedResponseBody, toDetail, toListItem, type InvestigationRecord, type InvestigationView } from "../../../shared/investigations/record.js";
import { triggerInvestigation, type TriggerDeps } from "../../../shared/investigations/trigger.js";
import type { JsonKv } from "../../../shared/nats/kvjson.js";
import type { ReadModel } from "../../../shared/readmodel.js";
import { ErrorBody, isOneOf } from "../../../shared/schemas/common.js";
import {
  CancelResponse,
  InvestigationDetail,
  InvestigationList,
  InvestigationListQuery,
  InvestigationRequest,
  INVESTIGATION_STATUSES,
  TRIGGER_SOURCES,
  TriggerResponse,
} from "../../../shared/schemas/investigation.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { fail, invalid, notFound, ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";
import { investigationPrefix, isFinal } from "../investigation-index.js";
import { assertNever } from "../../../shared/never.js";
import { ByteLru } from "../../../shared/byte-lru.js";

export interface InvestigationRouteDeps {
  trigger: TriggerDeps;
  cancel: CancelDeps;
  investigations: JsonKv<InvestigationRecord>;
  index: ReadModel<InvestigationRecord, InvestigationView>;
  publicUrl: string;
  /** Rendered details of completed and failed investigations (never written again), by id. */
  finalDetails?: ByteLru;
}

const err = (description: string) => ({ description, schema: ErrorBody });

export function investigationRoutes(deps: InvestigationRouteDeps): Route[] {
  return [
    route({
      method: "POST",
      path: "/v1/investigations",
      access: "investigations:trigger",
      body: InvestigationRequest,
      doc: {
        summary: "Trigger an investigation",
        tags: ["investigations"],
        responses: {
          202: { description: "Queued", schema: TriggerResponse },
          400: err("Validation error, or a question and scope too large to store together"),
          409: err("Idempotency key reused with a different body"),
          429: err("Backlog over its limit"),
        },
      },
      async handle(ctx) {
        const { idempotency_key: bodyKey, ...request } = ctx.body;
        const headerKey = ctx.headers["idempotency-key"];
        if (ctx.repeatedHeaders?.includes("idempotency-key")) {
          return invalid([{ path: "/headers/idempotency-key", message: "sent more than once; send one Idempotency-Key header" }]);
        }
        if (headerKey !== undefined && (headerKey.length === 0 || headerKey.length > 255)) {
          return invalid([{ path: "/headers/idempotency-key", message: "must be 1 to 255 visible ASCII characters (an HTTP header carries no others; send a key with other characters as the body's idempotency_key)" }]);
        }
        if (headerKey !== undefined && bodyKey !== undefined && headerKey !== bodyKey) {
          return invalid([{ path: "/idempotency_key", message: "differs from the Idempotency-Key header; send one or make them equal" }]);
        }
        const outcome = await triggerInvestigation(deps.trigger, {
          request,
          idempotencyKey: headerKey ?? bodyKey,
          idempotencyScope: ctx.auth?.id ?? "anonymous",
          ownerKeyId: ctx.auth?.id ?? null,
          context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
        });
        switch (outcome.kind) {
          case "queued":
            return { status: 202, raw: queuedResponseBody(outcome.body, deps.publicUrl), headers: { location: `${deps.publicUrl}/v1/investigations/${outcome.investigationId}` } };
          case "conflict":
            return fail(409, "idempotency_conflict", "this idempotency key was used with a different body in the last 24 hours");
          case "invalid":
            return invalid(outcome.details, "the request body is not valid");
          case "rate_limited":
            return fail(429, "rate_limited", "too many investigations are waiting; retry later", undefined, { "retry-after": String(outcome.retryAfterSeconds) });
          default:
            return assertNever(outcome, "outcome");
        }
      },
    }),
    route({
      method: "GET",
      path: "/v1/investigations",
      access: "investigations:read",
      query: InvestigationListQuery,
      doc: {
        summary: "List investigations, newest first",
        tags: ["investigations"],
        responses: { 200: { description: "A page", schema: InvestigationList }, 400: err("Bad filter, limit or cursor") },
      },
      async handle(ctx) {
        const status = ctx.query.get("status");
        const source = ctx.query.get("trigger_source");
        if (status !== null && !isOneOf(INVESTIGATION_STATUSES, status)) {
          return invalid([{ path: "/status", message: `must be one of ${INVESTIGATION_STATUSES.join(", ")}` }]);
        }
        if (source !== null && !isOneOf(TRIGGER_SOURCES, source)) {
          return invalid([{ path: "/trigger_source", message: `must be one of ${TRIGGER_SOURCES.join(", ")}` }]);
        }
        const prefix = investigationPrefix(status, source);
        const list = listId("investigations", { status, trigger_source: source });
        const page = parsePage(ctx.query, prefix, list);
        if (isReply(page)) return page;
        await deps.index.catchUp();
        const result = deps.index.page(prefix, { after: page.after, limit: page.limit, reverse: true });
        return ok({ investigations: result.items.map((r) => toListItem(r, deps.publicUrl)), next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "GET",
      path: "/v1/investigations/:id",
      ids: { id: "inv" },
      access: "investigations:read",
      doc: {
        summary: "Read an investigation",
        tags: ["investigations"],
        responses: { 200: { description: "The investigation", schema: InvestigationDetail }, 404: err("Not found") },
      },
      async handle(ctx) {
        const id = ctx.params.id;
        // A final record is never written again: once read from the bucket, its rendered detail is kept and served
        // from here; anything else is read from the bucket each time (docs/architecture.md#read-models).
        const rendered = deps.finalDetails?.get(id);
        if (rendered !== undefined) return { status: 200, raw: rendered };
        const found = await deps.investigations.get(id);
        if (!found) return notFound("investigation");
        const body = JSON.stringify(toDetail(found.value, deps.publicUrl));
        if (!isFinal(found.value.status) || !deps.finalDetails) return { status: 200, raw: body };
        // Encoded once: kept, and sent as these bytes this first time too.
        const bytes = ByteLru.encode(body);
        deps.finalDetails.set(id, bytes);
        return { status: 200, raw: bytes };
      },
    }),
    route({
      method: "DELETE",
      path: "/v1/investigations/:id",
      ids: { id: "inv" },
      access: "investigations:trigger",
      doc: {
        summary: "Cancel an investigation (idempotent)",
        tags: ["investigations"],
        responses: { 200: { description: "Cancelled, or already terminal", schema: CancelResponse }, 404: err("Not found") },
      },
      async handle(ctx) {
        const outcome = await cancelInvestigation(deps.cancel, ctx.params.id);
        return outcome.kind === "not_found" ? notFound("investigation") : ok({ ok: outcome.ok, status: outcome.status });
      },
    }),
  ];
}


