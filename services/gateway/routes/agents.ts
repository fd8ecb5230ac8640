// GET /v1/agents (docs/api.md#agents).
import { Type } from "typebox";
import { agentView, type AgentRecord } from "../../../shared/agents/record.js";
import { NextCursor, NullableTimestamp } from "../../../shared/schemas/common.js";
import { encodeCursor, isReply, listId, parsePage } from "../http/pagination.js";
import { ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";

const AgentView = Type.Object({
  agent_id: Type.String(),
  hostname: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  edr_device_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal("online"), Type.Literal("offline")]),
  last_seen_at: NullableTimestamp,
  snapshot_collected_at: NullableTimestamp,
});

export function agentRoutes(deps: { listAgents(): Promise<AgentRecord[]> }): Route[] {
  return [
    route({
      method: "GET",
      path: "/v1/agents",
      access: "investigations:read",
      query: Type.Object({ cursor: Type.Optional(Type.String()), limit: Type.Optional(Type.String()) }),
      doc: {
        summary: "List registered agents",
        tags: ["agents"],
        responses: { 200: { description: "A page of agents", schema: Type.Object({ agents: Type.Array(AgentView), next_cursor: NextCursor }) } },
      },
      async handle(ctx) {
        const list = listId("agents");
        const page = parsePage(ctx.query, ["agents"], list);
        if (isReply(page)) return page;
        const all = (await deps.listAgents()).sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1));
        const after = page.after ? String(page.after[1]) : null;
        const rest = after === null ? all : all.filter((a) => a.agent_id > after);
        const items = rest.slice(0, page.limit);
        const last = items[items.length - 1];
        const next = rest.length > page.limit && last ? encodeCursor(["agents", last.agent_id], list) : null;
        return ok({ agents: items.map(agentView), next_cursor: next });
      },
    }),
  ];
}
