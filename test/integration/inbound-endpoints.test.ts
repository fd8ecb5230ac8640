// Inbound endpoints (docs/api.md#inbound): management API, secrets at rest, and the receiver's order of
// checks, black-box over real HTTP against the gateway on a real nats-server.
import { Kvm } from "@nats-io/kv";
import { test } from "tap";
import { issueKey } from "../helpers/cli.js";
import { createEndpoint, deliver, githubHeaders, investigation, investigationIds, UNKNOWN_URL_KEY } from "../helpers/inbound.js";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { hashToken, decryptSecret, parseMasterKey } from "../../shared/secrets.js";

let stack: Stack;
const ENDPOINTS = "/v1/webhooks/incoming/endpoints";
const VIEW_FIELDS = ["active", "created_at", "default_depth", "default_scope", "has_signing_secret", "id", "provider", "url_key_prefix"];

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
});

test("management routes need an API key with webhooks:manage", async (t) => {
  const readOnly = issueKey(stack.nats.url, ["investigations:read", "investigations:trigger"]);
  const routes: Array<[string, string, unknown]> = [
    ["POST", ENDPOINTS, { provider: "generic" }],
    ["GET", ENDPOINTS, undefined],
    ["DELETE", `${ENDPOINTS}/iep_01ARZ3NDEKTSV4RRFFQ69G5FAV`, undefined],
  ];
  for (const [method, path, body] of routes) {
    t.equal((await api(stack.baseUrl, method, path, { body })).status, 401, `${method} ${path} without a key`);
    const forbidden = await api(stack.baseUrl, method, path, { key: readOnly, body });
    t.equal(forbidden.status, 403, `${method} ${path} without webhooks:manage`);
    t.equal(forbidden.json.error.code, "forbidden");
  }
});

test("create: 201 with the URL once, defaults applied", async (t) => {
  const r = await api(stack.baseUrl, "POST", ENDPOINTS, { key: stack.key, body: { provider: "generic" } });
  t.equal(r.status, 201);
  t.same(Object.keys(r.json).sort(), [...VIEW_FIELDS, "url"].sort());
  t.match(r.json.id, /^iep_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.equal(r.json.provider, "generic");
  t.equal(r.json.active, true);
  t.equal(r.json.default_depth, "standard");
  t.equal(r.json.default_scope, null, "every agent");
  t.equal(r.json.has_signing_secret, false);
  t.match(r.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const match = /^(.*)\/v1\/webhooks\/incoming\/generic\/((whk_[A-Za-z0-9]{8})_[A-Za-z0-9_-]{32,})$/.exec(r.json.url);
  t.ok(match, `url has the contract's shape: ${r.json.url}`);
  t.equal(match?.[1], stack.baseUrl, "built on INQUEST_PUBLIC_URL");
  t.equal(match?.[3], r.json.url_key_prefix);

  const full = await api(stack.baseUrl, "POST", ENDPOINTS, {
    key: stack.key,
    body: { provider: "ci", provider_signing_secret: "s3cret", default_scope: { type: "selector", filter: { tags: { env: "ci" } } }, default_depth: "deep", active: false },
  });
  t.equal(full.status, 201);
  t.same(full.json.default_scope, { type: "selector", filter: { tags: { env: "ci" } } });
  t.equal(full.json.default_depth, "deep");
  t.equal(full.json.active, false);
  t.equal(full.json.has_signing_secret, true);
  t.notOk(JSON.stringify(full.json).includes("s3cret"), "the signing secret is never echoed");
  const generic = await api(stack.baseUrl, "POST", ENDPOINTS, { key: stack.key, body: { provider: "generic", provider_signing_secret: "s3cret" } });
  t.equal(generic.status, 201, "every provider takes a signing secret (spec 2.6)");
  t.equal(generic.json.has_signing_secret, true);
});

test("create: 400 on bad provider, scope, depth, unknown fields; 415 without JSON", async (t) => {
  const bad: Array<[unknown, string]> = [
    [{}, "/provider"],
    [{ provider: "github" }, "/provider"],
    [{ provider: "generic", default_scope: { type: "everything" } }, "/default_scope"],
    [{ provider: "generic", default_scope: { type: "selector", filter: { hostnames: ["a"] } } }, "/default_scope"],
    [{ provider: "generic", default_scope: { type: "selector", filter: { agent_ids: [] } } }, "/default_scope/filter/agent_ids"],
    [{ provider: "edr", default_depth: "bottomless" }, "/default_depth"],
    [{ provider: "edr", active: "yes" }, "/active"],
    [{ provider: "ci", secret: "typo of provider_signing_secret" }, "/secret"],
    [{ provider: "ci", provider_signing_secret: "" }, "/provider_signing_secret"],
    [{ provider: "ci", provider_signing_secret: "s".repeat(1025) }, "/provider_signing_secret"],
    [{ provider: "edr", provider_signing_secret: "s".repeat(200_000) }, "/provider_signing_secret"],
  ];
  for (const [body, path] of bad) {
    const r = await api(stack.baseUrl, "POST", ENDPOINTS, { key: stack.key, body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json?.error?.code, "validation_failed");
    t.ok((r.json?.error?.details as Array<{ path: string }>).some((d) => d.path.startsWith(path)), `${JSON.stringify(body)} names ${path}`);
  }
  const text = await api(stack.baseUrl, "POST", ENDPOINTS, { key: stack.key, rawBody: "provider=generic", headers: { "content-type": "text/plain" } });
  t.equal(text.status, 415);
  // A signing secret is 1..1024 characters (docs/api.md#inbound): the longest is kept and verifies signatures.
  const longest = "s".repeat(1024);
  const kept = await createEndpoint(stack, { provider: "ci", provider_signing_secret: longest });
  const raw = JSON.stringify({ zen: "ping" });
  const pinged = await deliver(stack, kept.path, raw, { "content-type": "application/json", ...(await githubHeaders(longest, raw, "ping", "d-longest")) });
  t.equal(pinged.status, 202, "signed with a 1024-character secret");
  const wrong = await deliver(stack, kept.path, raw, { "content-type": "application/json", ...(await githubHeaders(longest.slice(1), raw, "ping", "d-wrong")) });
  t.equal(wrong.status, 401, "and refused when signed with another");
});

test("create: 400 when the default scope leaves no room for an alert's trigger (trigger-bounds.ts), not a 400 on every alert", async (t) => {
  // Each field within its own bound (1,000 ids of 128 characters, 32 tags of 256), but a control character takes
  // 6 bytes of JSON: together over the 160 KiB a trigger stores of its own.
  const ids = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, "0")}${"a".repeat(124)}`);
  const tags = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, "\u0001".repeat(256)]));
  const extreme = { type: "selector", filter: { tags, agent_ids: ids } };
  for (const provider of ["generic", "edr", "ci"]) {
    const r = await api(stack.baseUrl, "POST", ENDPOINTS, { key: stack.key, body: { provider, default_scope: extreme } });
    t.equal(r.status, 400, `${provider}: ${r.text.slice(0, 300)}`);
    t.equal(r.json?.error?.code, "validation_failed");
    t.type(r.json?.error?.message, "string");
    t.ok((r.json?.error?.details as Array<{ path: string }> | undefined)?.some((d) => d.path === "/default_scope"), "names /default_scope");
  }
  // The largest scope that still leaves room for an alert is kept, and an alert posted to it is queued.
  const roomy = await createEndpoint(stack, { provider: "generic", default_scope: { type: "selector", filter: { agent_ids: ids } } });
  const alert = await deliver(stack, roomy.path, JSON.stringify({ query: "q".repeat(2000) }));
  t.equal(alert.status, 202, alert.text.slice(0, 300));
  t.type(alert.json.investigation_id, "string");
});

test("list: no URL secrets, the contract's fields, cursor pagination", async (t) => {
  const made = await Promise.all([createEndpoint(stack, { provider: "edr", provider_signing_secret: "edr-secret" }), createEndpoint(stack, { provider: "generic" })]);
  const r = await api(stack.baseUrl, "GET", ENDPOINTS, { key: stack.key });
  t.equal(r.status, 200);
  const endpoints = r.json.endpoints as Array<Record<string, unknown>>;
  for (const e of endpoints) t.same(Object.keys(e).sort(), VIEW_FIELDS);
  for (const m of made) {
    const listed = endpoints.find((e) => e.id === m.id);
    t.ok(listed, `${m.id} listed`);
    t.equal(listed?.url_key_prefix, m.url_key_prefix);
    t.notOk(r.text.includes(m.key), "the URL key is not in the list");
  }
  t.notOk(r.text.includes("edr-secret"));
  t.equal(endpoints.find((e) => e.id === made[0].id)?.has_signing_secret, true);

  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const page: Awaited<ReturnType<typeof api>> = await api(stack.baseUrl, "GET", `${ENDPOINTS}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: stack.key });
    t.equal(page.json.endpoints.length, 1);
    seen.push(page.json.endpoints[0].id);
    cursor = page.json.next_cursor;
    if (!cursor) break;
  }
  t.same(seen, endpoints.map((e) => e.id), "pages walk the same list without repeats or gaps");
  t.equal((await api(stack.baseUrl, "GET", `${ENDPOINTS}?limit=0`, { key: stack.key })).status, 400);
});

test("at rest: only a hash of the URL key; the signing secret sealed with INQUEST_MASTER_KEY", async (t) => {
  const ep = await createEndpoint(stack, { provider: "ci", provider_signing_secret: "plain-ci-secret" });
  const nc = await connectTo(stack.nats.url);
  t.teardown(() => nc.close());
  const kv = await new Kvm(nc).open("inq_inbound_endpoints");
  const entry = await kv.get(`ep.${ep.url_key_prefix}`);
  const stored = new TextDecoder().decode(entry?.value);
  t.notOk(stored.includes(ep.key), "the URL key itself is not stored");
  t.notOk(stored.includes("plain-ci-secret"), "the signing secret is not stored in clear");
  const record = JSON.parse(stored);
  t.equal(record.url_key_hash, hashToken(ep.key));
  t.equal(decryptSecret(parseMasterKey(stack.env.INQUEST_MASTER_KEY as string), record.signing_secret_sealed), "plain-ci-secret");
});

test("receiver order of checks: 404 provider, 401 key or provider mismatch, 413 size, 400 JSON, 202 inactive", async (t) => {
  const generic = await createEndpoint(stack, { provider: "generic" });
  const edr = await createEndpoint(stack, { provider: "edr" });
  const inactive = await createEndpoint(stack, { provider: "generic", active: false });
  const before = (await investigationIds(stack)).length;
  const big = Buffer.alloc(1024 * 1024 + 1, 0x20);

  const unknown = await deliver(stack, `/v1/webhooks/incoming/github/${generic.key}`, '{"query":"x"}');
  t.equal(unknown.status, 404, "unknown provider");
  t.equal(unknown.json.error.code, "not_found");
  t.equal((await deliver(stack, `/v1/webhooks/incoming/github/${generic.key}`, big)).status, 404, "unknown provider before size");

  const mismatch = await deliver(stack, `/v1/webhooks/incoming/edr/${generic.key}`, '{"query":"x"}');
  t.equal(mismatch.status, 401, "a generic key under /edr/");
  t.equal(mismatch.json.error.code, "unauthorized");
  t.equal((await deliver(stack, `/v1/webhooks/incoming/generic/${edr.key}`, '{"query":"x"}')).status, 401, "an edr key under /generic/");
  t.equal((await deliver(stack, `/v1/webhooks/incoming/generic/${UNKNOWN_URL_KEY}`, '{"query":"x"}')).status, 401, "unknown key");
  t.equal((await deliver(stack, "/v1/webhooks/incoming/generic/not-a-key", '{"query":"x"}')).status, 401, "malformed key");
  const tampered = `${generic.key.slice(0, -1)}${generic.key.endsWith("A") ? "B" : "A"}`;
  t.equal((await deliver(stack, `/v1/webhooks/incoming/generic/${tampered}`, '{"query":"x"}')).status, 401, "right prefix, wrong secret");
  t.equal((await deliver(stack, `/v1/webhooks/incoming/generic/${UNKNOWN_URL_KEY}`, big)).status, 401, "the key is checked before the size");

  const tooLarge = await deliver(stack, generic.path, big);
  t.equal(tooLarge.status, 413, "over 1 MiB");
  t.equal(tooLarge.json.error.code, "payload_too_large");

  const notJson = await deliver(stack, generic.path, "query=hello", { "content-type": "application/x-www-form-urlencoded" });
  t.equal(notJson.status, 400);
  t.equal(notJson.json.error.code, "invalid_json");
  t.equal((await deliver(stack, generic.path, Buffer.from([0x22, 0xff, 0xfe, 0x22]))).json.error.code, "invalid_json", "invalid UTF-8");
  t.equal((await deliver(stack, inactive.path, "not json")).status, 400, "JSON is checked before the active flag");

  const ignored = await deliver(stack, inactive.path, '{"query":"would be investigated"}');
  t.equal(ignored.status, 202);
  t.same(ignored.json, { ignored: true, reason: "this endpoint is inactive" });

  const missingQuery = await deliver(stack, generic.path, '{"agent_ids":["a"]}');
  t.equal(missingQuery.status, 400);
  t.equal(missingQuery.json.error.code, "validation_failed");
  t.equal(missingQuery.json.error.details[0].path, "/query");

  t.equal((await api(stack.baseUrl, "GET", generic.path)).status, 401, "another method without a key: 401 before 405 under /v1");
  t.equal((await api(stack.baseUrl, "GET", generic.path, { key: stack.key })).status, 405, "only POST");
  t.equal((await investigationIds(stack)).length, before, "nothing was queued for any of these");
});

test("a body just under 1 MiB (too big for one NATS message) still reaches the receiver", async (t) => {
  const generic = await createEndpoint(stack, { provider: "generic", default_depth: "quick" });
  const padding = "p".repeat(1024 * 1024 - 200);
  const raw = JSON.stringify({ query: "did the big payload arrive intact?", vendor_padding: padding });
  t.ok(raw.length <= 1024 * 1024 && raw.length > 1024 * 1024 - 300);
  const r = await deliver(stack, generic.path, raw);
  t.equal(r.status, 202, r.text);
  const inv = await investigation(stack, r.json.investigation_id);
  t.equal(inv.query, "did the big payload arrive intact?");
  t.equal(inv.depth, "quick");
});

test("DELETE: 204 with an empty body, the URL answers 401 after, unknown ids 404", async (t) => {
  const ep = await createEndpoint(stack, { provider: "generic" });
  t.equal((await deliver(stack, ep.path, '{"query":"before delete"}')).status, 202);
  const del = await api(stack.baseUrl, "DELETE", `${ENDPOINTS}/${ep.id}`, { key: stack.key });
  t.equal(del.status, 204);
  t.equal(del.text, "");
  const after = await deliver(stack, ep.path, '{"query":"after delete"}');
  t.equal(after.status, 401, "deleted endpoint");
  t.equal(after.json.error.code, "unauthorized");
  t.equal((await api(stack.baseUrl, "DELETE", `${ENDPOINTS}/${ep.id}`, { key: stack.key })).status, 404, "deleting twice");
  t.equal((await api(stack.baseUrl, "DELETE", `${ENDPOINTS}/iep_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { key: stack.key })).status, 404);
  t.equal((await api(stack.baseUrl, "DELETE", `${ENDPOINTS}/not..an.id`, { key: stack.key })).status, 404);
  const list = await api(stack.baseUrl, "GET", `${ENDPOINTS}?limit=200`, { key: stack.key });
  t.notOk((list.json.endpoints as Array<{ id: string }>).some((e) => e.id === ep.id), "gone from the list");
  t.equal((await api(stack.baseUrl, "GET", `${ENDPOINTS}/${ep.id}`, { key: stack.key })).status, 405, "there is no GET or update of one endpoint");
});

test("the message bus down: 503 unavailable with retry-after, nothing queued; an unknown provider is still a 404", async (t) => {
  const ep = await createEndpoint(stack, { provider: "generic" });
  const before = (await investigationIds(stack)).length;
  await stack.nats.down();
  try {
    const r = await deliver(stack, ep.path, '{"query":"anyone there?"}');
    t.equal(r.status, 503, r.text);
    t.equal(r.json.error.code, "unavailable");
    t.match(r.json.error.message, /nothing was changed/);
    t.equal(r.headers.get("retry-after"), "1");
    t.equal((await deliver(stack, `/v1/webhooks/incoming/nope/${ep.key}`, "{}")).status, 404, "an unknown provider is still a 404");
  } finally {
    await stack.nats.up();
  }
  const after = await eventually(async () => {
    const r = await api(stack.baseUrl, "GET", "/readyz");
    return r.status === 200 ? investigationIds(stack) : undefined;
  }, 30_000);
  t.equal(after.length, before);
});

test("teardown", async () => {
  await stack.stop();
});

test("a rate-limited trigger is still 202, with error and no investigation (INQUEST_MAX_BACKLOG=1, no runner)", async (t) => {
  const small = await startStack({ services: ["gateway"], env: { INQUEST_MAX_BACKLOG: "1" } });
  t.teardown(() => small.stop());
  const generic = await createEndpoint(small, { provider: "generic" });
  const edr = await createEndpoint(small, { provider: "edr" });
  const first = await deliver(small, generic.path, '{"query":"fills the backlog"}');
  t.equal(first.status, 202);
  t.type(first.json.investigation_id, "string");
  const second = await deliver(small, generic.path, '{"query":"over the limit"}');
  t.equal(second.status, 202);
  t.same(Object.keys(second.json), ["error"]);
  t.match(second.json.error, /^rate_limited/);
  const alert = await deliver(small, edr.path, JSON.stringify({ device_id: "d-1", description: "over the limit too" }));
  t.equal(alert.status, 202);
  t.match(alert.json.error, /^rate_limited/);
  t.same(await investigationIds(small), [first.json.investigation_id], "only the first was queued");
});
