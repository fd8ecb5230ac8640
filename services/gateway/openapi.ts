// The OpenAPI 3.1 document, generated from the route table and the same TypeBox schemas that validate requests.
import type { TSchema } from "typebox";
import type { Route } from "./http/types.js";

export function openApiDocument(routes: Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const querySchema = r.query ?? r.doc.query;
    const query = querySchema ? queryParams(querySchema) : [];
    const responses: Record<string, unknown> = {};
    for (const [status, resp] of Object.entries(r.doc.responses)) {
      responses[status] = resp.schema ? { description: resp.description, content: { "application/json": { schema: plain(resp.schema) } } } : { description: resp.description };
    }
    if (r.access !== "public") {
      responses["401"] ??= { description: "Missing or invalid API key" };
      responses["403"] ??= { description: `The key lacks ${r.access}` };
    }
    const op: Record<string, unknown> = {
      summary: r.doc.summary,
      tags: r.doc.tags,
      parameters: [...params, ...query],
      responses,
      security: r.access === "public" ? [] : [{ bearer: [] }],
    };
    if (r.access !== "public") op["x-required-scope"] = r.access;
    if (r.body) op.requestBody = { required: r.bodyOptional !== true, content: { "application/json": { schema: plain(r.body.schema) } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Inquest", version, description: "Security investigations from plain-English questions." },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}

function queryParams(schema: TSchema): unknown[] {
  const props = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.entries(props).map(([name, s]) => ({ name, in: "query", required: false, schema: plain(s as TSchema) }));
}

/** TypeBox schemas are plain JSON Schema; a JSON round trip drops the symbols TypeBox adds. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}
