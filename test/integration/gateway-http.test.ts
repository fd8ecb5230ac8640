// The gateway's HTTP conventions (docs/api.md#http) and auth matrix (docs/api.md#auth), black-box over real HTTP.
import { test } from "tap";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { cli, issueKey } from "../helpers/cli.js";
import { connectTo } from "../helpers/nats.js";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "node:net";
import { gzipSync } from "node:zlib";

let stack: Stack;

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
});

// Every management route, with the scope it needs (docs/api.md#http: 403 on every management endpoint).
const ROUTES: Array<[string, string, string]> = [
  ["POST", "/v1/investigations", "investigations:trigger"],
  ["GET", "/v1/investigations", "investigations:read"],
  ["GET", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV", "investigations:read"],
  ["DELETE", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV", "investigations:trigger"],
  ["GET", "/v1/agents", "investigations:read"],
];

test("auth matrix: no key, bad key, revoked key, missing scope", async (t) => {
  const otherScope = issueKey(stack.nats.url, ["webhooks:manage"]);
  for (const [method, path, scope] of ROUTES) {
    const none = await api(stack.baseUrl, method, path, { body: method === "POST" ? { query: "x" } : undefined });
    t.equal(none.status, 401, `${method} ${path} without a key`);
    t.equal(none.json?.error?.code, "unauthorized");
    const bad = await api(stack.baseUrl, method, path, { key: "inq_nope", body: method === "POST" ? { query: "x" } : undefined });
    t.equal(bad.status, 401, `${method} ${path} with an unknown key`);
    const wrong = await api(stack.baseUrl, method, path, { key: otherScope, body: method === "POST" ? { query: "x" } : undefined });
    t.equal(wrong.status, 403, `${method} ${path} without ${scope}`);
    t.equal(wrong.json?.error?.code, "forbidden");
    t.match(wrong.json?.error?.message, scope);
  }
});

test("every answer says nosniff: bodies carry text agents and webhook senders wrote", async (t) => {
  for (const [method, path, key] of [
    ["GET", "/v1/investigations", stack.key],
    ["GET", "/v1/investigations", undefined],
    ["GET", "/healthz", undefined],
    ["GET", "/v1/openapi.json", undefined],
  ] as const) {
    const r = await fetch(`${stack.baseUrl}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
    t.equal(r.headers.get("x-content-type-options"), "nosniff", `${method} ${path} (${r.status})`);
  }
});

test("a key with the right scope passes, and stops working once revoked", async (t) => {
  const key = issueKey(stack.nats.url, ["investigations:read"]);
  t.equal((await api(stack.baseUrl, "GET", "/v1/investigations", { key })).status, 200);
  const list = cli(["keys", "list", "--nats", stack.nats.url]);
  t.equal(list.status, 0);
  const line = list.stdout.split("\n").find((l) => l.includes(key.slice(0, 12)));
  t.ok(line, "keys list shows the key without its secret");
  t.notMatch(list.stdout, key, "the key itself is never listed");
  const id = (line ?? "").split("\t")[0] as string;
  t.equal(cli(["keys", "revoke", id, "--nats", stack.nats.url]).status, 0);
  let status = 0;
  for (let i = 0; i < 50 && status !== 401; i++) {
    status = (await api(stack.baseUrl, "GET", "/v1/investigations", { key })).status;
    if (status !== 401) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 401, "revoked key is refused");
});

test("keys create refuses unknown scopes with a clear message", async (t) => {
  const r = cli(["keys", "create", "--scopes", "investigations:read,root", "--nats", stack.nats.url]);
  t.equal(r.status, 2);
  t.match(r.stderr, /unknown scope\(s\) root/);
});

test("without a key, unknown /v1 paths and wrong methods answer 401: the API's shape is not shown", async (t) => {
  t.equal((await api(stack.baseUrl, "GET", "/v1/nothing-here")).status, 401);
  t.equal((await api(stack.baseUrl, "PUT", "/v1/investigations")).status, 401);
  // The receivers' namespace is public (providers have no API key): a path there that is no receiver URL is a 404.
  for (const path of ["/v1/webhooks/incoming/generic/%FF", "/v1/webhooks/incoming/generic/%ZZ/x"]) {
    const r = await api(stack.baseUrl, "POST", path, { rawBody: "{}", headers: { "content-type": "application/json" } });
    t.equal(r.status, 404, path);
    t.notMatch(r.text, /API key/, `${path}: no advice about API keys to a provider`);
  }
});

test("POST to an inbound endpoint's management path is a 405, not a receiver call", async (t) => {
  const r = await api(stack.baseUrl, "POST", "/v1/webhooks/incoming/endpoints/iep_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: stack.key, body: {} });
  t.equal(r.status, 405);
  t.match(r.headers.get("allow") ?? "", /DELETE/);
});

test("an id of 26 characters outside Crockford's alphabet is a 404 that says which alphabet", async (t) => {
  const r = await api(stack.baseUrl, "GET", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAU", { key: stack.key });
  t.equal(r.status, 404);
  t.match(r.json.error.message, /26 characters of Crockford base32 \(digits and capital letters except I, L, O, U\)/);
});

test("404 for unknown routes and 405 for a known path with another method, with the error body", async (t) => {
  const nf = await api(stack.baseUrl, "GET", "/v1/nothing-here", { key: stack.key });
  t.equal(nf.status, 404);
  t.equal(nf.json.error.code, "not_found");
  t.type(nf.json.error.message, "string");
  const na = await api(stack.baseUrl, "PUT", "/v1/investigations", { key: stack.key });
  t.equal(na.status, 405);
  t.equal(na.json.error.code, "method_not_allowed");
  t.match(na.headers.get("allow") ?? "", /GET/);
});

test("malformed ids are a 404 with the error body, never a 500", async (t) => {
  for (const path of ["/v1/investigations/a*b", "/v1/investigations/%20x", "/v1/investigations/inv_short", "/v1/investigations/cur_01ARZ3NDEKTSV4RRFFQ69G5FAV"]) {
    for (const method of ["GET", "DELETE"]) {
      const r = await api(stack.baseUrl, method, path, { key: stack.key });
      t.equal(r.status, 404, `${method} ${path}`);
      t.equal(r.json?.error?.code, "not_found");
    }
  }
  const long = await api(stack.baseUrl, "GET", `/v1/investigations/${"x".repeat(20_000)}`, { key: stack.key });
  t.equal(long.status, 404);
  t.ok(long.text.length < 400, `a 20,000-character id is not repeated whole in the error (${long.text.length} bytes)`);
});

test("415 for a non-JSON body, 413 over 256 KiB, 400 for bad JSON and schema violations", async (t) => {
  const k = stack.key;
  const text = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, rawBody: "query=x", headers: { "content-type": "text/plain" } });
  t.equal(text.status, 415);
  t.equal(text.json.error.code, "unsupported_media_type");
  const gzipped = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, rawBody: gzipSync(JSON.stringify({ query: "x" })), headers: { "content-type": "application/json", "content-encoding": "gzip" } });
  t.equal(gzipped.status, 415, "a gzip body is refused as such, not read as JSON");
  t.match(gzipped.json.error, { code: "unsupported_media_type", message: /Content-Encoding "gzip"/ });
  const identity = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, body: { query: "x" }, headers: { "content-encoding": "identity" } });
  t.equal(identity.status, 202, "Content-Encoding: identity is the body as sent");
  const big = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, rawBody: JSON.stringify({ query: "x".repeat(300 * 1024) }), headers: { "content-type": "application/json" } });
  t.equal(big.status, 413);
  t.equal(big.json.error.code, "payload_too_large");
  const broken = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, rawBody: "{nope", headers: { "content-type": "application/json" } });
  t.equal(broken.status, 400);
  t.equal(broken.json.error.code, "invalid_json");
  const cases: Array<[unknown, string]> = [
    [{}, "/query"],
    [{ query: "" }, "/query"],
    [{ query: " \n\t\u00a0" }, "/query"],
    [{ query: "x".repeat(2001) }, "/query"],
    [{ query: "ok", depth: "bottomless" }, "/depth"],
    [{ query: "ok", mode: "psychic" }, "/mode"],
    [{ query: "ok", scope: { type: "everything" } }, "/scope"],
    [{ query: "ok", qurey: "typo" }, "/qurey"],
    [{ query: "ok", scope: { type: "selector", filter: { tags: { env: 1 } } } }, "/scope"],
    [{ query: "ok", scope: { type: "selector", filter: { tags: { "bad\nkey": "x" } } } }, "/scope"],
    [{ query: "ok", scope: { type: "selector", filter: { tags: { "team\u202ename": "x" } } } }, "/scope"],
    [{ query: "ok", scope: { type: "selector", filter: { tags: { "": "x" } } } }, "/scope"],
    [{ query: "ok", scope: { type: "selector", filter: { tags: { ["k".repeat(129)]: "x" } } } }, "/scope"],
  ];
  for (const [body, path] of cases) {
    const r = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, body });
    t.equal(r.status, 400, `400 for ${JSON.stringify(body).slice(0, 60)}`);
    t.equal(r.json.error.code, "validation_failed");
    t.ok(
      (r.json.error.details as Array<{ path: string }>).some((d) => d.path.startsWith(path)),
      `details point at ${path}: ${JSON.stringify(r.json.error.details)}`,
    );
  }
});

test("a route that takes no body refuses one that is not JSON or has fields, before it acts", async (t) => {
  const k = stack.key;
  const created = await api(stack.baseUrl, "POST", "/v1/investigations", { key: k, body: { query: "anything odd?" } });
  t.equal(created.status, 202);
  const path = `/v1/investigations/${created.json.investigation_id}`;
  const json = { "content-type": "application/json" };
  const broken = await api(stack.baseUrl, "DELETE", path, { key: k, rawBody: '{"typo_field": 1, "not": "json"', headers: json });
  t.equal(broken.status, 400);
  t.equal(broken.json.error.code, "invalid_json");
  const fields = await api(stack.baseUrl, "DELETE", path, { key: k, body: { reason: "typo" } });
  t.equal(fields.status, 400);
  t.equal(fields.json.error.code, "validation_failed");
  t.same(fields.json.error.details, [{ path: "/reason", message: "unknown field" }]);
  t.equal((await api(stack.baseUrl, "GET", path, { key: k })).json.status, "queued", "nothing was cancelled");
  const empty = await api(stack.baseUrl, "DELETE", path, { key: k, body: {} });
  t.equal(empty.status, 200, "{} is no field: the cancel goes ahead");
  t.equal(empty.json.status, "cancelled");
});

/**
 * Writes `parts` on a fresh connection (`gapMs` apart) and reads until the server closes it, `waitMs` passes, or what
 * came so far is `done` (then this side closes it): every status line, and whether it closed.
 */
async function rawConversation(base: string, parts: string[], gapMs = 0, waitMs = 2_000, done?: (text: string) => boolean): Promise<{ statuses: number[]; closed: boolean; text: string }> {
  const { port, hostname } = new URL(base);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const received: Buffer[] = [];
  socket.on("data", (d: Buffer) => {
    received.push(d);
    if (done?.(Buffer.concat(received).toString("utf8"))) socket.end();
  });
  socket.on("error", () => undefined); // a reset after the answer is a close too
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs + parts.length * gapMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  for (const [i, part] of parts.entries()) {
    if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    if (!socket.destroyed) socket.write(part);
  }
  const wasClosed = await closed;
  socket.destroy();
  const all = Buffer.concat(received).toString("utf8");
  return { statuses: [...all.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])), closed: wasClosed, text: all };
}

/** A raw HTTP/1.1 exchange, written in `parts` with pauses between them: the answer's status and JSON body. */
async function rawExchange(base: string, parts: string[]): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { text } = await rawConversation(base, parts, 30, 5_000, (all) => /\r\n\r\n[\s\S]*\}$/.test(all));
  const [head = "", body = ""] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), json: body ? JSON.parse(body) : null };
}

test("request bodies: in one piece, in several packets, chunked, and none at all", async (t) => {
  const body = JSON.stringify({ query: "are any prod hosts listening on unexpected ports?", mode: "cached" });
  const head = (extra: string): string => `POST /v1/investigations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\nContent-Type: application/json\r\n${extra}\r\n`;
  const whole = await rawExchange(stack.baseUrl, [`${head(`Content-Length: ${body.length}\r\n`)}${body}`]);
  t.equal(whole.status, 202, "content-length, one write");
  const split = await rawExchange(stack.baseUrl, [head(`Content-Length: ${body.length}\r\n`), body.slice(0, 20), body.slice(20)]);
  t.equal(split.status, 202, "content-length, the body in two packets after the head");
  const chunked = await rawExchange(stack.baseUrl, [
    head("Transfer-Encoding: chunked\r\n"),
    `${(20).toString(16)}\r\n${body.slice(0, 20)}\r\n`,
    `${(body.length - 20).toString(16)}\r\n${body.slice(20)}\r\n0\r\n\r\n`,
  ]);
  t.equal(chunked.status, 202, "chunked, in two chunks");
  t.match(chunked.json?.investigation_id, /^inv_/);
  const empty = await rawExchange(stack.baseUrl, [head("Content-Length: 0\r\n")]);
  t.equal(empty.status, 400, "an empty body is refused, not waited for");
  t.equal(empty.json?.error?.code, "invalid_json");
  const get = await rawExchange(stack.baseUrl, [`GET /v1/investigations/${whole.json.investigation_id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\n\r\n`]);
  t.equal(get.status, 200, "a GET has no body to wait for");
  t.equal(get.json?.investigation_id, whole.json.investigation_id);
});

test("Content-Length or Transfer-Encoding the server cannot frame by: refused and the connection closed; nothing in the body is read as a request", async (t) => {
  const head = (lines: string[]): string =>
    `POST /v1/investigations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\nContent-Type: application/json\r\n${lines.map((l) => `${l}\r\n`).join("")}\r\n`;
  const queries = async (): Promise<string[]> =>
    ((await api(stack.baseUrl, "GET", "/v1/investigations?limit=200", { key: stack.key })).json.investigations as Array<{ query: string }>).map((i) => i.query);
  // Empty, or repeated with different values: uWS frames by the first value and takes an empty one for none, so
  // the declared body was parsed as the next request on the connection (a proxy framing by the last value would
  // have forwarded it as one request: request smuggling). RFC 9112 6.3: 400, then close.
  for (const [label, lines] of [
    ["0 then the length", (n: number) => ["Content-Length: 0", `Content-Length: ${n}`]],
    ["empty then the length", (n: number) => ["Content-Length: ", `Content-Length: ${n}`]],
    ["empty", () => ["Content-Length:"]],
    ["the length then 0", (n: number) => [`Content-Length: ${n}`, "Content-Length: 0"]],
  ] as const) {
    for (const gapMs of [0, 100]) {
      const query = `smuggled ${label} ${gapMs}`;
      const inner = JSON.stringify({ query });
      const smuggled = `${head([`Content-Length: ${Buffer.byteLength(inner)}`])}${inner}`;
      const outer = head(lines(Buffer.byteLength(smuggled)));
      const r = await rawConversation(stack.baseUrl, gapMs === 0 ? [`${outer}${smuggled}`] : [outer, smuggled], gapMs);
      const what = `${label}, ${gapMs === 0 ? "one packet" : `the body ${gapMs} ms later`}`;
      // In one packet, the rest of it reaches uWS before the answer is written: it closes the connection then.
      t.same(r.statuses, gapMs === 0 && r.statuses.length === 0 ? [] : [400], `${what}: one answer, 400, or none (${JSON.stringify(r.text.slice(0, 60))})`);
      if (r.statuses.length > 0) t.match(r.text, /\{"error":\{"code":"invalid_json","message":"[^"]*Content-Length/, `${what}: the contract's error body`);
      t.ok(r.closed, `${what}: the connection is closed after it`);
      t.notOk((await queries()).includes(query), `${what}: no investigation from the body`);
    }
  }
  // Transfer-Encoding whose last coding is not chunked, or chunked twice: uWS reads the body as chunked anyway, where a
  // proxy may frame it otherwise. RFC 9112 6.3: 400, then close. Another coding before chunked (gzip): uWS removes
  // the chunks and would hand the routes a body still compressed; refused the same way.
  for (const lines of [["Transfer-Encoding: chunked, identity"], ["Transfer-Encoding: chunked", "Transfer-Encoding: identity"], ["Transfer-Encoding: chunked, chunked"], ["Transfer-Encoding: gzip, chunked"], ["Transfer-Encoding: gzip", "Transfer-Encoding: chunked"]]) {
    const query = `chunked then ${JSON.stringify(lines)}`;
    const inner = JSON.stringify({ query });
    for (const gapMs of [0, 100]) {
      const outer = head(lines);
      const chunks = `${Buffer.byteLength(inner).toString(16)}\r\n${inner}\r\n0\r\n\r\n`;
      const r = await rawConversation(stack.baseUrl, gapMs === 0 ? [`${outer}${chunks}`] : [outer, chunks], gapMs);
      const what = `${JSON.stringify(lines)}, ${gapMs === 0 ? "one packet" : `the body ${gapMs} ms later`}`;
      t.same(r.statuses, gapMs === 0 && r.statuses.length === 0 ? [] : [400], `${what}: one answer, 400, or none (${JSON.stringify(r.text.slice(0, 60))})`);
      if (r.statuses.length > 0) t.match(r.text, /\{"error":\{"code":"invalid_json","message":"[^"]*Transfer-Encoding/, `${what}: the contract's error body`);
      t.ok(r.closed, `${what}: the connection is closed after it`);
      t.notOk((await queries()).includes(query), `${what}: no investigation from the body`);
    }
  }
  const chunked = JSON.stringify({ query: "chunked, any case" });
  const caps = await rawConversation(stack.baseUrl, [`${head(["Transfer-Encoding: Chunked"])}${chunked.length.toString(16)}\r\n${chunked}\r\n0\r\n\r\n`], 0, 500);
  t.same(caps.statuses, [202], "Transfer-Encoding: Chunked (codings are case-insensitive) is read as usual");
  // Not a number (letters, a sign, a list): uWS refuses these itself, before the gateway sees the request. It
  // closes the connection without an answer (its native build writes none); no 5xx, nothing left open.
  for (const value of ["abc", "12abc", "-5", "+13", "1e3", "13, 13", "99999999999999999999"]) {
    const r = await rawConversation(stack.baseUrl, [`${head([`Content-Length: ${value}`])}{"query":"not a number"}`]);
    t.ok(r.closed, `Content-Length: ${value}: closed at once`);
    t.ok(r.statuses.every((s) => s === 400), `Content-Length: ${value}: no answer but a 400 (${r.statuses.join(",") || "none"})`);
  }
  // Repeated with the same value, or with spaces around it, is one length: read as usual.
  const body = JSON.stringify({ query: "framed once" });
  for (const lines of [[`Content-Length: ${body.length}`, `Content-Length: ${body.length}`], [`Content-Length:   ${body.length}  `]]) {
    const r = await rawConversation(stack.baseUrl, [`${head(lines)}${body}`], 0, 500);
    t.same(r.statuses, [202], `${JSON.stringify(lines)}: accepted`);
  }
  t.equal((await api(stack.baseUrl, "GET", "/healthz")).status, 200, "the gateway still answers");
});

test("JSON nested 40,000 deep within 256 KiB, in an unknown field or a known one: 400 naming the field, not a stack overflow", async (t) => {
  const deepArray = `${"[".repeat(40_000)}${"]".repeat(40_000)}`;
  const deepObject = `${'{"a":'.repeat(40_000)}1${"}".repeat(40_000)}`;
  for (const [label, deep] of [["arrays", deepArray], ["objects", deepObject]] as const) {
    for (const [raw, path] of [
      [`{"query":"q","unknown":${deep}}`, "/unknown"],
      [`{"query":"q","scope":${deep}}`, "/scope"],
      [`{"query":"q","scope":{"type":"selector","filter":{"tags":${deep}}}}`, "/scope"],
    ] as const) {
      const r = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, rawBody: raw, headers: { "content-type": "application/json" } });
      t.equal(r.status, 400, `${label} in ${path}: ${r.text.slice(0, 200)}`);
      t.equal(r.json?.error?.code, "validation_failed");
      t.ok((r.json?.error?.details as Array<{ path: string }>).some((d) => d.path.startsWith(path)), `${label}: names ${path}`);
    }
    const whole = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, rawBody: deep, headers: { "content-type": "application/json" } });
    t.equal(whole.status, 400, `${label} as the whole body`);
  }
});

test("list parameters are validated", async (t) => {
  for (const q of ["limit=0", "limit=201", "limit=abc", "status=sleeping", "trigger_source=fax", "cursor=garbage"]) {
    const r = await api(stack.baseUrl, "GET", `/v1/investigations?${q}`, { key: stack.key });
    t.equal(r.status, 400, q);
    t.equal(r.json.error.code, q.startsWith("cursor") ? "invalid_cursor" : "validation_failed", q);
  }
});

test("health, readiness, metrics and the OpenAPI document need no key", async (t) => {
  t.equal((await api(stack.baseUrl, "GET", "/healthz")).status, 200);
  const ready = await api(stack.baseUrl, "GET", "/readyz");
  t.equal(ready.status, 200);
  t.same(ready.json, { ok: true });
  const metrics = await api(stack.baseUrl, "GET", "/metrics");
  t.equal(metrics.status, 200);
  t.match(metrics.text, /inquest_http_requests_total\{route="GET \/readyz",status="200"\} \d+/);
  const doc = await api(stack.baseUrl, "GET", "/v1/openapi.json");
  t.equal(doc.status, 200);
  t.equal(doc.json.openapi, "3.1.0");
  t.ok(doc.json.paths["/v1/investigations"].post.requestBody, "request schema included");
  t.equal(doc.json.paths["/v1/investigations/{id}"].get["x-required-scope"], "investigations:read");
});

test("readyz answers 503 when NATS is gone, and recovers", async (t) => {
  await stack.nats.down();
  const down = await api(stack.baseUrl, "GET", "/readyz");
  t.equal(down.status, 503);
  t.equal(down.json.error.code, "unavailable");
  t.equal(down.headers.get("retry-after"), "1", "a 503 says when to ask again");
  const refused = await api(stack.baseUrl, "GET", "/v1/investigations/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: stack.key });
  t.equal(refused.status, 503, "a request that needs NATS answers 503, not 500");
  await stack.nats.up();
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await api(stack.baseUrl, "GET", "/readyz")).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(status, 200);
  // The gateway's local copy of the keys kept following the bucket through the outage: a revocation made
  // after it still applies.
  const key = issueKey(stack.nats.url, ["investigations:read"]);
  t.equal((await api(stack.baseUrl, "GET", "/v1/investigations", { key })).status, 200);
  const id = cli(["keys", "list", "--nats", stack.nats.url]).stdout.split("\n").find((l) => l.includes(key.slice(0, 12)))?.split("\t")[0] ?? "";
  t.equal(cli(["keys", "revoke", id, "--nats", stack.nats.url]).status, 0);
  let after = 0;
  for (let i = 0; i < 60 && after !== 401; i++) {
    after = (await api(stack.baseUrl, "GET", "/v1/investigations", { key })).status;
    if (after !== 401) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(after, 401, "revoked after the outage");
});

test("readyz answers 503 naming a stream or bucket that has gone missing", async (t) => {
  const nc = await connectTo(stack.nats.url);
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete("KV_inq_curiosity");
  const r = await api(stack.baseUrl, "GET", "/readyz");
  t.equal(r.status, 503);
  t.match(r.json.error.message, /KV_inq_curiosity/);
});

test("HEAD answers as GET without the body: same status and headers, Content-Length of the GET's body; Allow names it", async (t) => {
  const created = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "any cryptominers?", mode: "cached" } });
  const path = `/v1/investigations/${created.json.investigation_id}`;
  const get = await rawConversation(stack.baseUrl, [`GET /v1/webhooks/subscriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\n\r\n`], 0, 5_000, (all) => /\r\n\r\n[\s\S]*\}$/.test(all));
  const getBody = get.text.split("\r\n\r\n")[1] ?? "";
  // HEAD, HEAD, then GET on one connection (each sent once the last is answered: uWS does not pipeline): a HEAD
  // whose answer carried a body would show as bytes before the next status line.
  const auth = `Host: x\r\nAuthorization: Bearer ${stack.key}\r\n\r\n`;
  const all = await rawConversation(
    stack.baseUrl,
    [`HEAD /v1/webhooks/subscriptions HTTP/1.1\r\n${auth}`, `HEAD ${path} HTTP/1.1\r\n${auth}`, `GET /v1/webhooks/subscriptions HTTP/1.1\r\n${auth}`],
    500,
    5_000,
    (text) => text.split("HTTP/1.1 ").length === 4 && text.endsWith("}"),
  );
  t.same(all.statuses, [200, 200, 200], "all answered on the one connection");
  const [first = "", second = ""] = all.text.split("HTTP/1.1 ").filter(Boolean);
  t.ok(second.endsWith("\r\n\r\n"), "the second HEAD had no body either");
  t.match(first, /content-type: application\/json/i);
  t.match(first, new RegExp(`content-length: ${Buffer.byteLength(getBody)}\\r\\n`, "i"), "the GET body's length");
  t.ok(first.endsWith("\r\n\r\n"), "and no body");
  const unauthenticated = await fetch(`${stack.baseUrl}/v1/agents`, { method: "HEAD" });
  t.equal(unauthenticated.status, 401, "a HEAD is authenticated like the GET");
  const notAllowed = await api(stack.baseUrl, "PUT", "/v1/agents", { key: stack.key });
  t.equal(notAllowed.status, 405);
  t.match(notAllowed.headers.get("allow") ?? "", /\bHEAD\b/);
  const postOnly = await fetch(`${stack.baseUrl}/v1/webhooks/incoming/generic/nokey`, { method: "HEAD", headers: { authorization: `Bearer ${stack.key}` } });
  t.equal(postOnly.status, 405, "a path that only takes POST");
  t.notMatch(postOnly.headers.get("allow") ?? "", /HEAD/);
});


test("teardown", async () => {
  await stack.stop();
});

test("INQUEST_NATS_REPLICAS above what the server can hold is a clear start-up error", async (t) => {
  const { startNats } = await import("../helpers/nats.js");
  const { startService, tempDir, masterKey } = await import("../helpers/services.js");
  const nats = await startNats();
  const dir = tempDir("inquest-replicas-");
  t.teardown(async () => {
    await nats.stop();
    dir.remove();
  });
  const svc = startService("runner", { NATS_URL: nats.url, INQUEST_DATA_DIR: dir.path, INQUEST_MASTER_KEY: masterKey(), INQUEST_NATS_REPLICAS: "3" });
  const code = await new Promise<number | null>((resolve) => svc.proc.once("exit", (c) => resolve(c)));
  t.equal(code, 2);
  t.match(svc.output(), /replicas 3/);
});
