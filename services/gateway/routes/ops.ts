// Unauthenticated operational endpoints (docs/api.md#operations).
import type { Route } from "../http/types.js";
import { fail, ok } from "../http/reply.js";

export interface OpsDeps {
  ready(): Promise<{ ok: boolean; reason?: string }>;
  metrics(): string;
  openapi(): unknown;
}

export function opsRoutes(deps: OpsDeps): Route[] {
  return [
    { method: "GET", path: "/healthz", access: "public", doc: { summary: "Process is alive", tags: ["ops"], responses: { 200: { description: "Alive" } } }, handle: async () => ok({ ok: true }) },
    {
      method: "GET",
      path: "/readyz",
      access: "public",
      doc: { summary: "Ready: NATS connected, streams and buckets present", tags: ["ops"], responses: { 200: { description: "Ready" }, 503: { description: "Not ready" } } },
      async handle() {
        const r = await deps.ready();
        return r.ok ? ok({ ok: true }) : fail(503, "unavailable", r.reason ?? "not ready", undefined, { "retry-after": "1" });
      },
    },
    {
      method: "GET",
      path: "/metrics",
      access: "public",
      doc: { summary: "Prometheus metrics", tags: ["ops"], responses: { 200: { description: "Prometheus text format" } } },
      handle: async () => ({ status: 200, raw: deps.metrics(), headers: { "content-type": "text/plain; version=0.0.4" } }),
    },
    {
      method: "GET",
      path: "/v1/openapi.json",
      access: "public",
      doc: { summary: "This API's OpenAPI 3.1 document", tags: ["ops"], responses: { 200: { description: "OpenAPI document" } } },
      handle: async () => ok(deps.openapi()),
    },
  ];
}
