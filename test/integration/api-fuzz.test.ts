// Property-based fuzz of the management API (fast-check) over real HTTP: every operation openapi.json lists (the
// inbound receiver has its own, inbound-fuzz.test.ts), with random path ids, query strings, headers and bodies,
// some of them valid ones bent a little. Whatever comes in: never a 5xx (no NATS fault is made here, so not even a
// 503), and every 4xx answers the CONTRACT's error body `{error: {code, message, details?}}`.
import { createRequire } from "node:module";
import fc from "fast-check";
import { test } from "tap";
import { api, startStack, type Stack } from "../helpers/stack.js";

const openapi = createRequire(import.meta.url)("../../../openapi.json") as { paths: Record<string, Record<string, unknown>> };

/** Runs per operation; a failure prints its seed and the shrunk request. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

/** Operations fuzzed: the management API. The inbound receiver is fuzzed on its own; /metrics is plain text. */
const OPERATIONS = Object.entries(openapi.paths)
  .filter(([path]) => !path.startsWith("/v1/webhooks/incoming/{provider}") && path !== "/metrics")
  .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));

let stack: Stack;
/** Ids that exist, so the fuzz reaches past the 404s. */
const real: Record<string, string> = {};

test("setup", async (t) => {
  stack = await startStack({ services: ["gateway"], env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true" } });
  const key = stack.key;
  const inv = await api(stack.baseUrl, "POST", "/v1/investigations", { key, body: { query: "are any prod hosts listening on unexpected ports?", mode: "cached" } });
  t.equal(inv.status, 202);
  real.investigation = (inv.json as { investigation_id: string }).investigation_id;
  const sub = await api(stack.baseUrl, "POST", "/v1/webhooks/subscriptions", { key, body: { url: "http://127.0.0.1:9/hook", events: ["investigation.completed"] } });
  t.equal(sub.status, 201, JSON.stringify(sub.json));
  real.subscription = (sub.json as { id: string }).id;
  const item = await api(stack.baseUrl, "POST", "/v1/curiosity", { key, body: { query: "any new listening ports?", interval: "1h" } });
  t.equal(item.status, 201, JSON.stringify(item.json));
  real.curiosity = (item.json as { id: string }).id;
  const endpoint = await api(stack.baseUrl, "POST", "/v1/webhooks/incoming/endpoints", { key, body: { provider: "generic" } });
  t.equal(endpoint.status, 201, JSON.stringify(endpoint.json));
  real.endpoint = (endpoint.json as { id: string }).id;
});

/** A path parameter: an id that exists (per resource), or something else that could arrive in a URL. */
function pathValue(path: string): fc.Arbitrary<string> {
  const existing = path.startsWith("/v1/investigations") ? real.investigation : path.startsWith("/v1/curiosity") ? real.curiosity : path.includes("/subscriptions") ? real.subscription : path.includes("/incoming/endpoints") ? real.endpoint : undefined;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(existing ?? "x") },
    fc.stringMatching(/^[a-z]{2,4}_[0-9A-Z]{26}$/),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ minLength: 300, maxLength: 2_000 }),
    fc.constantFrom("..", "%2e%2e", "%00", "%ff", "%", "a%2Fb", "null", "-1", "0", "__proto__", "constructor"),
  );
}

/** Query strings: the documented parameters with odd values, and parameters nobody documented. */
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom("limit", "cursor", "status", "severity", "agent_id", "subscription_id", "event_id", "tag", "since", "until", "mode", "active"), fc.string({ maxLength: 10 })),
      fc.oneof(fc.constantFrom("0", "-1", "1", "201", "1e309", "NaN", "", "%", "%00", "completed", "high", "true"), fc.string({ maxLength: 50 }), fc.string({ minLength: 500, maxLength: 3_000 })),
      // Most values encoded, some sent as they are (a stray % or &).
      fc.boolean(),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v, raw]) => `${encodeURIComponent(k)}=${raw ? v.replace(/[^\x21-\x7e]/g, "") : encodeURIComponent(v)}`).join("&")}`));

/** Valid bodies of the writing operations, for bending. */
const VALID: Record<string, Record<string, unknown>> = {
  "POST /v1/investigations": { query: "are any prod hosts listening on unexpected ports?", depth: "quick", mode: "cached", scope: { type: "selector", filter: { tags: { env: "prod" } } } },
  "POST /v1/curiosity": { query: "any new listening ports?", interval: "1h" },
  "PATCH /v1/curiosity/{id}": { active: false, interval: "2h" },
  "POST /v1/webhooks/subscriptions": { url: "http://127.0.0.1:9/hook", events: ["investigation.completed"] },
  "PATCH /v1/webhooks/subscriptions/{id}": { active: false, events: ["*"] },
  "POST /v1/webhooks/incoming/endpoints": { provider: "generic" },
  "POST /v1/webhooks/subscriptions/{id}/recover": { since: new Date(Date.now() - 3_600_000).toISOString() },
};

/** A valid body with one field replaced by any JSON value, removed, or joined by an unknown one. */
function bent(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(valid);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 })).map(([k, v]) => ({ ...valid, [k]: v })),
    fc.constantFrom(...fields).map((k) => Object.fromEntries(Object.entries(valid).filter(([f]) => f !== k))),
    fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => ({ ...valid, [k]: v })),
  );
}

type Body = { kind: "none" } | { kind: "json"; value: unknown } | { kind: "raw"; text: string; type: string };

function body(op: string): fc.Arbitrary<Body> {
  const valid = VALID[op];
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Body>({ kind: "none" }) },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Body => ({ kind: "json", value })) },
    { weight: valid ? 6 : 0, arbitrary: valid ? bent(valid).map((value): Body => ({ kind: "json", value })) : fc.constant<Body>({ kind: "none" }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom("{", "[", '{"query":', "\u0000", "{}garbage", '{"a":1,"a":2}')), fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""))
        .map(([text, type]): Body => ({ kind: "raw", text, type })),
    },
  );
}

const keyHeader = fc.oneof({ weight: 8, arbitrary: fc.constant("stack") }, fc.constant(null), fc.string({ maxLength: 80 }), fc.stringMatching(/^inq_[A-Za-z0-9_-]{40}$/));

for (const { method, path } of OPERATIONS) {
  const op = `${method} ${path}`;
  test(`${op}: no 5xx, and every 4xx is the error body`, async (t) => {
    const params = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
    const request = fc.record({
      values: fc.tuple(...params.map(() => pathValue(path))),
      query: queryString,
      // fetch sends no body with a GET.
      body: method === "GET" ? fc.constant<Body>({ kind: "none" }) : body(op),
      key: keyHeader,
      idempotency: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        let url = path;
        params.forEach((name, i) => (url = url.replace(`{${name}}`, encodeURIComponent(r.values[i] as string))));
        const headers: Record<string, string> = {};
        if (r.idempotency !== undefined) headers["idempotency-key"] = r.idempotency.replace(/[^\x20-\x7e]/g, "");
        const opts: Parameters<typeof api>[3] = { key: r.key === "stack" ? stack.key : r.key, headers };
        if (r.body.kind === "json") opts.body = r.body.value;
        if (r.body.kind === "raw") {
          opts.rawBody = r.body.text;
          if (r.body.type) headers["content-type"] = r.body.type;
        }
        if (r.key !== null && r.key !== "stack" && /[^\x21-\x7e]/.test(r.key)) opts.key = null; // not a header value fetch sends
        const res = await api(stack.baseUrl, method, `${url}${r.query}`, opts);
        if (res.status >= 500) throw new Error(`${res.status} for ${method} ${url}${r.query}: ${res.text.slice(0, 300)}`);
        if (res.status >= 400) {
          const error = (res.json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
          if (typeof error?.code !== "string" || !/^[a-z][a-z0-9_]*$/.test(error.code) || typeof error.message !== "string" || error.message === "") {
            throw new Error(`${res.status} without the error body for ${method} ${url}${r.query}: ${res.text.slice(0, 300)}`);
          }
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261129), endOnFailure: true },
    );
    t.pass(`${RUNS} requests`);
  });
}

test("teardown", async () => {
  await stack.stop();
});
