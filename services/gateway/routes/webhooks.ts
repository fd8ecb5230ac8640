// /v1/webhooks/subscriptions and /v1/webhooks/deliveries (docs/api.md#webhooks). Every route needs
// webhooks:manage. The operations live in shared/webhooks/manage.ts; this file maps their outcomes to HTTP.
import type { Clock } from "../../../shared/clock.js";
import { isId } from "../../../shared/ids.js";
import type { ReadModel } from "../../../shared/readmodel.js";
import { ErrorBody, isOneOf } from "../../../shared/schemas/common.js";
import type { WebhookStores } from "../../../shared/webhooks/catalog.js";
import { deliveryAttempts, deliveryDetail, type DeliveryRecord } from "../../../shared/webhooks/delivery.js";
import type { DeliveryView } from "../../../shared/webhooks/schemas.js";
import {
  createSubscription,
  deleteSubscription,
  replayDelivery,
  rotateSubscriptionSecret,
  sendTestDelivery,
  updateSubscription,
  type ManageDeps,
  type QueuedOutcome,
} from "../../../shared/webhooks/manage.js";
import {
  CreatedSubscription,
  CreateSubscriptionRequest,
  DELIVERY_STATUSES,
  AttemptList,
  DeliveryDetail,
  DeliveryList,
  DeliveryListQuery,
  FILTER_ID_MAX_CHARS,
  PatchSubscriptionRequest,
  ReplayResponse,
  RotatedSecret,
  RotateSecretRequest,
  DEFAULT_GRACE_PERIOD_SECONDS,
  SubscriptionList,
  SubscriptionListQuery,
  SubscriptionView,
  TestDeliveryResponse,
} from "../../../shared/webhooks/schemas.js";
import { subscriptionView, type SubscriptionRecord } from "../../../shared/webhooks/subscription.js";
import { deliveryWalk, isRetained } from "../delivery-index.js";
import { SUBSCRIPTION_PREFIX } from "../subscription-index.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { invalid, noContent, notFound, ok } from "../http/reply.js";
import { route, type Reply, type Route } from "../http/types.js";
import { assertNever } from "../../../shared/never.js";

export interface WebhookRouteDeps {
  manage: ManageDeps;
  stores: Pick<WebhookStores, "subscriptions" | "deliveries">;
  deliveryIndex: ReadModel<DeliveryRecord, DeliveryView>;
  subscriptionIndex: ReadModel<SubscriptionRecord>;
  clock: Clock;
}

const err = (description: string) => ({ description, schema: ErrorBody });
const tags = ["webhooks"];
const SUBS = "/v1/webhooks/subscriptions";
const DELIVERIES = "/v1/webhooks/deliveries";

const badUrl = (message: string): Reply => invalid([{ path: "/url", message }], "the subscription URL is not acceptable");

function queued(outcome: QueuedOutcome, what: string, body: (o: { deliveryId: string; status: string }) => unknown): Reply {
  return outcome.kind === "queued" ? ok(body(outcome), 202) : notFound(what);
}

export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  return [...subscriptionRoutes(deps), ...deliveryRoutes(deps)];
}

function subscriptionRoutes(deps: WebhookRouteDeps): Route[] {
  return [
    route({
      method: "POST",
      path: SUBS,
      access: "webhooks:manage",
      body: CreateSubscriptionRequest,
      doc: {
        summary: "Create an outbound webhook subscription (the secret is shown only here)",
        tags,
        responses: { 201: { description: "Created", schema: CreatedSubscription }, 400: err("Validation error, bad or private URL") },
      },
      async handle(ctx) {
        const outcome = await createSubscription(deps.manage, ctx.body);
        if (outcome.kind === "bad_url") return badUrl(outcome.message);
        if (outcome.kind === "bad_headers") return invalid(outcome.details, "a custom header is not acceptable");
        return ok({ ...outcome.subscription, secret: outcome.secret }, 201);
      },
    }),
    route({
      method: "GET",
      path: SUBS,
      access: "webhooks:manage",
      query: SubscriptionListQuery,
      doc: {
        summary: "List subscriptions (oldest first; never the secret)",
        tags,
        responses: { 200: { description: "A page", schema: SubscriptionList }, 400: err("Bad limit or cursor") },
      },
      async handle(ctx) {
        const list = listId("subscriptions");
        const page = parsePage(ctx.query, SUBSCRIPTION_PREFIX, list);
        if (isReply(page)) return page;
        await deps.subscriptionIndex.catchUp();
        const result = deps.subscriptionIndex.page(SUBSCRIPTION_PREFIX, { after: page.after, limit: page.limit, reverse: false });
        return ok({ subscriptions: result.items.map(subscriptionView), next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "GET",
      path: `${SUBS}/:id`,
      ids: { id: "sub" },
      access: "webhooks:manage",
      doc: { summary: "Read a subscription (never the secret)", tags, responses: { 200: { description: "The subscription", schema: SubscriptionView }, 404: err("Not found") } },
      async handle(ctx) {
        const found = await deps.stores.subscriptions.get(ctx.params.id);
        return found ? ok(subscriptionView(found.value)) : notFound("subscription");
      },
    }),
    route({
      method: "PATCH",
      path: `${SUBS}/:id`,
      ids: { id: "sub" },
      access: "webhooks:manage",
      body: PatchSubscriptionRequest,
      doc: {
        summary: "Change a subscription: only the included fields change; events, filters and headers are replaced whole",
        tags,
        responses: { 200: { description: "The updated subscription", schema: SubscriptionView }, 400: err("Validation error"), 404: err("Not found") },
      },
      async handle(ctx) {
        const outcome = await updateSubscription(deps.manage, ctx.params.id, ctx.body);
        switch (outcome.kind) {
          case "updated":
            return ok(outcome.subscription);
          case "bad_url":
            return badUrl(outcome.message);
          case "bad_headers":
            return invalid(outcome.details, "a custom header is not acceptable");
          case "not_found":
            return notFound("subscription");
          default:
            return assertNever(outcome, "outcome");
        }
      },
    }),
    route({
      method: "DELETE",
      path: `${SUBS}/:id`,
      ids: { id: "sub" },
      access: "webhooks:manage",
      doc: { summary: "Delete a subscription; its pending deliveries end failed_permanent", tags, responses: { 204: { description: "Deleted" }, 404: err("Not found") } },
      async handle(ctx) {
        await deps.deliveryIndex.catchUp();
        const outcome = await deleteSubscription(deps.manage, ctx.params.id);
        return outcome.kind === "deleted" ? noContent() : notFound("subscription");
      },
    }),
    route({
      method: "POST",
      path: `${SUBS}/:id/test`,
      ids: { id: "sub" },
      access: "webhooks:manage",
      doc: {
        summary: "Send a test delivery: the first subscribed type, placeholder data, \"test\": true",
        tags,
        responses: { 202: { description: "Queued", schema: TestDeliveryResponse }, 404: err("Not found") },
      },
      async handle(ctx) {
        return queued(await sendTestDelivery(deps.manage, ctx.params.id), "subscription", (o) => ({ delivery_id: o.deliveryId }));
      },
    }),
    route({
      method: "POST",
      path: `${SUBS}/:id/rotate-secret`,
      ids: { id: "sub" },
      access: "webhooks:manage",
      body: RotateSecretRequest,
      bodyOptional: true,
      doc: {
        summary: "Rotate the secret (the new one is shown only here); the old one also signs for grace_period_seconds (default 24 h, at most 7 days)",
        tags,
        responses: { 200: { description: "The new secret", schema: RotatedSecret }, 400: err("Validation error"), 404: err("Not found") },
      },
      async handle(ctx) {
        const grace = ctx.body.grace_period_seconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
        const outcome = await rotateSubscriptionSecret(deps.manage, ctx.params.id, grace);
        if (outcome.kind === "not_found") return notFound("subscription");
        return ok({ id: outcome.id, secret: outcome.secret, previous_secret_expires_at: outcome.previousSecretExpiresAt });
      },
    }),
  ];
}

function deliveryRoutes(deps: WebhookRouteDeps): Route[] {
  return [
    route({
      method: "GET",
      path: DELIVERIES,
      access: "webhooks:manage",
      query: DeliveryListQuery,
      doc: {
        summary: "List outbound deliveries, newest first (status=failed_permanent is the dead-letter queue)",
        tags,
        responses: { 200: { description: "A page", schema: DeliveryList }, 400: err("Bad filter, limit or cursor") },
      },
      async handle(ctx) {
        const status = ctx.query.get("status");
        if (status !== null && !isOneOf(DELIVERY_STATUSES, status)) {
          return invalid([{ path: "/status", message: `must be one of ${DELIVERY_STATUSES.join(", ")}` }]);
        }
        const subscriptionId = ctx.query.get("subscription_id");
        const eventId = ctx.query.get("event_id");
        // Ids go into the index's keys, which LMDB bounds (1,978 bytes): a longer value is no id anyway.
        const tooLong = (
          [
            ["/subscription_id", subscriptionId],
            ["/event_id", eventId],
          ] as const
        ).filter(([, v]) => v !== null && v.length > FILTER_ID_MAX_CHARS);
        if (tooLong.length > 0) return invalid(tooLong.map(([path]) => ({ path, message: `must be at most ${FILTER_ID_MAX_CHARS} characters` })));
        // A malformed subscription id can match nothing: say so, as the findings list does for a bad agent_id, instead
        // of an empty page that reads as "no deliveries" (a pasted id cut short, a typo).
        if (subscriptionId !== null && !isId(subscriptionId, "sub")) return invalid([{ path: "/subscription_id", message: "must be a subscription id (sub_ and 26 characters)" }]);
        // Event ids are whatever the event's publisher gave it (internal systems publish on events.> too), so only an
        // empty one is refused: it would match nothing and read as "no deliveries".
        if (eventId === "") return invalid([{ path: "/event_id", message: "must not be empty (omit it to list every event's deliveries)" }]);
        const walk = deliveryWalk({ status, subscription_id: subscriptionId, event_id: eventId });
        const list = listId("deliveries", { status, subscription_id: subscriptionId, event_id: eventId });
        const page = parsePage(ctx.query, walk.prefix, list);
        if (isReply(page)) return page;
        await deps.deliveryIndex.catchUp();
        const now = deps.clock.now();
        // Expired deliveries not pruned yet are skipped inside the walk, so they never shorten a page.
        const result = deps.deliveryIndex.page(walk.prefix, { after: page.after, limit: page.limit, reverse: true, accept: (r) => isRetained(r, now) && walk.matches(r) });
        return ok({ deliveries: result.items, next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "GET",
      path: `${DELIVERIES}/:id`,
      ids: { id: "dlv" },
      access: "webhooks:manage",
      doc: { summary: "Read a delivery with the envelope it sends", tags, responses: { 200: { description: "The delivery", schema: DeliveryDetail }, 404: err("Not found") } },
      async handle(ctx) {
        const found = await deps.stores.deliveries.get(ctx.params.id);
        return found ? ok(deliveryDetail(found.value)) : notFound("delivery");
      },
    }),
    route({
      method: "GET",
      path: `${DELIVERIES}/:id/attempts`,
      ids: { id: "dlv" },
      access: "webhooks:manage",
      doc: {
        summary: "Every attempt of a delivery with what the endpoint answered (a few headers, the first 4 KiB of the body)",
        tags,
        responses: { 200: { description: "The attempts, oldest first", schema: AttemptList }, 404: err("Not found") },
      },
      async handle(ctx) {
        const found = await deps.stores.deliveries.get(ctx.params.id);
        return found ? ok(deliveryAttempts(found.value)) : notFound("delivery");
      },
    }),
    route({
      method: "POST",
      path: `${DELIVERIES}/:id/replay`,
      ids: { id: "dlv" },
      access: "webhooks:manage",
      doc: {
        summary: "Fire a delivery again: new delivery_id, same event_id and envelope, fresh attempt budget",
        tags,
        responses: { 202: { description: "Queued", schema: ReplayResponse }, 404: err("Not found") },
      },
      async handle(ctx) {
        return queued(await replayDelivery(deps.manage, ctx.params.id), "delivery", (o) => ({ delivery_id: o.deliveryId, status: o.status }));
      },
    }),
  ];
}

