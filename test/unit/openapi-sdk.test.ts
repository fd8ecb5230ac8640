// The OpenAPI document is one SDK generators can use (docs/api.md#openapi): it validates as OpenAPI 3.1
// (@apidevtools/swagger-parser), every operation has a unique operationId, shared schemas are $refs (the error
// body defined once), limits are integers, every 401/403 has the error body, every event type is a webhook;
// and the CLI's generated types (openapi-typescript) match the committed document. The committed document is
// what the gateway serves (test/integration/openapi-drift.test.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { test } from "tap";
import { REPO } from "../helpers/services.js";
import { renderApiTypes } from "../../scripts/api-types.js";
import { EVENT_TYPES } from "../../shared/schemas/events.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const doc = JSON.parse(readFileSync(join(REPO, "openapi.json"), "utf8")) as any;
const METHODS = ["get", "post", "patch", "put", "delete"];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const operations = (): Array<[string, string, any]> =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => [path, m, item[m]] as [string, string, unknown]),
  );

test("validates as OpenAPI 3.1 with swagger-parser (refs resolve)", async (t) => {
  const api = await SwaggerParser.validate(structuredClone(doc));
  t.equal((api as { openapi: string }).openapi, "3.1.0");
});

test("every operation has a unique operationId", async (t) => {
  const ids = operations().map(([, , op]) => op.operationId as string);
  t.ok(ids.length > 20, `${ids.length} operations`);
  t.ok(ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id)), "camelCase identifiers");
  t.equal(new Set(ids).size, ids.length, "unique");
  t.equal(doc.paths["/v1/investigations/{id}"].get.operationId, "getInvestigationsById");
});

test("the error body is defined once and referenced; every 401/403 carries it", async (t) => {
  t.ok(doc.components.schemas.ErrorBody, "components.schemas.ErrorBody");
  const text = JSON.stringify(doc.paths);
  t.notOk(text.includes(JSON.stringify(doc.components.schemas.ErrorBody)), "no inline copy of the error body under paths");
  t.ok(text.includes('"$ref":"#/components/schemas/ErrorBody"'));
  for (const [path, method, op] of operations()) {
    for (const status of ["401", "403"]) {
      const resp = op.responses[status];
      if (resp === undefined) continue;
      t.same(resp.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" }, `${method} ${path} ${status}`);
    }
    if (op["x-required-scope"] !== undefined) t.ok(op.responses["401"] && op.responses["403"], `${method} ${path} documents 401 and 403`);
  }
});

test("the pipeline's own answers are documented: 413 and 415 on every JSON body, 503 on every keyed operation", async (t) => {
  let bodies = 0;
  for (const [path, method, op] of operations()) {
    const json = op.requestBody?.content?.["application/json"] !== undefined;
    if (json) {
      bodies++;
      for (const status of ["400", "413", "415"]) t.ok(op.responses[status], `${method} ${path} documents ${status}`);
    }
    if ((op.security as unknown[]).length > 0) t.same(op.responses["503"]?.content?.["application/json"]?.schema, { $ref: "#/components/schemas/ErrorBody" }, `${method} ${path} documents 503`);
  }
  t.ok(bodies >= 8, `${bodies} operations take a JSON body`);
});

test("limit query parameters are integers", async (t) => {
  let limits = 0;
  for (const [path, method, op] of operations()) {
    for (const p of op.parameters as Array<{ name: string; in: string; schema: { type: string } }>) {
      if (p.in !== "query" || p.name !== "limit") continue;
      limits++;
      t.same(p.schema, { type: "integer", minimum: 1, maximum: 200, default: 50 }, `${method} ${path}`);
    }
  }
  t.ok(limits >= 4, `${limits} lists`);
});

test("a webhooks section with every event type's payload", async (t) => {
  t.same(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort());
  const completed = doc.webhooks["investigation.completed"].post.requestBody.content["application/json"].schema;
  t.same(completed, { $ref: "#/components/schemas/InvestigationCompletedEvent" });
  const schema = doc.components.schemas.InvestigationCompletedEvent;
  t.same(schema.properties.type, { const: "investigation.completed", type: "string" });
  t.ok(schema.properties.data.properties.summary, "the payload's fields");
  t.same(doc.components.schemas.FindingDiscoveredEvent.properties.data.properties.finding, { $ref: "#/components/schemas/Finding" });
});

test("cli/api-types.ts is what openapi-typescript generates from openapi.json", async (t) => {
  const committed = readFileSync(join(REPO, "cli", "api-types.ts"), "utf8");
  t.equal(committed, await renderApiTypes(structuredClone(doc)), "cli/api-types.ts is stale: run `make openapi` and commit it");
});
