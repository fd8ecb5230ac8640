// Typed routes: the handler's params, query names and body are inferred from the route's path and schemas
// (checked by the compiler: each @ts-expect-error below must stay an error), and the pipeline validates
// before the handler runs, which is what makes those types true.
import { pino } from "pino";
import { test } from "tap";
import { Type } from "typebox";
import { handleRequest } from "../../services/gateway/http/pipeline.js";
import { Router } from "../../services/gateway/http/router.js";
import { route, type RawRequest } from "../../services/gateway/http/types.js";

const Thing = Type.Object({ name: Type.String({ minLength: 1 }), size: Type.Optional(Type.Integer()) }, { additionalProperties: false });
const seen: Array<{ id: string; part: string; name: string; size: number | undefined; filter: string | null }> = [];

const thing = route({
  method: "POST",
  path: "/v1/things/:id/parts/:part",
  access: "public",
  body: Thing,
  query: Type.Object({ filter: Type.Optional(Type.String()) }),
  doc: { summary: "", tags: [], responses: {} },
  async handle(ctx) {
    const name: string = ctx.body.name;
    const size: number | undefined = ctx.body.size;
    // @ts-expect-error the body schema has no such field
    void ctx.body.colour;
    // @ts-expect-error the path has no such parameter
    void ctx.params.other;
    // @ts-expect-error the query schema declares no such name
    void ctx.query.get("other");
    seen.push({ id: ctx.params.id, part: ctx.params.part, name, size, filter: ctx.query.get("filter") });
    return { status: 201 };
  },
});

const bodiless = route({
  method: "GET",
  path: "/v1/plain",
  access: "public",
  doc: { summary: "", tags: [], responses: {} },
  async handle(ctx) {
    const none: undefined = ctx.body;
    return { status: 200, body: { none: none ?? null } };
  },
});

const deps = { router: new Router([thing, bodiless]), auth: { authenticate: async () => null }, log: pino({ level: "silent" }) };
const req = (over: Partial<RawRequest>): RawRequest => ({ method: "POST", path: "/v1/things/a/parts/b", query: "", headers: { "content-type": "application/json" }, body: Buffer.alloc(0), bodyTooLarge: false, ...over });

test("the handler gets the typed, validated input; an invalid body never reaches it", async (t) => {
  t.equal((await handleRequest(deps, req({ body: Buffer.from('{"name":""}') }))).status, 400);
  t.equal((await handleRequest(deps, req({ body: Buffer.from('{"name":"x","extra":1}') }))).status, 400);
  t.same(seen, []);
  t.equal((await handleRequest(deps, req({ query: "filter=f", body: Buffer.from('{"name":"x","size":3}') }))).status, 201);
  t.same(seen, [{ id: "a", part: "b", name: "x", size: 3, filter: "f" }]);
  t.same((await handleRequest(deps, req({ method: "GET", path: "/v1/plain", headers: {} }))).body, { none: null });
});

test("the route keeps its schemas for the OpenAPI document", async (t) => {
  t.ok(thing.body, "the body checker");
  t.same(Object.keys((thing.query as { properties: Record<string, unknown> }).properties), ["filter"]);
  t.equal(bodiless.body, undefined);
});
