// The OpenAPI 3.1 document, generated from the route table and the same TypeBox schemas that validate requests,
// shaped for SDK generators (docs/api.md#openapi): an operationId on every operation, shared schemas under
// components.schemas referenced with $ref (the error body defined once), integer query parameters typed as
// integers, every 401/403 with the error body, and a `webhooks` section with every event payload.
import type { TSchema } from "typebox";
import { ReceiptView } from "../../shared/inbound/receipt.js";
import { EndpointView } from "../../shared/inbound/endpoint.js";
import { ErrorBody, Scope } from "../../shared/schemas/common.js";
import { EVENT_CATALOG } from "../../shared/schemas/event-payloads.js";
import { Finding, InvestigationListItem } from "../../shared/schemas/investigation.js";
import type { Route } from "./http/types.js";

/** Schemas defined once in components.schemas; wherever one appears in an operation it becomes a $ref. */
const NAMED: Record<string, TSchema> = { ErrorBody, Scope, Finding, InvestigationListItem, InboundEndpoint: EndpointView, InboundReceipt: ReceiptView };

/** `investigation.completed` -> `InvestigationCompletedEvent`. */
export const eventSchemaName = (type: string): string => `${type.split(/[._]/).map(capitalise).join("")}Event`;

const ERROR_REF = { $ref: "#/components/schemas/ErrorBody" };
const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ERROR_REF } } });

export function openApiDocument(routes: Route[], version: string): Record<string, unknown> {
  const named = new Map(Object.entries(NAMED).map(([name, schema]) => [JSON.stringify(plain(schema)), name]));
  const ref = (schema: TSchema): unknown => refs(plain(schema), named, true);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const querySchema = r.query ?? r.doc.query;
    const query = querySchema ? queryParams(querySchema, ref) : [];
    const responses: Record<string, unknown> = {};
    for (const [status, resp] of Object.entries(r.doc.responses)) {
      responses[status] = resp.schema ? { description: resp.description, content: { "application/json": { schema: ref(resp.schema) } } } : { description: resp.description };
    }
    if (r.access !== "public") {
      responses["401"] ??= errorResponse("Missing or invalid API key");
      if (r.access !== "any_key") responses["403"] ??= errorResponse(`The key lacks ${r.access}`);
    }
    // What the pipeline answers for every management route (services/gateway/http/pipeline.ts), so that a generated
    // client knows them: a body that is not JSON, too large or malformed; the message bus unreachable.
    if (!r.rawBody) {
      if (r.body) {
        responses["400"] ??= errorResponse("Validation error (`invalid_json`, `validation_failed`)");
        responses["413"] ??= errorResponse("The body is over the route's limit (`payload_too_large`)");
        responses["415"] ??= errorResponse("The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`)");
      }
      if (r.access !== "public") responses["503"] ??= errorResponse("NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds");
    }
    const op: Record<string, unknown> = {
      operationId: operationId(r.method, r.path),
      summary: r.doc.summary,
      tags: r.doc.tags,
      parameters: [...params, ...query],
      responses,
      security: r.access === "public" ? [] : [{ bearer: [] }],
    };
    if (r.access !== "public" && r.access !== "any_key") op["x-required-scope"] = r.access;
    if (r.body) op.requestBody = { required: r.bodyOptional !== true, content: { "application/json": { schema: ref(r.body.schema) } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(NAMED)) schemas[name] = refs(plain(schema), named, false);
  const webhooks: Record<string, unknown> = {};
  for (const e of EVENT_CATALOG) {
    const name = eventSchemaName(e.type);
    schemas[name] = ref(e.schema);
    webhooks[e.type] = {
      post: {
        operationId: `on${name}`,
        summary: e.description,
        description: "Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: { "2XX": { description: "Received (any 2xx); other answers are retried on the schedule" } },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Inquest", version, description: "Security investigations from plain-English questions." },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas },
    paths,
    webhooks,
  };
}

/** `GET /v1/webhooks/incoming/endpoints/:id/receipts` -> `getWebhooksIncomingEndpointsByIdReceipts`: unique per method and path. */
export function operationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((s) => s !== "" && s !== "v1")
    .map((s) => (s.startsWith(":") ? `By${capitalise(camel(s.slice(1)))}` : capitalise(camel(s))));
  return `${method.toLowerCase()}${words.join("")}`;
}

function camel(s: string): string {
  return s.replace(/[-_.]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Query parameters; a digits-only string (limit) is documented as the integer it is parsed as. Each takes one value (http/query.ts). */
function queryParams(schema: TSchema, ref: (s: TSchema) => unknown): unknown[] {
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: "query",
    required: false,
    description: ONE_VALUE,
    schema: name === "limit" || isDigits(s) ? limitSchema(name) : ref(s),
  }));
}

const ONE_VALUE = "One value: a parameter given more than once is 400 validation_failed (details name it).";

function isDigits(s: TSchema): boolean {
  const x = s as { type?: unknown; pattern?: unknown };
  return x.type === "string" && x.pattern === "^[0-9]+$";
}

function limitSchema(name: string): unknown {
  return name === "limit" ? { type: "integer", minimum: 1, maximum: 200, default: 50 } : { type: "integer", minimum: 0 };
}

/** Replaces every named schema inside `node` by its $ref (the root too, unless `root` is false). */
function refs(node: unknown, named: Map<string, string>, root: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => refs(n, named, true));
  if (node === null || typeof node !== "object") return node;
  const name = root ? named.get(JSON.stringify(node)) : undefined;
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === "properties" ? mapValues(v, named) : refs(v, named, true)]));
}

function mapValues(props: unknown, named: Map<string, string>): unknown {
  if (props === null || typeof props !== "object") return props;
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, refs(v, named, true)]));
}

/** TypeBox schemas are plain JSON Schema; a JSON round trip drops the symbols TypeBox adds. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}
