// POST/GET/DELETE /v1/investigations without a runner: the trigger's rules (docs/api.md#investigations).
import { request } from "node:http";
import { test } from "tap";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { issueKey } from "../helpers/cli.js";

let stack: Stack;
const post = (body: unknown, headers: Record<string, string> = {}, key = stack.key) => api(stack.baseUrl, "POST", "/v1/investigations", { key, body, headers });

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
});

test("202 with the contract's body and a Location header; readable at once", async (t) => {
  const r = await post({ query: "are any prod hosts listening on unexpected ports?", scope: { type: "selector", filter: { tags: { env: "prod" } } } });
  t.equal(r.status, 202);
  const id = r.json.investigation_id as string;
  t.match(id, /^inv_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.equal(r.json.status, "queued");
  t.type(r.json.estimated_completion_seconds, "number");
  t.same(r.json.links, { self: `${stack.baseUrl}/v1/investigations/${id}`, cancel: `${stack.baseUrl}/v1/investigations/${id}` });
  t.equal(r.headers.get("location"), `${stack.baseUrl}/v1/investigations/${id}`);
  t.ok(r.json.freshness, "freshness in auto mode");
  t.type(r.json.freshness.recommendation.should_rerun_live, "boolean");
  t.equal(r.json.freshness.agents_without_snapshot, 0);

  const detail = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
  t.equal(detail.status, 200, "read-your-writes: found right after the 202");
  t.equal(detail.json.status, "queued");
  t.equal(detail.json.summary, null);
  t.equal(detail.json.progress, null);
  t.equal(detail.json.depth, "standard");
  t.equal(detail.json.mode, "auto");
  t.same(detail.json.context, { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null });
  t.match(detail.json.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal(detail.json.completed_at, null);
  t.same(detail.json.findings, []);
  t.notOk("internal" in detail.json, "bookkeeping is never shown");

  const list = await api(stack.baseUrl, "GET", "/v1/investigations", { key: stack.key });
  t.equal(list.json.investigations[0].investigation_id, id, "the list includes it at once, newest first");
  t.notOk("findings" in list.json.investigations[0], "list items omit findings");
});

test("freshness only in auto and cached modes", async (t) => {
  t.ok((await post({ query: "q", mode: "cached" })).json.freshness);
  t.notOk("freshness" in (await post({ query: "q", mode: "live" })).json);
});

test("idempotency: same key and body replays the original 202 byte for byte", async (t) => {
  const body = { query: "any cryptominers?", depth: "quick" };
  const first = await post(body, { "idempotency-key": "k-1" });
  const again = await post({ depth: "quick", query: "any cryptominers?" }, { "idempotency-key": "k-1" });
  t.equal(first.status, 202);
  t.equal(again.status, 202);
  t.equal(again.text, first.text, "identical bytes");
  const viaBody = await post({ ...body, idempotency_key: "k-1" });
  t.equal(viaBody.text, first.text, "the body field is the same key as the header");
});

test("idempotency: same key, different body is a 409; header and body keys that differ are a 400", async (t) => {
  await post({ query: "first" }, { "idempotency-key": "k-2" });
  const conflict = await post({ query: "second" }, { "idempotency-key": "k-2" });
  t.equal(conflict.status, 409);
  t.equal(conflict.json.error.code, "idempotency_conflict");
  const mismatch = await post({ query: "x", idempotency_key: "a" }, { "idempotency-key": "b" });
  t.equal(mismatch.status, 400);
  t.equal(mismatch.json.error.code, "validation_failed");
});

/** A POST with `headers` sent as node:http sends them: an array value is the header repeated, one line each. */
function postRaw(body: unknown, headers: Record<string, string | string[]>): Promise<{ status: number; json: { error?: { code: string; details?: Array<{ path: string }> } } }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${stack.baseUrl}/v1/investigations`, { method: "POST", headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end(text);
  });
}

test("idempotency: an Idempotency-Key header sent twice is a 400, not one key made of both", async (t) => {
  const twice = await postRaw({ query: "twice" }, { "idempotency-key": ["k-3", "k-4"] });
  t.equal(twice.status, 400);
  t.equal(twice.json.error?.code, "validation_failed");
  t.same(twice.json.error?.details?.map((d) => d.path), ["/headers/idempotency-key"]);
  const joined = await postRaw({ query: "once" }, { "idempotency-key": "k-3, k-4" });
  t.equal(joined.status, 202, "one header whose value holds a comma is one key");
  const repeatedOther = await postRaw({ query: "other headers may repeat" }, { "x-trace": ["a", "b"] });
  t.equal(repeatedOther.status, 202);
});

test("idempotency keys are per API key", async (t) => {
  const other = issueKey(stack.nats.url, ["investigations:trigger"]);
  const a = await post({ query: "per key" }, { "idempotency-key": "shared" });
  const b = await post({ query: "per key" }, { "idempotency-key": "shared" }, other);
  t.equal(a.status, 202);
  t.equal(b.status, 202);
  t.not(a.json.investigation_id, b.json.investigation_id);
});

test("20 concurrent identical requests create exactly one investigation", async (t) => {
  const query = `concurrent ${Date.now()}`;
  const answers = await Promise.all(Array.from({ length: 20 }, () => post({ query }, { "idempotency-key": "burst" })));
  t.ok(answers.every((a) => a.status === 202), "all 202");
  t.equal(new Set(answers.map((a) => a.text)).size, 1, "all the same body");
  const list = await api(stack.baseUrl, "GET", "/v1/investigations?limit=200", { key: stack.key });
  t.equal((list.json.investigations as Array<{ query: string }>).filter((i) => i.query === query).length, 1);
});

test("pagination walks newest first without repeats or gaps; filters narrow", async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await post({ query: `page ${i}` })).json.investigation_id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q: string = `/v1/investigations?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api(stack.baseUrl, "GET", q, { key: stack.key });
    t.equal(page.status, 200);
    t.ok(page.json.investigations.length <= 3);
    seen.push(...(page.json.investigations as Array<{ investigation_id: string }>).map((i) => i.investigation_id));
    cursor = page.json.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  t.equal(new Set(seen).size, seen.length, "no repeats");
  const mine = seen.filter((id) => ids.includes(id));
  t.same(mine, [...ids].reverse(), "all seven, newest first");
  const starts = await Promise.all(seen.slice(0, 5).map(async (id) => (await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key })).json.started_at as string));
  t.same([...starts].sort().reverse(), starts, "sorted by started_at descending");

  const queued = await api(stack.baseUrl, "GET", "/v1/investigations?status=queued&trigger_source=api&limit=200", { key: stack.key });
  t.ok(queued.json.investigations.length >= 7);
  t.ok((queued.json.investigations as Array<{ status: string }>).every((i) => i.status === "queued"));
  const none = await api(stack.baseUrl, "GET", "/v1/investigations?trigger_source=curiosity", { key: stack.key });
  t.same(none.json, { investigations: [], next_cursor: null });
  const completedCursor = await api(stack.baseUrl, "GET", `/v1/investigations?status=completed&cursor=${encodeURIComponent(cursor ?? "")}`, { key: stack.key });
  t.equal(completedCursor.status, 200);
});

test("a cursor from one filter is refused under another", async (t) => {
  const page = await api(stack.baseUrl, "GET", "/v1/investigations?limit=1", { key: stack.key });
  t.ok(page.json.next_cursor);
  const wrong = await api(stack.baseUrl, "GET", `/v1/investigations?status=queued&cursor=${encodeURIComponent(page.json.next_cursor)}`, { key: stack.key });
  t.equal(wrong.status, 400);
  t.equal(wrong.json.error.code, "invalid_cursor");
});

test("a cursor the list did not issue is refused, however well formed: hand-made keys, a changed key, an empty signature", async (t) => {
  const page = await api(stack.baseUrl, "GET", "/v1/investigations?limit=1", { key: stack.key });
  const issued: string = page.json.next_cursor;
  const [body, signature] = issued.split(".");
  const key = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8")) as unknown[];
  const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");
  const forged = [
    b64(["all", "x", "inv_1"]), // unsigned, as cursors once were
    `${b64([...key.slice(0, -1), "inv_0"])}.${signature}`, // another key under the issued signature
    `${body}.`,
    `${body}.${"A".repeat(22)}`,
  ];
  for (const cursor of forged) {
    const r = await api(stack.baseUrl, "GET", `/v1/investigations?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: stack.key });
    t.equal(r.status, 400, cursor);
    t.equal(r.json.error.code, "invalid_cursor");
  }
  const next = await api(stack.baseUrl, "GET", `/v1/investigations?limit=1&cursor=${encodeURIComponent(issued)}`, { key: stack.key });
  t.equal(next.status, 200, "the issued one still pages");
});

test("cancel: a queued run becomes cancelled; repeating is harmless; unknown ids are 404", async (t) => {
  const id = (await post({ query: "to cancel" })).json.investigation_id;
  const first = await api(stack.baseUrl, "DELETE", `/v1/investigations/${id}`, { key: stack.key });
  t.equal(first.status, 200);
  t.same(first.json, { ok: true, status: "cancelled" });
  const again = await api(stack.baseUrl, "DELETE", `/v1/investigations/${id}`, { key: stack.key });
  t.same(again.json, { ok: true, status: "cancelled" });
  const detail = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
  t.equal(detail.json.status, "cancelled");
  t.type(detail.json.completed_at, "string", "completed_at is set on every terminal state");
  t.equal((await api(stack.baseUrl, "DELETE", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: stack.key })).status, 404);
  t.equal((await api(stack.baseUrl, "GET", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: stack.key })).json.error.code, "not_found");
});

test("teardown", async () => {
  await stack.stop();
});

test("429 with Retry-After when the backlog is over its limit", async (t) => {
  const small = await startStack({ services: ["gateway"], env: { INQUEST_MAX_BACKLOG: "2" } });
  t.teardown(() => small.stop());
  const send = () => api(small.baseUrl, "POST", "/v1/investigations", { key: small.key, body: { query: "fill" } });
  t.equal((await send()).status, 202);
  t.equal((await send()).status, 202);
  const third = await send();
  t.equal(third.status, 429);
  t.equal(third.json.error.code, "rate_limited");
  t.match(third.headers.get("retry-after") ?? "", /^\d+$/);
});
