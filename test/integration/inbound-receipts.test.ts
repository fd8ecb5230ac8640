// Inbound receipts and replay protection (docs/api.md#inbound-receipts, #inbound-replay-protection), black-box
// over real HTTP against the gateway on a real nats-server: every POST to an endpoint is listed with its outcome
// and reason, its body sealed at rest in JetStream; a receipt can be replayed; a captured signed EDR request
// cannot be replayed on the wire; GitHub-style deliveries are not deduplicated.
import { randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { test } from "tap";
import { issueKey } from "../helpers/cli.js";
import { createEndpoint, deliver, edrHeaders, githubHeaders, type CreatedEndpoint } from "../helpers/inbound.js";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { parseMasterKey } from "../../shared/secrets.js";
import { bodyKey, openBody } from "../../shared/inbound/seal-body.js";

let stack: Stack;
let generic: CreatedEndpoint;
let edr: CreatedEndpoint;
const EDR_SECRET = "edr-receipts-secret";
const receiptsOf = (id: string, q = "") => `/v1/webhooks/incoming/endpoints/${id}/receipts${q}`;

interface Receipt {
  receipt_id: string;
  outcome: string;
  reason: string | null;
  status: number;
  investigation_id: string | null;
  replay_of: string | null;
  body: { bytes: number; truncated: boolean; kept_bytes: number } | null;
}

async function list(id: string, q = ""): Promise<Receipt[]> {
  const r = await api(stack.baseUrl, "GET", receiptsOf(id, q), { key: stack.key });
  if (r.status !== 200) throw new Error(`list receipts: ${r.status} ${r.text}`);
  return r.json.receipts as Receipt[];
}

/** The receipt with this property, once the background write has landed. */
function receiptWhere(id: string, pick: (r: Receipt) => boolean): Promise<Receipt> {
  return eventually(async () => (await list(id, "?limit=200")).find(pick));
}

const alert = (tag: string) => JSON.stringify({ device_id: "dev-receipts", description: `Suspicious process ${tag}`, composite_id: `cmp-${tag}` });

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
  generic = await createEndpoint(stack, { provider: "generic" });
  edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET });
});

test("every POST is a receipt: triggered, ignored, rejected with the reason and the status answered", async (t) => {
  const marker = `marker-${randomUUID()}`;
  const queued = await deliver(stack, generic.path, JSON.stringify({ query: `What ran? ${marker}` }));
  t.equal(queued.status, 202, queued.text);
  const invalid = await deliver(stack, generic.path, JSON.stringify({ depth: "deep" }));
  t.equal(invalid.status, 400);
  const notJson = await deliver(stack, generic.path, "{not json");
  t.equal(notJson.status, 400);
  const inactive = await createEndpoint(stack, { provider: "generic", active: false });
  t.equal((await deliver(stack, inactive.path, '{"query":"q"}')).status, 202);

  const triggered = await receiptWhere(generic.id, (r) => r.investigation_id === queued.json.investigation_id);
  t.match(triggered, { outcome: "triggered", reason: null, status: 202, replay_of: null, body: { truncated: false } });
  t.equal(triggered.body?.bytes, Buffer.byteLength(JSON.stringify({ query: `What ran? ${marker}` })));
  const rejected = await eventually(async () => {
    const r = await list(generic.id, "?outcome=rejected");
    return r.length === 2 ? r : undefined;
  });
  t.same(rejected.map((r) => r.status), [400, 400], "newest first: the bad JSON, then the missing query");
  t.match(rejected[0]?.reason, /not valid JSON/);
  t.match(rejected[1]?.reason, /query/);
  const ignored = await receiptWhere(inactive.id, () => true);
  t.match(ignored, { outcome: "ignored", status: 202, reason: "this endpoint is inactive" });

  const all = await list(generic.id);
  t.same(all.map((r) => r.receipt_id), [...all.map((r) => r.receipt_id)].sort().reverse(), "newest first");
  t.same((await list(generic.id, "?outcome=triggered")).map((r) => r.outcome), ["triggered"]);

  // Paging: one at a time, the cursor carries on; a cursor of another filter is refused.
  const first = await api(stack.baseUrl, "GET", receiptsOf(generic.id, "?limit=1"), { key: stack.key });
  t.equal(first.json.receipts.length, 1);
  const second = await api(stack.baseUrl, "GET", receiptsOf(generic.id, `?limit=1&cursor=${first.json.next_cursor}`), { key: stack.key });
  t.equal(second.json.receipts[0].receipt_id, all[1]?.receipt_id);
  const crossed = await api(stack.baseUrl, "GET", receiptsOf(generic.id, `?outcome=rejected&cursor=${first.json.next_cursor}`), { key: stack.key });
  t.equal(crossed.status, 400);
  t.equal(crossed.json.error.code, "invalid_cursor");
});

test("the receipts API: bad filters 400, unknown endpoint 404, webhooks:manage needed", async (t) => {
  const bad = await api(stack.baseUrl, "GET", receiptsOf(generic.id, "?outcome=maybe"), { key: stack.key });
  t.equal(bad.status, 400);
  t.same(bad.json.error.details, [{ path: "/outcome", message: "must be one of triggered, ignored, rejected" }]);
  t.equal((await api(stack.baseUrl, "GET", receiptsOf(generic.id, "?limit=0"), { key: stack.key })).json.error.code, "validation_failed");
  const missing = await api(stack.baseUrl, "GET", receiptsOf("iep_01ARZ3NDEKTSV4RRFFQ69G5FAV"), { key: stack.key });
  t.equal(missing.status, 404);
  t.equal(missing.json.error.code, "not_found");
  const replayMissing = await api(stack.baseUrl, "POST", `${receiptsOf(generic.id)}/rcp_01ARZ3NDEKTSV4RRFFQ69G5FAV/replay`, { key: stack.key });
  t.equal(replayMissing.status, 404);
  const readOnly = issueKey(stack.nats.url, ["investigations:read"]);
  for (const [method, path] of [
    ["GET", receiptsOf(generic.id)],
    ["POST", `${receiptsOf(generic.id)}/rcp_01ARZ3NDEKTSV4RRFFQ69G5FAV/replay`],
  ] as const) {
    t.equal((await api(stack.baseUrl, method, path)).status, 401, `${method} without a key`);
    const forbidden = await api(stack.baseUrl, method, path, { key: readOnly });
    t.equal(forbidden.status, 403, `${method} without webhooks:manage`);
    t.equal(forbidden.json.error.code, "forbidden");
  }
});

test("the body is kept sealed in JetStream: no plaintext at rest, opens with the master key", async (t) => {
  const marker = `plaintext-${randomUUID()}`;
  const raw = JSON.stringify({ query: `Sealed ${marker}` });
  const r = await deliver(stack, generic.path, raw);
  t.equal(r.status, 202);
  const receipt = await receiptWhere(generic.id, (x) => x.investigation_id === r.json.investigation_id);
  const nc = await connectTo(stack.nats.url);
  try {
    const jsm = await jetstreamManager(nc);
    const msg = await jsm.streams.getMessage("INQ_INBOUND_BODIES", { last_by_subj: `inbound.bodies.${receipt.receipt_id}` });
    t.ok(msg, "one message per receipt");
    const stored = Buffer.from(msg?.data ?? new Uint8Array());
    t.notOk(stored.includes(marker), "the stored bytes do not contain the body");
    const plain = openBody(bodyKey(parseMasterKey(stack.env.INQUEST_MASTER_KEY ?? "")), receipt.receipt_id, msg?.data ?? new Uint8Array());
    t.ok(plain.toString("utf8").endsWith(`\n${raw}`), "headers line, then the exact body");
    t.throws(() => openBody(bodyKey(parseMasterKey(stack.env.INQUEST_MASTER_KEY ?? "")), "rcp_01ARZ3NDEKTSV4RRFFQ69G5FAV", msg?.data ?? new Uint8Array()), "bound to its receipt id");
    const info = await jsm.streams.info("INQ_INBOUND_BODIES");
    t.equal(info.config.max_age, 7 * 86_400 * 1e9, "kept 7 days");
    const kv = await jsm.streams.info("KV_inq_inbound_receipts");
    t.equal(kv.config.max_age, 7 * 86_400 * 1e9, "receipts kept 7 days");
  } finally {
    await nc.close();
  }
});

test("a signed EDR request is accepted once: the same bytes again are answered as a bad signature, and the receipt says why", async (t) => {
  const raw = alert("once");
  const signedAt = Math.floor(Date.now() / 1000);
  const headers = edrHeaders(EDR_SECRET, raw, signedAt);
  const first = await deliver(stack, edr.path, raw, headers);
  t.equal(first.status, 202, first.text);
  t.ok(first.json.investigation_id);
  const again = await deliver(stack, edr.path, raw, headers);
  const forged = await deliver(stack, edr.path, raw, { ...headers, "x-cs-primary-signature": "AAAA" });
  t.equal(again.status, 401);
  t.same(again.json, forged.json, "the same answer as a bad signature");
  t.equal(again.json.error.code, "unauthorized");
  const replayed = await receiptWhere(edr.id, (r) => r.reason?.startsWith("replayed signature") === true);
  t.match(replayed, { outcome: "rejected", status: 401, investigation_id: null });
  const bad = await receiptWhere(edr.id, (r) => r.reason?.startsWith("bad signature") === true);
  t.match(bad, { outcome: "rejected", status: 401 });

  // A fresh signature (new timestamp) over the same alert is a new request: accepted.
  const resigned = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw, signedAt - 1));
  t.equal(resigned.status, 202, resigned.text);
});

test("the other base64 spellings of a used signature (the last character's spare bits) are replays too", async (t) => {
  const raw = alert("spellings");
  const headers = edrHeaders(EDR_SECRET, raw);
  const sig = headers["x-cs-primary-signature"] as string; // 43 characters and "=": 2 spare bits in the 43rd
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const last = alphabet.indexOf(sig[42] as string);
  const spellings = [0, 1, 2, 3].map((bits) => `${sig.slice(0, 42)}${alphabet[(last & ~3) | bits]}=`);
  t.equal(new Set(spellings.map((x) => Buffer.from(x, "base64").toString("hex"))).size, 1, "four texts, one digest");
  const answers = [];
  for (const spelling of spellings) answers.push((await deliver(stack, edr.path, raw, { ...headers, "x-cs-primary-signature": spelling })).status);
  t.same(answers.sort(), [202, 401, 401, 401], "one accepted, whichever spelling came first");
});

test("two concurrent copies of one signed request: exactly one is accepted", async (t) => {
  const raw = alert("race");
  const headers = edrHeaders(EDR_SECRET, raw);
  const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(stack, edr.path, raw, headers)));
  t.same(answers.map((a) => a.status).sort(), [202, 401, 401, 401, 401, 401, 401, 401]);
});

test("GitHub-style deliveries are not deduplicated: the same signed delivery twice is two receipts, both triggered", async (t) => {
  const ci = await createEndpoint(stack, { provider: "ci", provider_signing_secret: "ci-secret" });
  const raw = JSON.stringify({ action: "completed", repository: { full_name: "octo/repo" }, workflow_run: { name: "build", run_number: 7 } });
  const headers = await githubHeaders("ci-secret", raw, "workflow_run", randomUUID());
  const a = await deliver(stack, ci.path, raw, headers);
  const b = await deliver(stack, ci.path, raw, headers);
  t.equal(a.status, 202, a.text);
  t.equal(b.status, 202, b.text);
  t.not(a.json.investigation_id, b.json.investigation_id);
  const triggered = await eventually(async () => {
    const r = await list(ci.id, "?outcome=triggered");
    return r.length === 2 ? r : undefined;
  });
  t.equal(triggered.length, 2);
});

test("replay re-processes the stored request (signature window and once-only claim skipped) and links the new receipt", async (t) => {
  const raw = alert("replay");
  const first = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw));
  t.equal(first.status, 202, first.text);
  const original = await receiptWhere(edr.id, (r) => r.investigation_id === first.json.investigation_id);
  const replay = await api(stack.baseUrl, "POST", `${receiptsOf(edr.id)}/${original.receipt_id}/replay`, { key: stack.key });
  t.equal(replay.status, 202, replay.text);
  t.match(replay.json, { outcome: "triggered", status: 202, replay_of: original.receipt_id, endpoint_id: edr.id });
  t.not(replay.json.receipt_id, original.receipt_id);
  t.ok(replay.json.investigation_id);
  const listed = await receiptWhere(edr.id, (r) => r.replay_of === original.receipt_id);
  t.equal(listed.receipt_id, replay.json.receipt_id);

  // A rejected receipt replays to the same rejection: its signature still does not verify.
  const forged = await deliver(stack, edr.path, raw, { ...edrHeaders(EDR_SECRET, raw), "x-cs-primary-signature": "AAAA" });
  t.equal(forged.status, 401);
  const rejected = await receiptWhere(edr.id, (r) => r.status === 401 && r.reason?.startsWith("bad signature") === true && r.replay_of === null);
  const again = await api(stack.baseUrl, "POST", `${receiptsOf(edr.id)}/${rejected.receipt_id}/replay`, { key: stack.key });
  t.match(again.json, { outcome: "rejected", status: 401, replay_of: rejected.receipt_id });

  // A receipt of another endpoint is not found under this one.
  const cross = await api(stack.baseUrl, "POST", `${receiptsOf(generic.id)}/${original.receipt_id}/replay`, { key: stack.key });
  t.equal(cross.status, 404);
});

test("bodies too large to keep whole are truncated and marked, and cannot be replayed (409); unread bodies neither", async (t) => {
  const nearLimit = JSON.stringify({ query: "big", pad: "x".repeat(1024 * 1024 - 100) });
  const r = await deliver(stack, generic.path, nearLimit);
  t.equal(r.status, 202, "the answer is the spec's, whatever is kept");
  const big = await receiptWhere(generic.id, (x) => x.investigation_id === r.json.investigation_id);
  t.equal(big.body?.bytes, Buffer.byteLength(nearLimit));
  t.equal(big.body?.truncated, true, "a 1 MiB server max_payload leaves less than the whole body");
  t.ok((big.body?.kept_bytes ?? 0) > 1_000_000, `kept ${big.body?.kept_bytes}`);
  const refused = await api(stack.baseUrl, "POST", `${receiptsOf(generic.id)}/${big.receipt_id}/replay`, { key: stack.key });
  t.equal(refused.status, 409);
  t.equal(refused.json.error.code, "not_replayable");

  const over = await deliver(stack, generic.path, Buffer.alloc(1024 * 1024 + 10, 0x20));
  t.equal(over.status, 413);
  const unread = await receiptWhere(generic.id, (x) => x.status === 413);
  t.match(unread, { outcome: "rejected", body: null });
  const noBody = await api(stack.baseUrl, "POST", `${receiptsOf(generic.id)}/${unread.receipt_id}/replay`, { key: stack.key });
  t.equal(noBody.status, 409);
  t.equal(noBody.json.error.code, "not_replayable");
});

test("when receipts cannot be written the provider still gets the spec's answer", async (t) => {
  const nc = await connectTo(stack.nats.url);
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete("INQ_INBOUND_BODIES");
    await jsm.streams.delete("KV_inq_inbound_receipts");
    const r = await deliver(stack, generic.path, JSON.stringify({ query: "still answered" }));
    t.equal(r.status, 202, r.text);
    t.ok(r.json.investigation_id, "queued as the spec says");
  } finally {
    await nc.close();
  }
});

test("teardown", async () => {
  await stack.stop();
});
