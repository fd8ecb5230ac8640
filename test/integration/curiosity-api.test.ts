// /v1/curiosity over real HTTP (docs/api.md#curiosity): create, list order and pages, PATCH,
// DELETE, validation and scopes. Gateway only: nothing is triggered here (curiosity-runs covers that).
import { test } from "tap";
import { issueKey } from "../helpers/cli.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
const call = (method: string, path: string, body?: unknown, key: string | null = stack.key) => api(stack.baseUrl, method, path, { key, body });
const create = (body: Record<string, unknown>) => call("POST", "/v1/curiosity", { query: "any cryptominers?", interval: "1h", ...body });
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FAR = "2031-01-01T00:00:00.000Z";

test("setup", async () => {
  stack = await startStack({ services: ["gateway"], env: { INQUEST_CURIOSITY_MIN_INTERVAL: "5s" } });
});

test("POST: 201 with the whole item; first run now by default, else at first_run_at", async (t) => {
  const before = Date.now();
  const r = await create({});
  t.equal(r.status, 201);
  const item = r.json;
  t.match(item.id, /^cur_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.same(Object.keys(item).sort(), [
    "active", "created_at", "depth", "first_run_at", "id", "interval", "last_investigation_id", "last_run_at", "next_run_at", "query", "run_count", "scope", "updated_at",
  ]);
  t.match(item, { query: "any cryptominers?", interval: "1h", scope: null, depth: "standard", active: true, run_count: 0, last_run_at: null, last_investigation_id: null });
  for (const f of ["next_run_at", "created_at", "updated_at", "first_run_at"]) t.match(item[f], TS, `${f} is RFC 3339 UTC with milliseconds`);
  t.ok(Date.parse(item.next_run_at) >= before - 1000 && Date.parse(item.next_run_at) <= Date.now(), "due immediately");
  t.equal(item.next_run_at, item.created_at);

  const scheduled = await create({ first_run_at: "2030-06-01T12:00:00+02:00", depth: "deep", active: false, scope: { type: "selector", filter: { tags: { env: "prod" } } } });
  t.equal(scheduled.status, 201);
  t.equal(scheduled.json.first_run_at, "2030-06-01T10:00:00.000Z", "normalised to UTC");
  t.equal(scheduled.json.next_run_at, "2030-06-01T10:00:00.000Z");
  t.equal(scheduled.json.depth, "deep");
  t.equal(scheduled.json.active, false);
  t.same(scheduled.json.scope, { type: "selector", filter: { tags: { env: "prod" } } });

  const read = await call("GET", `/v1/curiosity/${item.id}`);
  t.equal(read.status, 200);
  t.same(read.json, item, "readable at once");
});

test("POST and PATCH: 400 on a bad interval, depth, scope, first_run_at or an unknown field", async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ interval: "4s" }, "/interval"],
    [{ interval: "0m" }, "/interval"],
    [{ interval: "01h" }, "/interval"],
    [{ interval: "1.5h" }, "/interval"],
    [{ interval: "500ms" }, "/interval"],
    [{ interval: "1y" }, "/interval"],
    [{ interval: "10" }, "/interval"],
    [{ interval: 3600 }, "/interval"],
    [{ interval: "999999999999w" }, "/interval"],
    [{ interval: "99999999999999999999w" }, "/interval"], // past 2^53: next_run_at would overflow a Date
    [{ first_run_at: "+275760-09-13T00:00:00Z" }, "/first_run_at"], // the last instant a Date holds, six-digit year
    [{ first_run_at: "+999999-01-01T00:00:00Z" }, "/first_run_at"],
    [{ first_run_at: "275760-09-13T00:00:00.001Z" }, "/first_run_at"],
    [{ depth: "extreme" }, "/depth"],
    [{ scope: { type: "everything" } }, "/scope"],
    [{ scope: { type: "selector", filter: { hosts: ["a"] } } }, "/scope"],
    [{ first_run_at: "tomorrow" }, "/first_run_at"],
    [{ first_run_at: "2030-02-30T10:00:00Z" }, "/first_run_at"],
    [{ first_run_at: "2030-06-01 10:00:00Z" }, "/first_run_at"],
    [{ first_run_at: "2030-06-01T10:00:00" }, "/first_run_at"],
    [{ first_run_at: "2026-06-30T23:59:60Z" }, "/first_run_at"], // a leap second: RFC 3339, but Date.parse gives NaN
    [{ first_run_at: "9999-12-31T23:59:59-23:59" }, "/first_run_at"], // UTC year 10000
    [{ active: "yes" }, "/active"],
    [{ query: "" }, "/query"],
    [{ query: "  ", interval: "1h" }, "/query"],
    [{ intervall: "1h" }, "/intervall"],
  ];
  const target = (await create({ first_run_at: FAR })).json.id as string;
  for (const [body, path] of cases) {
    const posted = await create(body);
    t.equal(posted.status, 400, `POST ${JSON.stringify(body)}`);
    t.equal(posted.json?.error?.code, "validation_failed");
    t.ok((posted.json?.error?.details as Array<{ path: string }> | undefined)?.some((d) => d.path.startsWith(path)), `POST detail names ${path}: ${JSON.stringify(posted.json?.error?.details)}`);
    const patched = await call("PATCH", `/v1/curiosity/${target}`, body);
    t.equal(patched.status, 400, `PATCH ${JSON.stringify(body)}`);
    t.equal(patched.json?.error?.code, "validation_failed");
    t.ok((patched.json?.error?.details as Array<{ path: string }> | undefined)?.some((d) => d.path.startsWith(path)), `PATCH detail names ${path}`);
  }
  for (const missing of ["query", "interval"]) {
    const body: Record<string, unknown> = { query: "q", interval: "1h" };
    delete body[missing];
    const r = await call("POST", "/v1/curiosity", body);
    t.equal(r.status, 400);
    t.same(r.json.error.details[0].path, `/${missing}`);
  }
  for (const interval of ["5201w", "999999999999w", "99999999999999999999w"]) {
    const r = await create({ interval });
    t.same(r.json?.error?.details, [{ path: "/interval", message: "must be at most 5200w" }], `${interval}: said to be too long, not malformed`);
  }
  // The latest first run, and the longest interval after it: both stored and read back as they were given.
  const latest = await create({ interval: "5200w", first_run_at: "9999-12-31T23:59:59.999Z" });
  t.equal(latest.status, 201);
  t.equal((await call("GET", `/v1/curiosity/${latest.json.id}`)).json.next_run_at, "9999-12-31T23:59:59.999Z");
  t.equal((await call("DELETE", `/v1/curiosity/${latest.json.id}`)).status, 204);
  t.equal((await create({ interval: "5s" })).status, 201, "exactly INQUEST_CURIOSITY_MIN_INTERVAL is accepted");
  t.equal((await create({ interval: "2w" })).status, 201);
  const notJson = await api(stack.baseUrl, "POST", "/v1/curiosity", { key: stack.key, rawBody: "query=x", headers: { "content-type": "text/plain" } });
  t.equal(notJson.status, 415);
  const broken = await api(stack.baseUrl, "POST", "/v1/curiosity", { key: stack.key, rawBody: "{", headers: { "content-type": "application/json" } });
  t.equal(broken.json.error.code, "invalid_json");
  t.same((await call("GET", `/v1/curiosity/${target}`)).json.interval, "1h", "refused PATCHes changed nothing");
});

test("GET: next_run_at ascending, ties by id, cursor pages without repeats or gaps", async (t) => {
  const mk = async (at: string) => (await create({ first_run_at: at, interval: "1d" })).json.id as string;
  const tie = "2029-03-01T00:00:00.000Z";
  const ids = [await mk("2029-05-01T00:00:00.000Z"), await mk(tie), await mk("2029-01-01T00:00:00.000Z"), await mk(tie), await mk(tie)];
  const all: Array<{ id: string; next_run_at: string }> = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<typeof call>> = await call("GET", `/v1/curiosity?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    t.equal(page.status, 200);
    t.ok(page.json.items.length <= 2);
    all.push(...page.json.items);
    cursor = page.json.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  t.equal(new Set(all.map((i) => i.id)).size, all.length, "no repeats");
  const keys = all.map((i) => [Date.parse(i.next_run_at), i.id] as const);
  const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
  t.same(keys, sorted, "next_run_at ascending, ties by id");
  const mine = all.map((i) => i.id).filter((id) => ids.includes(id));
  t.same(mine, [ids[2], ...[ids[1], ids[3], ids[4]].sort(), ids[0]], "all five, in schedule order");
  const last = await call("GET", `/v1/curiosity?limit=200`);
  t.equal(last.json.next_cursor, null, "the last page has next_cursor null");
  t.equal((await call("GET", "/v1/curiosity?limit=0")).status, 400);
  t.equal((await call("GET", "/v1/curiosity?limit=201")).status, 400);
  const bad = await call("GET", "/v1/curiosity?cursor=nonsense");
  t.equal(bad.status, 400);
  t.equal(bad.json.error.code, "invalid_cursor");
});

test("GET pages: an item whose next_run_at does not change during the walk is returned exactly once, while others move", async (t) => {
  // The documented guarantee (docs/api.md#http as it applies to a list ordered by a mutable key): the cursor is the
  // last (next_run_at, id) returned, so an item moved across the cursor mid-walk may be skipped (moved back) or
  // repeated (moved forward); every item whose position does not change is seen exactly once.
  const base = Date.parse("2032-01-01T00:00:00.000Z");
  const mine: string[] = [];
  for (let i = 0; i < 8; i++) mine.push((await create({ first_run_at: new Date(base + i * 3_600_000).toISOString(), interval: "1d" })).json.id as string);
  const [early, , , , , , late] = mine as [string, string, string, string, string, string, string, string];
  const moved = new Set([early, late]);
  let patched = false;
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<typeof call>> = await call("GET", `/v1/curiosity?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    t.equal(page.status, 200);
    seen.push(...(page.json.items as Array<{ id: string }>).map((i) => i.id));
    cursor = page.json.next_cursor;
    if (seen.includes(early) && !patched) {
      // Mid-walk: one item already returned moves forward, one not yet returned moves back.
      await call("PATCH", `/v1/curiosity/${early}`, { first_run_at: new Date(base + 20 * 3_600_000).toISOString() });
      await call("PATCH", `/v1/curiosity/${late}`, { first_run_at: new Date(base - 3_600_000).toISOString() });
      patched = true;
    }
    pages++;
  } while (cursor && pages < 200);
  t.ok(patched, "the items were moved during the walk");
  for (const id of mine.filter((m) => !moved.has(m))) t.equal(seen.filter((s) => s === id).length, 1, `${id} exactly once`);
});

test("PATCH: 200 with the updated item; first_run_at re-queues; active pauses and resumes; only included fields change", async (t) => {
  const item = (await create({ first_run_at: FAR, interval: "6h" })).json;
  await new Promise((r) => setTimeout(r, 5));
  const moved = await call("PATCH", `/v1/curiosity/${item.id}`, { first_run_at: "2030-01-01T08:30:00Z" });
  t.equal(moved.status, 200);
  t.equal(moved.json.next_run_at, "2030-01-01T08:30:00.000Z");
  t.equal(moved.json.first_run_at, "2030-01-01T08:30:00.000Z");
  t.ok(moved.json.updated_at > item.updated_at, "updated_at moves");
  t.equal(moved.json.created_at, item.created_at);
  t.equal(moved.json.interval, "6h", "omitted fields stay");
  const paused = await call("PATCH", `/v1/curiosity/${item.id}`, { active: false });
  t.equal(paused.json.active, false);
  t.equal(paused.json.next_run_at, "2030-01-01T08:30:00.000Z", "pausing keeps the schedule");
  const edited = await call("PATCH", `/v1/curiosity/${item.id}`, { query: "new question", depth: "quick", scope: { type: "selector", filter: { agent_ids: ["web-1"] } }, interval: "2d" });
  t.match(edited.json, { query: "new question", depth: "quick", interval: "2d", active: false, next_run_at: "2030-01-01T08:30:00.000Z" });
  t.same(edited.json.scope, { type: "selector", filter: { agent_ids: ["web-1"] } });
  const resumed = await call("PATCH", `/v1/curiosity/${item.id}`, { active: true });
  t.equal(resumed.json.active, true);
  t.same((await call("GET", `/v1/curiosity/${item.id}`)).json, resumed.json, "the PATCH answer is the stored item");
  const cleared = await call("PATCH", `/v1/curiosity/${item.id}`, { scope: null });
  t.equal(cleared.json.scope, null, "scope null = every agent");
  const listed = (await call("GET", "/v1/curiosity?limit=200")).json.items.find((i: { id: string }) => i.id === item.id);
  t.same(listed, cleared.json, "the list shows the change at once");
});

test("DELETE: 204 with an empty body, permanent; 404 for unknown ids everywhere", async (t) => {
  const item = (await create({ first_run_at: FAR })).json;
  const del = await call("DELETE", `/v1/curiosity/${item.id}`);
  t.equal(del.status, 204);
  t.equal(del.text, "");
  const gone = (await call("GET", "/v1/curiosity?limit=200")).json.items.map((i: { id: string }) => i.id);
  t.notOk(gone.includes(item.id), "gone from the list");
  for (const [method, path, body] of [
    ["DELETE", `/v1/curiosity/${item.id}`, undefined],
    ["PATCH", `/v1/curiosity/${item.id}`, { active: false }],
    ["GET", `/v1/curiosity/${item.id}`, undefined],
    ["PATCH", "/v1/curiosity/cur_01ARZ3NDEKTSV4RRFFQ69G5FAV", { active: false }],
    ["DELETE", "/v1/curiosity/not-an-id", undefined],
    ["GET", "/v1/curiosity/a.b.*", undefined],
  ] as const) {
    const r = await call(method, path, body);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.json.error.code, "not_found");
  }
});

test("scopes: curiosity:read for GET, curiosity:write for POST, PATCH and DELETE", async (t) => {
  const id = (await create({ first_run_at: FAR })).json.id as string;
  const reader = issueKey(stack.nats.url, ["curiosity:read"]);
  const writer = issueKey(stack.nats.url, ["curiosity:write"]);
  const other = issueKey(stack.nats.url, ["investigations:read", "investigations:trigger"]);
  const routes: Array<[string, string, unknown, "read" | "write"]> = [
    ["GET", "/v1/curiosity", undefined, "read"],
    ["GET", `/v1/curiosity/${id}`, undefined, "read"],
    ["POST", "/v1/curiosity", { query: "q", interval: "1h", first_run_at: FAR }, "write"],
    ["PATCH", `/v1/curiosity/${id}`, { depth: "quick" }, "write"],
  ];
  for (const [method, path, body, need] of routes) {
    t.equal((await call(method, path, body, null)).status, 401, `${method} ${path} without a key`);
    const forbidden = await call(method, path, body, other);
    t.equal(forbidden.status, 403, `${method} ${path} with neither curiosity scope`);
    t.match(forbidden.json.error.message, `curiosity:${need}`);
    t.equal((await call(method, path, body, need === "read" ? writer : reader)).status, 403, `${method} ${path} with the other curiosity scope`);
    t.equal((await call(method, path, body, need === "read" ? reader : writer)).status < 300, true, `${method} ${path} with curiosity:${need}`);
  }
  t.equal((await call("DELETE", `/v1/curiosity/${id}`, undefined, reader)).status, 403);
  t.equal((await call("DELETE", `/v1/curiosity/${id}`, undefined, writer)).status, 204);
});

test("the OpenAPI document describes the curiosity routes with their scopes", async (t) => {
  const doc = (await api(stack.baseUrl, "GET", "/v1/openapi.json")).json;
  t.equal(doc.paths["/v1/curiosity"].get["x-required-scope"], "curiosity:read");
  t.equal(doc.paths["/v1/curiosity"].post["x-required-scope"], "curiosity:write");
  t.ok(doc.paths["/v1/curiosity"].post.responses["201"]);
  t.equal(doc.paths["/v1/curiosity/{id}"].patch["x-required-scope"], "curiosity:write");
  t.ok(doc.paths["/v1/curiosity/{id}"].delete.responses["204"]);
});

test("teardown", async () => {
  await stack.stop();
});
