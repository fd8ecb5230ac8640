// GET /v1/investigations/{id}/findings (docs/api.md#findings): every finding of an investigation, most severe
// first, then in the engine's order; cursor pages like every list, filtered by severity and agent.
import { Type } from "typebox";
import { FindingsStore, matches, type FindingsFilter } from "../../../shared/investigations/findings-store.js";
import type { InvestigationRecord } from "../../../shared/investigations/record.js";
import type { JsonKv } from "../../../shared/nats/kvjson.js";
import { ErrorBody, isOneOf, NextCursor } from "../../../shared/schemas/common.js";
import { Finding } from "../../../shared/schemas/investigation.js";
import { AGENT_ID_PATTERN } from "../../../shared/nats/catalog.js";
import { SEVERITIES } from "../../../shared/severity.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { fail, invalid, notFound, ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";

export interface FindingRouteDeps {
  investigations: JsonKv<InvestigationRecord>;
  findings: FindingsStore;
}

const FindingList = Type.Object({ findings: Type.Array(Finding), findings_total: Type.Integer({ minimum: 0 }), next_cursor: NextCursor });
const FindingListQuery = Type.Object({
  severity: Type.Optional(Type.String({ description: `One of ${SEVERITIES.join(", ")}: only findings of exactly that severity.` })),
  agent_id: Type.Optional(Type.String({ description: "Only findings on this agent." })),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});
const agentIdPattern = new RegExp(AGENT_ID_PATTERN);
const err = (description: string) => ({ description, schema: ErrorBody });

export function findingRoutes(deps: FindingRouteDeps): Route[] {
  return [
    route({
      method: "GET",
      path: "/v1/investigations/:id/findings",
      ids: { id: "inv" },
      access: "investigations:read",
      query: FindingListQuery,
      doc: {
        summary: "List an investigation's findings, most severe first",
        tags: ["investigations"],
        responses: { 200: { description: "A page of findings", schema: FindingList }, 400: err("Bad filter, limit or cursor"), 404: err("Not found") },
      },
      async handle(ctx) {
        const severity = ctx.query.get("severity");
        const agentId = ctx.query.get("agent_id");
        if (severity !== null && !isOneOf(SEVERITIES, severity)) return invalid([{ path: "/severity", message: `must be one of ${SEVERITIES.join(", ")}` }]);
        if (agentId !== null && !agentIdPattern.test(agentId)) return invalid([{ path: "/agent_id", message: `must match ${AGENT_ID_PATTERN}` }]);
        // The investigation and the filters are part of the cursor: a cursor only continues the list it came from.
        // Without the id, a cursor of one investigation's findings was taken by another's, which then answered a
        // page starting at that position: its first findings skipped, no error.
        const prefix = ["findings", ctx.params.id, severity ?? "", agentId ?? ""];
        const list = listId("findings", { investigation_id: ctx.params.id, severity, agent_id: agentId });
        const page = parsePage(ctx.query, prefix, list);
        if (isReply(page)) return page;
        const after = page.after === null ? -1 : page.after[prefix.length];
        if (typeof after !== "number" || !Number.isSafeInteger(after) || after < -1 || (page.after !== null && (after < 0 || page.after.length !== prefix.length + 1))) {
          return fail(400, "invalid_cursor", "the cursor is not one this list issued (filters must stay the same while paging)");
        }
        const found = await deps.investigations.get(ctx.params.id);
        if (!found) return notFound("investigation");
        const r = found.value;
        const filter: FindingsFilter = { severity, agentId };
        const ref = r.internal.findings_ref;
        const result = ref ? await deps.findings.page(r.investigation_id, ref, filter, after, page.limit) : pageOf(r.findings, filter, after, page.limit);
        const total = r.findings_total ?? r.findings.length;
        const next = result.more && result.last !== null ? encodeCursor([...prefix, result.last], list) : null;
        return ok({ findings: result.items, findings_total: total, next_cursor: next });
      },
    }),
  ];
}

/** The same page over a record's own findings (records from before findings were stored apart). */
function pageOf(findings: Finding[], filter: FindingsFilter, after: number, limit: number): { items: Finding[]; last: number | null; more: boolean } {
  const items: Finding[] = [];
  let last: number | null = null;
  for (let pos = after + 1; pos < findings.length; pos++) {
    const f = findings[pos] as Finding;
    if (!matches(f, filter)) continue;
    if (items.length === limit) return { items, last, more: true };
    items.push(f);
    last = pos;
  }
  return { items, last, more: false };
}
