// A gateway killed after claiming an EDR signature (docs/api.md#inbound-replay-protection) must not turn the
// provider's retry of that very request into a "replay": the retry gets 202 and the alert exactly one
// investigation; a copy after the request was answered is still refused, and two retries racing on two gateway
// replicas are accepted once. The crash is simulated by writing the claim as the killed gateway left it (pending)
// into inq_inbound_signatures; black-box over real HTTP on a real nats-server otherwise.
import { createHash } from "node:crypto";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { createEndpoint, deliver, edrHeaders, type CreatedEndpoint } from "../helpers/inbound.js";
import { connectTo } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

const EDR_SECRET = "edr-crash-secret";
let stack: Stack;
let edr: CreatedEndpoint;
let nc: NatsConnection;
let claims: KV;

const alert = (tag: string) => JSON.stringify({ device_id: "dev-crash", description: `Credential dumping ${tag}`, composite_id: `cmp-crash-${tag}` });

/** The claim key, computed as the gateway does: sha256(endpoint id, timestamp "." canonical base64 signature). */
function claimKey(headers: Record<string, string>): string {
  const material = `${headers["x-cs-delivery-timestamp"]}.${Buffer.from(headers["x-cs-primary-signature"] ?? "", "base64").toString("base64")}`;
  return createHash("sha256").update(`${edr.id}\n${material}`, "utf8").digest("hex");
}

/** The claim as a gateway killed between claiming the signature and answering leaves it. */
async function leavePending(headers: Record<string, string>, receiptId = "rcp_01ARZ3NDEKTSV4RRFFQ69G5FAV"): Promise<void> {
  await claims.put(claimKey(headers), JSON.stringify({ receipt_id: receiptId, state: "pending" }));
}

/** The investigations an alert started (its composite id is the trigger id). */
async function investigationsOf(compositeId: string): Promise<string[]> {
  const r = await api(stack.baseUrl, "GET", "/v1/investigations?limit=200&trigger_source=inbound:edr", { key: stack.key });
  if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
  const items = r.json.investigations as Array<{ investigation_id: string; context: { trigger_id: string | null } }>;
  return items.filter((i) => i.context.trigger_id === compositeId).map((i) => i.investigation_id);
}

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
  edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET });
  nc = await connectTo(stack.nats.url);
  claims = await new Kvm(nc).open("inq_inbound_signatures");
});

test("killed after the claim, before the trigger: the retry of the same signed request is accepted, once", async (t) => {
  const raw = alert("before-trigger");
  const headers = edrHeaders(EDR_SECRET, raw);
  await leavePending(headers);
  const retry = await deliver(stack, edr.path, raw, headers);
  t.equal(retry.status, 202, retry.text);
  t.ok(retry.json.investigation_id, "queued");
  t.same(await investigationsOf("cmp-crash-before-trigger"), [retry.json.investigation_id], "one investigation");
  const replay = await deliver(stack, edr.path, raw, headers);
  t.equal(replay.status, 401, "once answered, the same request again is a replay");
  t.equal(replay.json.error.code, "unauthorized");
});

test("killed after the trigger, before answering: the retry answers the same investigation and starts none", async (t) => {
  const raw = alert("after-trigger");
  const headers = edrHeaders(EDR_SECRET, raw);
  const first = await deliver(stack, edr.path, raw, headers);
  t.equal(first.status, 202, first.text);
  // The answer never reached the provider: the claim is as the killed gateway left it, the investigation queued.
  await leavePending(headers);
  const retry = await deliver(stack, edr.path, raw, headers);
  t.equal(retry.status, 202, retry.text);
  t.equal(retry.json.investigation_id, first.json.investigation_id, "the investigation the first attempt queued");
  t.same(await investigationsOf("cmp-crash-after-trigger"), [first.json.investigation_id], "still one investigation");
  t.equal((await deliver(stack, edr.path, raw, headers)).status, 401, "a replay after that is refused");
});

test("two retries of a crashed request racing on two gateway replicas: one is accepted, the other refused", async (t) => {
  const dir = tempDir("inquest-gw2-");
  const gw2 = stack.start("gateway", { INQUEST_DATA_DIR: dir.path }, "gateway2");
  const url2 = await gw2.line("INQUEST_GATEWAY_URL=");
  await gw2.ready();
  const raw = alert("race");
  const headers = edrHeaders(EDR_SECRET, raw);
  await leavePending(headers);
  const answers = await Promise.all([
    deliver(stack, edr.path, raw, headers),
    api(url2, "POST", edr.path, { rawBody: raw, headers: { "content-type": "application/json", ...headers } }),
  ]);
  t.same(answers.map((a) => a.status).sort(), [202, 401], answers.map((a) => a.text).join(" | "));
  t.equal((await investigationsOf("cmp-crash-race")).length, 1, "one investigation");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
});
