// The gateway's request pipeline without a socket: the contract's order of checks.
import { test } from "tap";
import { Type } from "typebox";
import { pino } from "pino";
import { TimeoutError } from "@nats-io/transport-node";
import type { ApiKeyRecord } from "../../shared/auth/keys.js";
import { BusUnavailableError, LocalStoreUnavailableError } from "../../shared/errors.js";
import { checker } from "../../shared/validate.js";
import { handleRequest } from "../../services/gateway/http/pipeline.js";
import { Router } from "../../services/gateway/http/router.js";
import { encodeCursor, isReply, listId, parsePage } from "../../services/gateway/http/pagination.js";
import type { RawRequest, Route } from "../../services/gateway/http/types.js";

const reader: ApiKeyRecord = { id: "key_r", name: "r", scopes: ["investigations:read"], hash: "", display_prefix: "", created_at: "", revoked_at: null };
const auth = { authenticate: async (t: string) => (t === "good" ? reader : null) };
const calls: string[] = [];
const routes: Route[] = [
  {
    method: "POST",
    path: "/v1/things/:id",
    access: "investigations:read",
    body: checker(Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
    doc: { summary: "", tags: [], responses: {} },
    handle: async (ctx) => {
      calls.push(ctx.params.id as string);
      return { status: 201, body: ctx.body };
    },
  },
  { method: "GET", path: "/v1/things/:id", access: "webhooks:manage", doc: { summary: "", tags: [], responses: {} }, handle: async () => ({ status: 200 }) },
  { method: "POST", path: "/v1/things/:id/poke", access: "investigations:read", doc: { summary: "", tags: [], responses: {} }, handle: async () => ({ status: 202 }) },
  { method: "DELETE", path: "/v1/things/special", access: "investigations:read", doc: { summary: "", tags: [], responses: {} }, handle: async () => ({ status: 204 }) },
  { method: "GET", path: "/boom", access: "public", doc: { summary: "", tags: [], responses: {} }, handle: async () => { throw new Error("kaput"); } },
];
const deps = { router: new Router(routes), auth, log: pino({ level: "silent" }) };
const req = (over: Partial<RawRequest>): RawRequest => ({ method: "POST", path: "/v1/things/a%20b", query: "", headers: {}, body: Buffer.alloc(0), bodyTooLarge: false, ...over });
const json = { "content-type": "application/json" };

test("order: route, key, scope, media type, size, JSON, schema, handler", async (t) => {
  const code = async (r: Partial<RawRequest>) => {
    const reply = await handleRequest(deps, req(r));
    return [reply.status, (reply.body as { error?: { code: string } } | undefined)?.error?.code];
  };
  t.same(await code({ path: "/nowhere" }), [404, "not_found"], "outside /v1 an unknown path is a plain 404");
  t.same(await code({ path: "/v1/nowhere" }), [401, "unauthorized"], "under /v1 the key comes before 404");
  t.same(await code({ method: "DELETE" }), [401, "unauthorized"], "and before 405");
  t.same(await code({ path: "/v1/nowhere", headers: { authorization: "Bearer good" } }), [404, "not_found"]);
  t.same(await code({ method: "DELETE", headers: { authorization: "Bearer good" } }), [405, "method_not_allowed"]);
  t.same(await code({ bodyTooLarge: true, headers: { "content-type": "text/plain" } }), [401, "unauthorized"], "401 before anything else");
  t.same(await code({ method: "GET", headers: { authorization: "Bearer good" } }), [403, "forbidden"]);
  t.same(await code({ headers: { authorization: "Bearer good", "content-type": "text/plain" }, bodyTooLarge: true }), [415, "unsupported_media_type"]);
  t.same(await code({ headers: { authorization: "Bearer good", ...json }, bodyTooLarge: true }), [413, "payload_too_large"]);
  t.same(await code({ headers: { authorization: "Bearer good", ...json }, body: Buffer.from("{") }), [400, "invalid_json"]);
  t.same(await code({ headers: { authorization: "Bearer good", ...json }, body: Buffer.from('{"name":""}') }), [400, "validation_failed"]);
  const badUtf8 = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  t.same(await code({ headers: { authorization: "Bearer good", ...json }, body: badUtf8 }), [400, "invalid_json"], "invalid UTF-8 is not JSON");
  t.same(await code({ headers: { authorization: "Bearer good", ...json }, body: Buffer.from('\ufeff{"name":"x"}') }), [400, "invalid_json"], "a BOM stays invalid JSON");
  t.same(calls, [], "the handler never ran for a rejected request");
  const ok = await handleRequest(deps, req({ headers: { authorization: "bearer good", "content-type": "application/json; charset=utf-8" }, body: Buffer.from('{"name":"x"}') }));
  t.equal(ok.status, 201);
  t.same(calls, ["a b"], "path params are decoded");
});

test("a route without a body schema still refuses non-JSON and oversized bodies", async (t) => {
  const poke = (over: Partial<RawRequest>) => handleRequest(deps, req({ path: "/v1/things/x/poke", ...over }));
  t.equal((await poke({ headers: { authorization: "Bearer good" } })).status, 202, "no body is fine");
  t.equal((await poke({ headers: { authorization: "Bearer good", "content-type": "text/plain" }, body: Buffer.from("hi") })).status, 415);
  t.equal((await poke({ headers: { authorization: "Bearer good", ...json }, bodyTooLarge: true })).status, 413);
});

test("the most specific path pattern decides the method: a literal segment shadows a parameter", async (t) => {
  const r = await handleRequest(deps, req({ method: "POST", path: "/v1/things/special", headers: { authorization: "Bearer good", ...json }, body: Buffer.from('{"name":"x"}') }));
  t.equal(r.status, 405, "POST /v1/things/special is not the :id route");
  const d = await handleRequest(deps, req({ method: "DELETE", path: "/v1/things/special", headers: { authorization: "Bearer good" } }));
  t.equal(d.status, 204);
});

test("an unexpected error is a 500 with the error body and no details leaked", async (t) => {
  const r = await handleRequest(deps, req({ method: "GET", path: "/boom" }));
  t.equal(r.status, 500);
  t.same(r.body, { error: { code: "internal", message: "internal error" } });
});

test("pagination: limits, and cursors bound to their list", async (t) => {
  const investigations = listId("investigations", { status: null, trigger_source: null });
  const q = (s: string) => parsePage(new URLSearchParams(s), ["all"], investigations);
  t.same(q(""), { limit: 50, after: null });
  t.same(q("limit=200"), { limit: 200, after: null });
  for (const bad of ["limit=0", "limit=201", "limit=1.5", "limit=-1"]) t.ok(isReply(q(bad)), bad);
  const cursor = encodeCursor(["all", 5, "inv_x"], investigations) as string;
  t.same(q(`cursor=${cursor}`), { limit: 50, after: ["all", 5, "inv_x"] });
  const other = parsePage(new URLSearchParams(`cursor=${cursor}`), ["status", "queued"], investigations);
  t.ok(isReply(other) && other.status === 400);
  t.ok(isReply(q("cursor=%%%")));
  t.equal(encodeCursor(null, investigations), null);
});

test("pagination: a cursor continues only the list and filters it was issued for, even where index prefixes overlap", async (t) => {
  const refused = (r: ReturnType<typeof parsePage>) => isReply(r) && r.status === 400 && (r.body as { error: { code: string } }).error.code === "invalid_cursor";
  // The unfiltered investigations and deliveries lists both walk ["all"].
  const fromInvestigations = encodeCursor(["all", 5, "inv_x"], listId("investigations", { status: null, trigger_source: null })) as string;
  t.ok(refused(parsePage(new URLSearchParams(`cursor=${fromInvestigations}`), ["all"], listId("deliveries", { status: null, subscription_id: null, event_id: null }))), "an investigations cursor on the deliveries list");
  // Every delivery list filtered by an event walks that event's entries, whatever its other filters.
  const pending = listId("deliveries", { status: "pending", subscription_id: null, event_id: "evt_1" });
  const fromPending = encodeCursor(["event", "evt_1", 5, "dlv_x"], pending) as string;
  t.same(parsePage(new URLSearchParams(`cursor=${fromPending}`), ["event", "evt_1"], pending), { limit: 50, after: ["event", "evt_1", 5, "dlv_x"] }, "the same list and filters");
  for (const [label, filters] of [
    ["another status", { status: "delivered", subscription_id: null, event_id: "evt_1" }],
    ["a subscription added", { status: "pending", subscription_id: "sub_1", event_id: "evt_1" }],
    ["the status dropped", { status: null, subscription_id: null, event_id: "evt_1" }],
  ] as const) {
    t.ok(refused(parsePage(new URLSearchParams(`cursor=${fromPending}`), ["event", "evt_1"], listId("deliveries", filters))), label);
  }
  t.equal(listId("x", { a: "1", b: null }), listId("x", { b: null, a: "1" }), "the filters' order does not matter");
  t.not(listId("x", { a: null }), listId("x", { a: "" }), "an empty filter is not an absent one");
});

test("a bus failure is a 503 that says 'nothing was changed' only when the operation decided so", async (t) => {
  const throwing = (err: unknown): Route => ({ method: "GET", path: "/bus", access: "public", doc: { summary: "", tags: [], responses: {} }, handle: async () => Promise.reject(err) });
  const answer = async (err: unknown) => {
    const reply = await handleRequest({ ...deps, router: new Router([throwing(err)]) }, req({ method: "GET", path: "/bus" }));
    return { status: reply.status, message: (reply.body as { error: { message: string } }).error.message };
  };
  const nothing = await answer(new BusUnavailableError("x", { cause: null, changed: "nothing" }));
  t.equal(nothing.status, 503);
  t.match(nothing.message, /nothing was changed/);
  const unknown = await answer(new BusUnavailableError("x", { cause: null, changed: "unknown" }));
  t.equal(unknown.status, 503);
  t.notMatch(unknown.message, /nothing was changed/, "the write may have happened");
  const plain = await answer(new TimeoutError());
  t.equal(plain.status, 503, "an undecided bus failure is still a 503");
  t.notMatch(plain.message, /nothing was changed/, "but claims nothing");
  t.equal((await answer(new Error("timeout: no responders, connection closed"))).status, 500, "words in a message decide nothing");
  const write = await handleRequest(
    { ...deps, router: new Router([{ method: "POST", path: "/bus", access: "public", doc: { summary: "", tags: [], responses: {} }, handle: async () => Promise.reject(new TimeoutError()) }]) },
    req({ method: "POST", path: "/bus" }),
  );
  t.equal(write.status, 503);
  t.match((write.body as { error: { message: string } }).error.message, /may have been applied; read or list before retrying/, "an unanswered write (a create the bus stored before its answer was lost) says it may have happened");
});

test("a read in the instant the local store reopens is a 503 with Retry-After", async (t) => {
  const route: Route = { method: "GET", path: "/list", access: "public", doc: { summary: "", tags: [], responses: {} }, handle: async () => Promise.reject(new LocalStoreUnavailableError("reopening")) };
  const reply = await handleRequest({ ...deps, router: new Router([route]) }, req({ method: "GET", path: "/list" }));
  t.equal(reply.status, 503);
  t.equal(reply.headers?.["retry-after"], "1");
  t.match(reply.body, { error: { code: "unavailable" } });
});
