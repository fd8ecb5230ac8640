// Repeated query parameters (docs/api.md#query-parameters): every list reads each of its parameters as one value, so
// `?status=queued&status=failed` is a 400 validation_failed naming the parameter, never the first value read as if it
// were the only one (a client repeating a filter most likely means "either", and would silently get half). Real HTTP.
import { test } from "tap";
import { createEndpoint } from "../helpers/inbound.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let lists: Array<[path: string, filter: string]>;

const get = (path: string) => api(stack.baseUrl, "GET", path, { key: stack.key });

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
  const endpoint = await createEndpoint(stack, { provider: "generic" });
  const inv = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "any cryptominers?" } });
  if (inv.status !== 202) throw new Error(`trigger: ${inv.status} ${inv.text}`);
  // Every list, with one of its filters (the lists without filters take limit and cursor only).
  lists = [
    ["/v1/investigations", "status=queued"],
    ["/v1/investigations", "trigger_source=api"],
    [`/v1/investigations/${inv.json.investigation_id}/findings`, "severity=high"],
    [`/v1/investigations/${inv.json.investigation_id}/findings`, "agent_id=web-1"],
    ["/v1/agents", ""],
    ["/v1/curiosity", ""],
    ["/v1/webhooks/subscriptions", ""],
    ["/v1/webhooks/deliveries", "status=pending"],
    ["/v1/webhooks/deliveries", "event_id=evt_01M8FYNGCA24JA2EYF5QC8N4XY"],
    ["/v1/webhooks/incoming/endpoints", ""],
    [`/v1/webhooks/incoming/endpoints/${endpoint.id}/receipts`, "outcome=triggered"],
  ];
});

test("each parameter given once is read as before", async (t) => {
  for (const [path, filter] of lists) {
    const r = await get(`${path}?limit=2${filter ? `&${filter}` : ""}`);
    t.equal(r.status, 200, `${path}?${filter}: ${r.text.slice(0, 200)}`);
  }
});

test("a repeated limit is 400 validation_failed at /limit on every list, even with equal values", async (t) => {
  for (const [path] of lists) {
    for (const query of ["limit=2&limit=3", "limit=2&limit=2", "limit=2&lim%69t=3"]) {
      const r = await get(`${path}?${query}`);
      t.equal(r.status, 400, `${path}?${query}: ${r.text.slice(0, 200)}`);
      t.equal(r.json?.error?.code, "validation_failed");
      t.same(r.json?.error?.details?.map((d: { path: string }) => d.path), ["/limit"], "the detail names the parameter");
      t.match(r.json?.error?.message, /limit/, "and so does the message");
    }
  }
});

test("a repeated filter is 400 validation_failed naming it; every repeated parameter is named", async (t) => {
  for (const [path, filter] of lists.filter(([, f]) => f !== "")) {
    const [name, value] = filter.split("=") as [string, string];
    const r = await get(`${path}?${filter}&${name}=${value}x`);
    t.equal(r.status, 400, `${path}?${filter} twice: ${r.text.slice(0, 200)}`);
    t.equal(r.json?.error?.code, "validation_failed");
    t.same(r.json?.error?.details?.map((d: { path: string }) => d.path), [`/${name}`]);
  }
  const both = await get("/v1/investigations?status=queued&status=failed&limit=1&limit=2");
  t.equal(both.status, 400);
  t.same(both.json?.error?.details?.map((d: { path: string }) => d.path).sort(), ["/limit", "/status"], "both repeated parameters are named");
  const cursor = await get("/v1/investigations?cursor=a&cursor=b");
  t.same(cursor.json?.error?.details?.map((d: { path: string }) => d.path), ["/cursor"], "a repeated cursor too (before it is decoded)");
});

test("a parameter the list does not take is still ignored, repeated or not", async (t) => {
  const r = await get("/v1/investigations?utm=a&utm=b&limit=1");
  t.equal(r.status, 200, r.text.slice(0, 200));
});

test("teardown", async () => {
  await stack.stop();
});
