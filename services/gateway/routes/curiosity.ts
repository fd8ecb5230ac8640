// /v1/curiosity (docs/api.md#curiosity): standing questions the ticker runs on a schedule.
import type { Clock } from "../../../shared/clock.js";
import type { CuriosityRecord } from "../../../shared/curiosity/record.js";
import { runsTooLarge, toItem } from "../../../shared/curiosity/record.js";
import { checkFirstRunAt, checkInterval, newRecord } from "../../../shared/curiosity/schedule.js";
import { CuriosityCreate, CuriosityItem, CuriosityList, CuriosityListQuery, CuriosityPatch } from "../../../shared/curiosity/schemas.js";
import type { CuriosityStore } from "../../../shared/curiosity/store.js";
import { newId } from "../../../shared/ids.js";
import type { ReadModel } from "../../../shared/readmodel.js";
import { ErrorBody } from "../../../shared/schemas/common.js";
import { CURIOSITY_PREFIX } from "../curiosity-index.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { invalid, noContent, notFound, ok } from "../http/reply.js";
import { route, type Reply, type Route } from "../http/types.js";

export interface CuriosityRouteDeps {
  store: CuriosityStore;
  index: ReadModel<CuriosityRecord>;
  clock: Clock;
  /** INQUEST_CURIOSITY_MIN_INTERVAL in milliseconds. */
  minIntervalMs: number;
}

const err = (description: string) => ({ description, schema: ErrorBody });

export function curiosityRoutes(deps: CuriosityRouteDeps): Route[] {
  const intervalProblem = (interval: string | undefined): Reply | null => {
    if (interval === undefined) return null;
    const checked = checkInterval(interval, deps.minIntervalMs);
    return checked.ok ? null : invalid([{ path: "/interval", message: checked.message }], "the request body is not valid");
  };
  const firstRunAtProblem = (firstRunAt: string | undefined): Reply | null => {
    if (firstRunAt === undefined) return null;
    const checked = checkFirstRunAt(firstRunAt);
    return checked.ok ? null : invalid([{ path: "/first_run_at", message: checked.message }], "the request body is not valid");
  };
  return [
    route({
      method: "GET",
      path: "/v1/curiosity",
      access: "curiosity:read",
      query: CuriosityListQuery,
      doc: {
        summary: "List curiosity items, soonest next_run_at first",
        tags: ["curiosity"],
        responses: { 200: { description: "A page", schema: CuriosityList }, 400: err("Bad limit or cursor") },
      },
      async handle(ctx) {
        const list = listId("curiosity");
        const page = parsePage(ctx.query, CURIOSITY_PREFIX, list);
        if (isReply(page)) return page;
        await deps.index.catchUp();
        const result = deps.index.page(CURIOSITY_PREFIX, { after: page.after, limit: page.limit, reverse: false });
        return ok({ items: result.items.map(toItem), next_cursor: encodeCursor(result.next, list) });
      },
    }),
    route({
      method: "POST",
      path: "/v1/curiosity",
      access: "curiosity:write",
      body: CuriosityCreate,
      doc: {
        summary: "Create a curiosity item (first run at first_run_at, or now)",
        tags: ["curiosity"],
        responses: { 201: { description: "Created", schema: CuriosityItem }, 400: err("Validation error") },
      },
      async handle(ctx) {
        const body = ctx.body;
        const problem = intervalProblem(body.interval) ?? firstRunAtProblem(body.first_run_at);
        if (problem) return problem;
        const now = deps.clock.now();
        const id = newId("cur", now);
        const tooLarge = runsTooLarge(id, { query: body.query, scope: body.scope ?? null });
        if (tooLarge) return invalid([tooLarge], "the request body is not valid");
        const record = newRecord(id, body, ctx.auth?.id ?? null, now);
        await deps.store.create(record);
        return ok(toItem(record), 201);
      },
    }),
    route({
      method: "GET",
      path: "/v1/curiosity/:id",
      ids: { id: "cur" },
      access: "curiosity:read",
      doc: {
        summary: "Read a curiosity item",
        tags: ["curiosity"],
        responses: { 200: { description: "The item", schema: CuriosityItem }, 404: err("Not found") },
      },
      async handle(ctx) {
        const id = ctx.params.id;
        const record = await deps.store.get(id);
        return record ? ok(toItem(record)) : notFound("curiosity item");
      },
    }),
    route({
      method: "PATCH",
      path: "/v1/curiosity/:id",
      ids: { id: "cur" },
      access: "curiosity:write",
      body: CuriosityPatch,
      doc: {
        summary: "Change a curiosity item: interval or first_run_at re-queue it, active pauses or resumes it",
        tags: ["curiosity"],
        responses: { 200: { description: "The updated item", schema: CuriosityItem }, 400: err("Validation error"), 404: err("Not found") },
      },
      async handle(ctx) {
        const body = ctx.body;
        const problem = intervalProblem(body.interval) ?? firstRunAtProblem(body.first_run_at);
        if (problem) return problem;
        const id = ctx.params.id;
        if (body.query !== undefined || body.scope !== undefined) {
          // Checked against the item as it is now (a concurrent PATCH of the other field could still combine with
          // this one; the ticker then logs the item instead of triggering it).
          const current = await deps.store.get(id);
          if (!current) return notFound("curiosity item");
          const tooLarge = runsTooLarge(id, { query: body.query ?? current.query, scope: body.scope !== undefined ? body.scope : current.scope });
          if (tooLarge) return invalid([tooLarge], "the request body is not valid");
        }
        const outcome = await deps.store.patch(id, body, deps.clock.now());
        return outcome.kind === "gone" ? notFound("curiosity item") : ok(toItem(outcome.record));
      },
    }),
    route({
      method: "DELETE",
      path: "/v1/curiosity/:id",
      ids: { id: "cur" },
      access: "curiosity:write",
      doc: {
        summary: "Delete a curiosity item for good (investigations it triggered stay)",
        tags: ["curiosity"],
        responses: { 204: { description: "Deleted" }, 404: err("Not found") },
      },
      async handle(ctx) {
        const id = ctx.params.id;
        return (await deps.store.remove(id)) ? noContent() : notFound("curiosity item");
      },
    }),
  ];
}
