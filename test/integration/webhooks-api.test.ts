// /v1/webhooks/subscriptions and the delivery routes' error cases (docs/api.md#webhooks), over
// real HTTP against a gateway whose INQUEST_ALLOW_PRIVATE_TARGETS is false (the default).
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { Kvm } from "@nats-io/kv";
import { test } from "tap";
import { decryptSecret } from "../../shared/secrets.js";
import { newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { isPrivateAddress } from "../../shared/webhooks/targets.js";
import { issueKey } from "../helpers/cli.js";
import { connectTo, freePort } from "../helpers/nats.js";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver } from "../helpers/webhook-receiver.js";
import { createSub, makeEvent, publish, terminal, waitDelivery } from "../helpers/webhooks.js";

let stack: Stack;
const PUBLIC_URL = "https://93.184.216.34/hooks/inquest"; // an address literal: no DNS needed
const SUBS = "/v1/webhooks/subscriptions";
const call = (method: string, path: string, body?: unknown, key: string | null = stack.key) => api(stack.baseUrl, method, path, { key, body });

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
});

test("create: 201 with id and a whsec_ secret shown once; get and list never show it", async (t) => {
  const r = await call("POST", SUBS, { url: PUBLIC_URL, events: ["investigation.completed", "finding.discovered"], filters: { min_severity: "high" } });
  t.equal(r.status, 201);
  t.match(r.json.id, /^sub_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.match(r.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(Buffer.from(r.json.secret.slice(6), "base64").length, 32, "32 random bytes");
  t.same(
    { url: r.json.url, events: r.json.events, filters: r.json.filters, active: r.json.active },
    { url: PUBLIC_URL, events: ["investigation.completed", "finding.discovered"], filters: { min_severity: "high" }, active: true },
  );
  t.match(r.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const one = await call("GET", `${SUBS}/${r.json.id}`);
  t.equal(one.status, 200);
  t.notOk("secret" in one.json, "get: no secret");
  t.notOk(one.text.includes(r.json.secret.slice(6)), "get: not even inside another field");
  const { secret: _secret, ...view } = r.json;
  t.same(one.json, view, "get is the create body without the secret");
  const list = await call("GET", SUBS);
  t.equal(list.status, 200);
  t.ok(Array.isArray(list.json.subscriptions));
  t.same(list.json.subscriptions.find((s: { id: string }) => s.id === r.json.id), view, "list element: same shape as get");
  t.notOk(list.text.includes("whsec_"), "list: no secrets");
});

test("secrets are encrypted at rest with INQUEST_MASTER_KEY", async (t) => {
  const r = await call("POST", SUBS, { url: PUBLIC_URL, events: ["agent.connected"] });
  const nc = await connectTo(stack.nats.url);
  t.teardown(() => nc.close());
  const kv = await new Kvm(nc).open("inq_webhook_subscriptions");
  const raw = new TextDecoder().decode((await kv.get(r.json.id))?.value);
  t.notOk(raw.includes(r.json.secret), "the stored record does not hold the secret");
  t.notOk(raw.includes(r.json.secret.slice(6)), "nor its base64 part");
  const stored = JSON.parse(raw) as { secret_sealed: string };
  t.equal(decryptSecret(Buffer.from(stack.env.INQUEST_MASTER_KEY as string, "base64"), stored.secret_sealed), r.json.secret, "the master key opens it");
});

test("400 for bad URLs, empty or unknown events, bad min_severity and unknown fields", async (t) => {
  const bad: Array<[string, unknown, string]> = [
    ["relative url", { url: "/hooks", events: ["agent.connected"] }, "/url"],
    ["not a url", { url: "not a url", events: ["agent.connected"] }, "/url"],
    ["ftp", { url: "ftp://93.184.216.34/x", events: ["agent.connected"] }, "/url"],
    ["javascript", { url: "javascript:alert(1)", events: ["agent.connected"] }, "/url"],
    ["credentials in the url", { url: "https://user:hunter2@93.184.216.34/x", events: ["agent.connected"] }, "/url"],
    ["missing url", { events: ["agent.connected"] }, "/url"],
    ["empty events", { url: PUBLIC_URL, events: [] }, "/events"],
    ["missing events", { url: PUBLIC_URL }, "/events"],
    ["unknown event", { url: PUBLIC_URL, events: ["agent.connected", "investigation.exploded"] }, "/events/1"],
    ["bad severity", { url: PUBLIC_URL, events: ["finding.discovered"], filters: { min_severity: "severe" } }, "/filters/min_severity"],
    ["unknown filter", { url: PUBLIC_URL, events: ["finding.discovered"], filters: { max_severity: "low" } }, "/filters/max_severity"],
    ["unknown field", { url: PUBLIC_URL, events: ["finding.discovered"], secret: "mine" }, "/secret"],
    ["active not boolean", { url: PUBLIC_URL, events: ["finding.discovered"], active: "yes" }, "/active"],
  ];
  for (const [name, body, path] of bad) {
    const r = await call("POST", SUBS, body);
    t.equal(r.status, 400, name);
    t.equal(r.json?.error?.code, "validation_failed", `${name}: code`);
    t.ok((r.json?.error?.details ?? []).some((d: { path: string }) => d.path === path), `${name}: detail at ${path}`);
  }
  const withCredentials = await call("POST", SUBS, { url: "https://user:hunter2@93.184.216.34/x", events: ["agent.connected"] });
  t.notMatch(JSON.stringify(withCredentials.json), /hunter2/, "the refusal does not repeat the password");
  const sub = await call("POST", SUBS, { url: PUBLIC_URL, events: ["agent.connected"] });
  const patched = await call("PATCH", `${SUBS}/${sub.json.id}`, { url: "https://user:hunter2@93.184.216.34/x" });
  t.equal(patched.status, 400, "PATCH to a URL with credentials refused too");
  t.equal((await call("GET", `${SUBS}/${sub.json.id}`)).json.url, PUBLIC_URL, "and the URL left as it was");
  const notJson = await api(stack.baseUrl, "POST", SUBS, { key: stack.key, rawBody: "url=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
  t.equal(notJson.status, 415);
});

test("URLs on loopback, private, link-local or metadata addresses are refused at create and PATCH", async (t) => {
  const own = hostname();
  const ownAddresses = await lookup(own, { all: true }).catch(() => []);
  const refused = [
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://api.localhost/hook",
    "http://[::1]/hook",
    "http://10.1.2.3/hook",
    "http://172.16.5.4/hook",
    "http://192.168.1.10/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://2130706433/hook", // 127.0.0.1 in decimal
    "http://0x7f.1/hook",
    "http://[fe80::1]/hook",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:169.254.169.254]/hook",
    "http://metadata.google.internal/computeMetadata/v1/",
  ];
  if (ownAddresses.length > 0 && ownAddresses.every((a) => isPrivateAddress(a.address))) refused.push(`http://${own}:9999/hook`); // a name that resolves to a private address
  for (const url of refused) {
    const r = await call("POST", SUBS, { url, events: ["agent.connected"] });
    t.equal(r.status, 400, url);
    t.equal(r.json?.error?.code, "validation_failed");
    t.equal(r.json?.error?.details?.[0]?.path, "/url");
  }
  for (const url of ["https://93.184.216.34/hook", "http://8.8.8.8:8080/x", "https://[2606:4700:4700::1111]/hook"]) {
    t.equal((await call("POST", SUBS, { url, events: ["agent.connected"] })).status, 201, `${url} is public`);
  }
  const sub = await call("POST", SUBS, { url: PUBLIC_URL, events: ["agent.connected"] });
  const patched = await call("PATCH", `${SUBS}/${sub.json.id}`, { url: "http://169.254.169.254/" });
  t.equal(patched.status, 400, "PATCH to a metadata address");
  t.equal((await call("GET", `${SUBS}/${sub.json.id}`)).json.url, PUBLIC_URL, "unchanged");
});

test("PATCH changes only the included fields; events and filters are replaced whole", async (t) => {
  const created = await call("POST", SUBS, { url: PUBLIC_URL, events: ["finding.discovered", "investigation.completed"], filters: { min_severity: "medium" } });
  const id = created.json.id as string;
  await new Promise((r) => setTimeout(r, 5));
  const p1 = await call("PATCH", `${SUBS}/${id}`, { active: false });
  t.equal(p1.status, 200);
  t.same(
    { url: p1.json.url, events: p1.json.events, filters: p1.json.filters, active: p1.json.active },
    { url: PUBLIC_URL, events: ["finding.discovered", "investigation.completed"], filters: { min_severity: "medium" }, active: false },
  );
  t.notOk("secret" in p1.json);
  t.ok(p1.json.updated_at > created.json.updated_at, "updated_at moves");
  t.equal(p1.json.created_at, created.json.created_at);
  const p2 = await call("PATCH", `${SUBS}/${id}`, { events: ["agent.connected"] });
  t.same(p2.json.events, ["agent.connected"], "the events array is taken as given");
  t.same(p2.json.filters, { min_severity: "medium" });
  t.equal(p2.json.active, false);
  const p3 = await call("PATCH", `${SUBS}/${id}`, { filters: {} });
  t.same(p3.json.filters, {}, "filters replaced as a whole");
  const p4 = await call("PATCH", `${SUBS}/${id}`, { url: "https://93.184.216.35/new", active: true });
  t.equal(p4.json.url, "https://93.184.216.35/new");
  t.equal(p4.json.active, true);
  t.same((await call("GET", `${SUBS}/${id}`)).json, p4.json, "GET shows the patched subscription");
  t.equal((await call("PATCH", `${SUBS}/${id}`, { events: [] })).status, 400, "empty events");
  t.equal((await call("PATCH", `${SUBS}/${id}`, { events: ["nope"] })).status, 400, "unknown event");
  t.equal((await call("PATCH", `${SUBS}/${id}`, { secret: "x" })).status, 400, "unknown field");
  t.equal((await call("PATCH", `${SUBS}/${id}`, { filters: { min_severity: "extreme" } })).status, 400, "bad severity");
});

test("DELETE is 204 with an empty body; unknown ids are 404 everywhere", async (t) => {
  const id = (await call("POST", SUBS, { url: PUBLIC_URL, events: ["agent.connected"] })).json.id as string;
  const del = await call("DELETE", `${SUBS}/${id}`);
  t.equal(del.status, 204);
  t.equal(del.text, "");
  const unknown = "sub_01ARZ3NDEKTSV4RRFFQ69G5FAV";
  for (const target of [id, unknown]) {
    t.equal((await call("GET", `${SUBS}/${target}`)).status, 404, `GET ${target}`);
    t.equal((await call("PATCH", `${SUBS}/${target}`, { active: false })).status, 404, `PATCH ${target}`);
    t.equal((await call("DELETE", `${SUBS}/${target}`)).status, 404, `DELETE ${target}`);
    const test404 = await call("POST", `${SUBS}/${target}/test`);
    t.equal(test404.status, 404, `test ${target}`);
    t.equal(test404.json.error.code, "not_found");
  }
  t.notOk(((await call("GET", `${SUBS}?limit=200`)).json.subscriptions as Array<{ id: string }>).some((s) => s.id === id), "gone from the list");
  t.equal((await call("GET", "/v1/webhooks/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV")).status, 404);
  t.equal((await call("POST", "/v1/webhooks/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/replay")).status, 404);
  const badStatus = await call("GET", "/v1/webhooks/deliveries?status=dead");
  t.equal(badStatus.status, 400);
  t.equal((await call("GET", "/v1/webhooks/deliveries?cursor=garbage")).json.error.code, "invalid_cursor");
  // Ids longer than any id (and than LMDB's key limit): a 400 naming the filter, not a 500.
  for (const name of ["subscription_id", "event_id"]) {
    const long = await call("GET", `/v1/webhooks/deliveries?${name}=${"a".repeat(1990)}`);
    t.equal(long.status, 400, `${name}: 400`);
    t.equal(long.json.error.code, "validation_failed");
    t.match(JSON.stringify(long.json.error.details), name);
  }
  t.equal((await call("GET", `/v1/webhooks/deliveries?event_id=${"a".repeat(128)}`)).status, 200, "event_id: 128 characters are fine");
  // A subscription id has one shape: anything else can match nothing, and an empty page would read as "no deliveries".
  const garbage = await call("GET", "/v1/webhooks/deliveries?subscription_id=garbage");
  t.equal(garbage.status, 400);
  t.match(JSON.stringify(garbage.json.error.details), /subscription_id/);
  const noSuch = await call("GET", "/v1/webhooks/deliveries?subscription_id=sub_01ARZ3NDEKTSV4RRFFQ69G5FAV");
  t.equal(noSuch.status, 200, "a well-formed id of no subscription is an empty page");
  t.same(noSuch.json.deliveries, []);
  // An empty event_id would match nothing too; any other string is an id some publisher may have used.
  const empty = await call("GET", "/v1/webhooks/deliveries?event_id=");
  t.equal(empty.status, 400, "an empty event_id is a 400");
  t.match(JSON.stringify(empty.json.error.details), /event_id/);
});

test("the subscription list is cursor-paginated without repeats", async (t) => {
  for (let i = 0; i < 5; i++) await call("POST", SUBS, { url: PUBLIC_URL, events: ["agent.registered"] });
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await call("GET", `${SUBS}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    t.equal(page.status, 200);
    t.ok(page.json.subscriptions.length <= 2);
    seen.push(...(page.json.subscriptions as Array<{ id: string }>).map((s) => s.id));
    cursor = page.json.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  const all = (await call("GET", `${SUBS}?limit=200`)).json.subscriptions as Array<{ id: string }>;
  t.same(seen, all.map((s) => s.id), "the pages walk the whole list in order");
  t.equal(new Set(seen).size, seen.length, "no repeats");
  t.equal((await call("GET", `${SUBS}?limit=0`)).status, 400);
  t.equal((await call("GET", `${SUBS}?cursor=nope`)).json.error.code, "invalid_cursor");
});

test("the deliveries list skips expired deliveries the index still holds without shortening a page", async (t) => {
  // The bucket forgets a delivery 30 days after its last write; until the hourly prune the gateway's index
  // still holds it. Written straight into the bucket: kept and expired ones alternate, newest first.
  const nc = await connectTo(stack.nats.url);
  t.teardown(() => nc.close());
  const kv = await new Kvm(nc).open("inq_webhook_deliveries");
  const sub = "sub_01EXP1RED00000000000000000";
  const day = 86_400_000;
  const now = Date.now();
  const kept: string[] = [];
  for (let i = 0; i < 9; i++) {
    const r = newDeliveryRecord({
      deliveryId: `dlv_01EXP1RED${String(i).padStart(17, "0")}`,
      subscriptionId: sub,
      envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"],
      nowMs: now - 40 * day + i * 60_000,
    });
    const fresh = i % 2 === 0;
    await kv.put(r.delivery_id, JSON.stringify({ ...r, updated_at: new Date(fresh ? now : now - 31 * day).toISOString() }));
    if (fresh) kept.unshift(r.delivery_id);
  }
  for (const query of [`subscription_id=${sub}`, `subscription_id=${sub}&status=pending`, "status=pending"]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await call("GET", `/v1/webhooks/deliveries?${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      t.equal(page.status, 200);
      cursor = page.json.next_cursor;
      if (cursor) t.equal(page.json.deliveries.length, 2, `${query}: page ${pages + 1} is full while a next_cursor is given`);
      seen.push(...(page.json.deliveries as Array<{ delivery_id: string }>).map((d) => d.delivery_id));
      pages++;
    } while (cursor && pages < 50);
    t.same(seen.filter((id) => id.startsWith("dlv_01EXP1RED")), kept, `${query}: every retained delivery once, no expired one`);
  }
});

test("a deliveries cursor continues only its own list and filters; another list's cursor is 400 invalid_cursor", async (t) => {
  // Index prefixes overlap: every list filtered by an event walks that event's entries, and the unfiltered
  // investigations and deliveries lists both walk ["all"]. Before, such a cursor was taken as a position: items skipped.
  const nc = await connectTo(stack.nats.url);
  t.teardown(() => nc.close());
  const kv = await new Kvm(nc).open("inq_webhook_deliveries");
  const envelope = makeEvent("agent.connected") as DeliveryRecord["envelope"];
  for (let i = 0; i < 3; i++) {
    const r = newDeliveryRecord({ deliveryId: `dlv_01CURS0R${String(i).padStart(18, "0")}`, subscriptionId: `sub_01CURS0R${String(i).padStart(18, "0")}`, envelope, nowMs: Date.now() - i * 1_000 });
    await kv.put(r.delivery_id, JSON.stringify(r));
  }
  const byEvent = `/v1/webhooks/deliveries?event_id=${envelope.event_id}`;
  const first = await call("GET", `${byEvent}&status=pending&limit=1`);
  t.equal(first.status, 200);
  t.equal(first.json.deliveries.length, 1);
  const cursor = encodeURIComponent(first.json.next_cursor as string);
  t.equal((await call("GET", `${byEvent}&status=pending&limit=1&cursor=${cursor}`)).status, 200, "the same list and filters go on");
  for (const other of [`${byEvent}&status=delivered`, `${byEvent}&subscription_id=sub_01CXRS0R000000000000000001`, byEvent]) {
    const r = await call("GET", `${other}&cursor=${cursor}`);
    t.equal(r.status, 400, other);
    t.equal(r.json.error.code, "invalid_cursor", other);
  }
  for (let i = 0; i < 2; i++) t.equal((await call("POST", "/v1/investigations", { query: "any new listening ports?", mode: "cached" })).status, 202);
  const investigations = await call("GET", "/v1/investigations?limit=1");
  t.ok(investigations.json.next_cursor, "the investigations list has a next page");
  const misused = await call("GET", `/v1/webhooks/deliveries?cursor=${encodeURIComponent(investigations.json.next_cursor as string)}`);
  t.equal(misused.status, 400, "an investigations cursor on the deliveries list");
  t.equal(misused.json.error.code, "invalid_cursor");
});

test("every webhook route needs webhooks:manage: 401 without a key, 403 without the scope", async (t) => {
  const readOnly = issueKey(stack.nats.url, ["investigations:read", "investigations:trigger", "curiosity:write"]);
  const id = "sub_01ARZ3NDEKTSV4RRFFQ69G5FAV";
  const routes: Array<[string, string, unknown]> = [
    ["POST", SUBS, { url: PUBLIC_URL, events: ["agent.connected"] }],
    ["GET", SUBS, undefined],
    ["GET", `${SUBS}/${id}`, undefined],
    ["PATCH", `${SUBS}/${id}`, { active: false }],
    ["DELETE", `${SUBS}/${id}`, undefined],
    ["POST", `${SUBS}/${id}/test`, undefined],
    ["GET", "/v1/webhooks/deliveries", undefined],
    ["GET", "/v1/webhooks/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV", undefined],
    ["POST", "/v1/webhooks/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/replay", undefined],
  ];
  for (const [method, path, body] of routes) {
    t.equal((await call(method, path, body, null)).status, 401, `${method} ${path} without a key`);
    const wrong = await call(method, path, body, readOnly);
    t.equal(wrong.status, 403, `${method} ${path} without webhooks:manage`);
    t.equal(wrong.json?.error?.code, "forbidden");
  }
});

test("the routes are in the OpenAPI document", async (t) => {
  const doc = (await api(stack.baseUrl, "GET", "/v1/openapi.json")).json;
  for (const [path, method] of [
    ["/v1/webhooks/subscriptions", "post"],
    ["/v1/webhooks/subscriptions/{id}", "patch"],
    ["/v1/webhooks/subscriptions/{id}/test", "post"],
    ["/v1/webhooks/deliveries", "get"],
    ["/v1/webhooks/deliveries/{id}/replay", "post"],
  ] as const) {
    t.equal(doc.paths?.[path]?.[method]?.["x-required-scope"], "webhooks:manage", `${method} ${path}`);
  }
  t.ok(doc.paths["/v1/webhooks/subscriptions"].post.responses["201"].content["application/json"].schema.properties.secret, "the create response documents the secret");
});

test("teardown", async () => {
  await stack.stop();
});

test("the dispatcher checks the address again at send time (the gateway here allows private targets, the dispatcher does not)", async (t) => {
  const receiver = await startReceiver();
  const s = await startStack({ services: ["gateway"], env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "50ms,50ms,50ms,50ms" } });
  s.start("dispatcher", { INQUEST_ALLOW_PRIVATE_TARGETS: "false" });
  const nc = await connectTo(s.nats.url);
  t.teardown(async () => {
    await nc.close();
    await s.stop();
    await receiver.close();
  });
  const literal = await createSub(s, { url: receiver.url("/literal"), events: ["agent.connected"] });
  const own = hostname();
  const ownPrivate = (await lookup(own, { all: true }).catch(() => [])).some((a) => isPrivateAddress(a.address));
  const byName = await createSub(s, { url: `http://${own}:${await freePort()}/by-name`, events: ["agent.connected"] });
  const ev = makeEvent("agent.connected", { agent_id: "a1", hostname: "h1", tags: {}, status: "online" });
  await publish(nc, ev);
  const d = await waitDelivery(s, ev.event_id, literal.id, terminal);
  t.equal(d.status, "failed_permanent");
  t.equal(d.last_error, "private_target");
  t.equal(d.attempt_count, 1, "not retried: the target itself is refused");
  t.equal(d.last_response_code, null);
  if (ownPrivate) {
    const n = await waitDelivery(s, ev.event_id, byName.id, terminal);
    t.equal(n.last_error, "private_target", `${own} resolves to a private address when the dispatcher connects`);
    t.equal(n.attempt_count, 1);
  }
  t.equal(receiver.received().length, 0, "nothing reached the receiver");
});
