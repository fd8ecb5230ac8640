// What a trigger stores of its own (question, scope, context, seeds) is bounded, whichever way it comes in: the API,
// a curiosity item or an inbound webhook (1 MiB bodies). The record a trigger writes is the base the run's end adds
// its findings (256 KiB at most) and report (256 KiB at most) to, and the whole must fit one NATS message (1 MiB):
// an agent id of control characters takes 6 bytes of JSON a character, so 1,000 of them made a 770 KB record that
// queued fine and could never be stored with its results. Bad input is a 400 with the contract's error body and
// writes nothing (docs/api.md#investigations).
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { test, type Test } from "tap";
import { connectTo } from "../helpers/nats.js";
import { createEndpoint, deliver, edrHeaders, githubHeaders, investigationIds, type CreatedEndpoint } from "../helpers/inbound.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

/** What a queued record may take: 1 MiB less the findings (256 KiB), the report (256 KiB), the summary and bookkeeping. */
const QUEUED_RECORD_ROOM = 1024 * 1024 - 256 * 1024 - 256 * 1024 - 64 * 1024;
const CI_SECRET = "ci-secret";
const EDR_SECRET = "edr-secret";

let stack: Stack;
let nc: NatsConnection;
let generic: CreatedEndpoint;
let ci: CreatedEndpoint;
let edr: CreatedEndpoint;

const post = (path: string, body: unknown) => api(stack.baseUrl, "POST", path, { key: stack.key, body });
const selector = (filter: Record<string, unknown>) => ({ type: "selector", filter });
/** `n` strings of `chars` characters, distinct, all of `fill`. */
const many = (n: number, chars: number, fill: string) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(chars, fill));

/** The stored record's bytes, read from the bucket (what the runner must write back with its results). */
async function storedBytes(id: string): Promise<number> {
  const kv = await new Kvm(nc).open("inq_investigations");
  const entry = await kv.get(id);
  if (!entry) throw new Error(`no record ${id}`);
  return entry.value.length;
}

async function refusedWithoutWrites(t: Test, send: () => Promise<{ status: number; json: any; text: string }>, path: RegExp): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const before = (await investigationIds(stack)).length;
  const r = await send();
  t.equal(r.status, 400, r.text.slice(0, 300));
  t.equal(r.json?.error?.code, "validation_failed");
  t.ok((r.json?.error?.details as Array<{ path: string }> | undefined)?.some((d) => path.test(d.path)), `a detail names ${path}: ${JSON.stringify(r.json?.error?.details)?.slice(0, 300)}`);
  t.equal((await investigationIds(stack)).length, before, "nothing was queued");
}

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
  nc = await connectTo(stack.nats.url);
  generic = await createEndpoint(stack, { provider: "generic" });
  ci = await createEndpoint(stack, { provider: "ci", provider_signing_secret: CI_SECRET });
  edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET });
});

test("agent ids in a scope are agent ids (1..128 of A-Z a-z 0-9 _ -): anything else is a 400", async (t) => {
  const scope = selector({ agent_ids: ["web-1", "bad\u0001id"] });
  await refusedWithoutWrites(t, () => post("/v1/investigations", { query: "q", scope }), /^\/scope\/filter\/agent_ids\/1$/);
  const cur = await post("/v1/curiosity", { query: "q", interval: "1h", scope });
  t.equal(cur.status, 400, "a curiosity item's scope too");
  t.equal(cur.json?.error?.code, "validation_failed");
  const ok = await post("/v1/investigations", { query: "q", scope: selector({ agent_ids: ["web-1", "A_z-09"] }) });
  t.equal(ok.status, 202, "agent ids as agents register them pass");
});

test("inbound generic: 1,000 agent ids of 128 control characters (a 770 KB record) are refused, not queued", async (t) => {
  const ids = many(1000, 128, "\u0001");
  const raw = JSON.stringify({ query: "q", agent_ids: ids });
  t.ok(raw.length > 700_000 && raw.length < 1024 * 1024, `a body the receiver takes (${raw.length} bytes)`);
  await refusedWithoutWrites(t, () => deliver(stack, generic.path, raw), /^\/agent_ids\/0$/);
  await refusedWithoutWrites(t, () => deliver(stack, generic.path, JSON.stringify({ query: "q", scope: selector({ agent_ids: ids }) })), /^\/scope\/filter\/agent_ids\/0$/);
});

test("a trigger whose question and scope are valid field by field but too large together is a 400", async (t) => {
  // 1,000 ids of 128 characters, 32 tags whose values are 256 control characters and a 2,000-character question.
  const tags = Object.fromEntries(many(32, 128, "k").map((k) => [k, "\u0001".repeat(256)]));
  const body = { query: "\u0001".repeat(2000), scope: selector({ tags, agent_ids: many(1000, 128, "a") }) };
  t.ok(JSON.stringify(body).length < 256 * 1024, "within the management body limit");
  await refusedWithoutWrites(t, () => post("/v1/investigations", body), /^\/$/);
  const cur = await post("/v1/curiosity", { ...body, interval: "1h" });
  t.equal(cur.status, 400, "a curiosity item that could never run is refused when created");
  t.equal(cur.json?.error?.code, "validation_failed");
  await refusedWithoutWrites(t, () => deliver(stack, generic.path, JSON.stringify(body)), /^\/$/);

  // A PATCH is checked with the fields it leaves as they are.
  const item = await post("/v1/curiosity", { query: "q", interval: "1h", active: false, scope: selector({ tags }) });
  t.equal(item.status, 201, "the tags alone fit");
  const patched = await api(stack.baseUrl, "PATCH", `/v1/curiosity/${item.json.id}`, { key: stack.key, body: { query: body.query, scope: body.scope } });
  t.equal(patched.status, 400, "a PATCH making the item too large is refused");
  t.equal(patched.json?.error?.code, "validation_failed");
  const questionOnly = await api(stack.baseUrl, "PATCH", `/v1/curiosity/${item.json.id}`, { key: stack.key, body: { query: body.query } });
  t.equal(questionOnly.status, 200, "a question alone still fits with the stored tags");
  const over = await api(stack.baseUrl, "PATCH", `/v1/curiosity/${item.json.id}`, { key: stack.key, body: { scope: body.scope } });
  t.equal(over.status, 400, "and the scope that, with that stored question, is too large is refused");
  const stored = await api(stack.baseUrl, "GET", `/v1/curiosity/${item.json.id}`, { key: stack.key });
  t.same(stored.json.scope, selector({ tags }), "the item keeps its scope");

  const large = await post("/v1/investigations", { query: "q".repeat(2000), scope: selector({ agent_ids: many(1000, 128, "a") }) });
  t.equal(large.status, 202, "the largest plain request (1,000 ids of 128 characters) still passes");
  t.ok((await storedBytes(large.json.investigation_id)) <= QUEUED_RECORD_ROOM, "and its record leaves room for the results");
});

test("inbound providers' own text is bounded in the record: an EDR command line of 700 KB", async (t) => {
  const raw = JSON.stringify({ device_id: "unknown-device", description: "Suspicious process", cmdline: `/bin/sh -c ${"x".repeat(700_000)}`, user_name: "u".repeat(100_000) });
  const r = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw));
  t.equal(r.status, 202, r.text.slice(0, 300));
  const id = r.json.investigation_id as string;
  t.ok(id, "queued");
  const bytes = await storedBytes(id);
  t.ok(bytes <= QUEUED_RECORD_ROOM, `its record leaves room for the results (${bytes} bytes)`);
});

test("inbound ci: a repository name of 600 KB (the runners' tag) is refused, not queued", async (t) => {
  const raw = JSON.stringify({ action: "completed", repository: { full_name: `o/${"r".repeat(600_000)}` }, workflow_run: { name: "build", conclusion: "failure" } });
  await refusedWithoutWrites(t, async () => deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, "workflow_run", "d-1")), /./);
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
});
