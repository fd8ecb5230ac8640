// Bulk recovery of a subscription (docs/api.md#recovery): POST .../subscriptions/{id}/recover queues a background
// job that re-sends the window's dead letters and the events the subscription missed; GET .../recoveries/{id}
// shows its progress. The dispatcher runs the job (services/dispatcher/recovery-consumer.ts).
import { ErrorBody } from "../../../shared/schemas/common.js";
import type { WebhookStores } from "../../../shared/webhooks/catalog.js";
import { RecoverRequest, recoveryView, RecoveryView } from "../../../shared/webhooks/recovery.js";
import { requestRecovery, type RecoveryRequestDeps } from "../../../shared/webhooks/recovery-request.js";
import { invalid, notFound, ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";
import { assertNever } from "../../../shared/never.js";

export interface RecoveryRouteDeps {
  request: RecoveryRequestDeps;
  stores: Pick<WebhookStores, "recoveries">;
}

const err = (description: string) => ({ description, schema: ErrorBody });
const tags = ["webhooks"];

export function recoveryRoutes(deps: RecoveryRouteDeps): Route[] {
  return [
    route({
      method: "POST",
      path: "/v1/webhooks/subscriptions/:id/recover",
      ids: { id: "sub" },
      access: "webhooks:manage",
      body: RecoverRequest,
      doc: {
        summary: "Re-send the window's dead-lettered deliveries and the events the subscription missed, as a background job (idempotent per window)",
        tags,
        responses: {
          202: { description: "The recovery job, with the dead letters it found; the same job while it runs", schema: RecoveryView },
          400: err("Validation error or a window outside the 30 days kept"),
          404: err("Not found"),
        },
      },
      async handle(ctx) {
        const outcome = await requestRecovery(deps.request, ctx.params.id, ctx.body);
        switch (outcome.kind) {
          case "accepted":
            return ok(outcome.recovery, 202);
          case "not_found":
            return notFound("subscription");
          case "bad_window":
            return invalid([{ path: outcome.path, message: outcome.message }], "the recovery window is not acceptable");
          default:
            return assertNever(outcome, "outcome");
        }
      },
    }),
    route({
      method: "GET",
      path: "/v1/webhooks/recoveries/:id",
      ids: { id: "rcv" },
      access: "webhooks:manage",
      doc: {
        summary: "A recovery job's progress: status, events scanned of the total, what was re-sent",
        tags,
        responses: { 200: { description: "The recovery", schema: RecoveryView }, 404: err("Not found") },
      },
      async handle(ctx) {
        const found = await deps.stores.recoveries.get(ctx.params.id);
        return found ? ok(recoveryView(found.value)) : notFound("recovery");
      },
    }),
  ];
}
