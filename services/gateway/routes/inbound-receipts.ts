// Inbound receipts (docs/api.md#inbound-receipts): the receiver records every decided POST in the background
// (ReceiptRecorder: the provider's answer never waits for it), and operators list and replay them.
import { Type } from "typebox";
import type { Clock } from "../../../shared/clock.js";
import { iso } from "../../../shared/clock.js";
import { newId } from "../../../shared/ids.js";
import type { InboundEndpointRecord } from "../../../shared/inbound/endpoint.js";
import { isReceiptKind, ReceiptList, RECEIPT_OUTCOMES, ReceiptView, receiptView, type ReceiptRecord } from "../../../shared/inbound/receipt.js";
import { receiptKind } from "../../../shared/inbound/receipt-outcome.js";
import type { ReceiptStore, StoredRequest } from "../../../shared/inbound/receipt-store.js";
import { decide, type ReceiptOutcome, type ReceiveDeps } from "../../../shared/inbound/receive.js";
import type { InboundEndpointStore } from "../../../shared/inbound/store.js";
import type { Logger } from "../../../shared/log.js";
import { isUnavailable } from "../../../shared/nats/errors.js";
import { BusUnavailableError } from "../../../shared/errors.js";
import type { ReadModel } from "../../../shared/readmodel.js";
import { ErrorBody } from "../../../shared/schemas/common.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { fail, invalid, notFound, ok } from "../http/reply.js";
import { route, type Reply, type Route } from "../http/types.js";
import { isRetainedReceipt, receiptPrefix } from "../receipt-index.js";

/** Receipts being written at once; beyond it a receipt is dropped (and logged) rather than held in memory. */
const MAX_PENDING_RECORDS = 256;

/** Writes receipts in the background, so recording never delays or changes the receiver's answer. */
export class ReceiptRecorder {
  private pending = 0;
  private readonly writes = new Set<Promise<void>>();

  constructor(
    readonly store: ReceiptStore,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** The receipt of one decided request (the reply already made, the request received at `receivedAtMs`), with its kept request. */
  build(endpoint: InboundEndpointRecord, receiptId: string, outcome: ReceiptOutcome, reply: Reply, request: StoredRequest | null, replayOf: string | null, receivedAtMs = this.clock.now()) {
    const kept = request === null ? null : this.store.keep(request.headers, request.body);
    const record: ReceiptRecord = {
      receipt_id: receiptId,
      endpoint_id: endpoint.id,
      provider: endpoint.provider,
      received_at: iso(receivedAtMs),
      ...receiptKind(outcome),
      status: reply.status,
      replay_of: replayOf,
      body: kept?.meta ?? null,
    };
    return { record, request: kept === null ? null : { headers: kept.headers, body: kept.kept } };
  }

  /** Records without waiting; a failure is logged, never answered. */
  submit(record: ReceiptRecord, request: StoredRequest | null): void {
    if (this.pending >= MAX_PENDING_RECORDS) {
      this.log.warn({ receipt_id: record.receipt_id, endpoint: record.endpoint_id }, "inbound: too many receipts being written; this one is not recorded");
      return;
    }
    this.pending++;
    const write = this.store
      .record(record, request)
      .catch((err: unknown) => this.log.warn({ err, receipt_id: record.receipt_id, endpoint: record.endpoint_id }, "inbound: the receipt could not be recorded"))
      .finally(() => {
        this.pending--;
        this.writes.delete(write);
      });
    this.writes.add(write);
  }

  /** Waits for the writes under way (at shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.writes]);
  }
}

export interface ReceiptRouteDeps {
  endpoints: InboundEndpointStore;
  recorder: ReceiptRecorder;
  index: Pick<ReadModel<ReceiptRecord>, "page" | "catchUp">;
  receive: ReceiveDeps;
  /** The receiver's answer for an outcome (routes/inbound.ts). */
  reply(outcome: ReceiptOutcome): Reply;
  clock: Clock;
}

const err = (description: string) => ({ description, schema: ErrorBody });
const tags = ["inbound webhooks"];
const RECEIPTS = "/v1/webhooks/incoming/endpoints/:id/receipts";

export const ReceiptListQuery = Type.Object({
  outcome: Type.Optional(Type.Union(RECEIPT_OUTCOMES.map((o) => Type.Literal(o)))),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});

export function receiptRoutes(deps: ReceiptRouteDeps): Route[] {
  return [
    route({
      method: "GET",
      path: RECEIPTS,
      ids: { id: "iep" },
      access: "webhooks:manage",
      query: ReceiptListQuery,
      doc: {
        summary: "List an inbound endpoint's receipts (7 days), newest first, optionally by outcome",
        tags,
        responses: { 200: { description: "A page of receipts", schema: ReceiptList }, 400: err("Bad outcome, limit or cursor"), 404: err("No such endpoint") },
      },
      async handle(ctx) {
        const outcome = ctx.query.get("outcome");
        if (outcome !== null && !isReceiptKind(outcome)) return invalid([{ path: "/outcome", message: `must be one of ${RECEIPT_OUTCOMES.join(", ")}` }]);
        if ((await deps.endpoints.byId(ctx.params.id)) === null) return notFound("inbound endpoint");
        const prefix = receiptPrefix(ctx.params.id, outcome);
        const list = listId("receipts", { endpoint_id: ctx.params.id, outcome });
        const page = parsePage(ctx.query, prefix, list);
        if (isReply(page)) return page;
        await deps.index.catchUp();
        const now = deps.clock.now();
        const result = deps.index.page(prefix, { after: page.after, limit: page.limit, reverse: true, accept: (r) => isRetainedReceipt(r, now) });
        return ok({ receipts: result.items.map(receiptView), next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "POST",
      path: `${RECEIPTS}/:receipt_id/replay`,
      ids: { id: "iep", receipt_id: "rcp" },
      access: "webhooks:manage",
      bodyOptional: true,
      body: Type.Object({}, { additionalProperties: false }),
      doc: {
        summary: "Re-process a receipt's stored request as if just received (its signature window skipped); records a new receipt",
        tags,
        responses: {
          202: { description: "The new receipt (replay_of names the original)", schema: ReceiptView },
          404: err("No such endpoint or receipt"),
          409: err("not_replayable: the body was not kept in full, or has expired"),
          503: err("The message bus is unavailable"),
        },
      },
      async handle(ctx) {
        try {
          return await replay(deps, ctx.params.id, ctx.params.receipt_id);
        } catch (cause) {
          if (isUnavailable(cause)) throw new BusUnavailableError("the receipt could not be replayed", { cause, changed: "unknown" });
          throw cause;
        }
      },
    }),
  ];
}

async function replay(deps: ReceiptRouteDeps, endpointId: string, receiptId: string): Promise<Reply> {
  const endpoint = await deps.endpoints.byId(endpointId);
  if (endpoint === null) return notFound("inbound endpoint");
  const original = await deps.recorder.store.get(receiptId);
  if (original === null || original.endpoint_id !== endpointId) return notFound("receipt");
  if (original.body === null) return fail(409, "not_replayable", "this receipt's body was over the receiver's limit and was not read");
  if (original.body.truncated) return fail(409, "not_replayable", `only the first ${original.body.kept_bytes} of ${original.body.bytes} bytes were kept; a truncated body is not replayed`);
  const request = await deps.recorder.store.request(receiptId);
  if (request === null) return fail(409, "not_replayable", "this receipt's body has expired");

  const newReceiptId = newId("rcp", deps.clock.now());
  const outcome = await decide(
    deps.receive,
    { provider: endpoint.provider, key: "", headers: request.headers, body: request.body, receiptId: newReceiptId, replayOf: { receivedAtMs: Date.parse(original.received_at) } },
    endpoint,
  );
  const built = deps.recorder.build(endpoint, newReceiptId, outcome, deps.reply(outcome), request, original.receipt_id);
  // The operator asked for this one: it is written before answering (a failure is logged; the work is done).
  await deps.recorder.store.record(built.record, built.request).catch((err: unknown) => deps.receive.log.warn({ err, receipt_id: newReceiptId }, "inbound: the replay's receipt could not be recorded"));
  return ok(receiptView(built.record), 202);
}
