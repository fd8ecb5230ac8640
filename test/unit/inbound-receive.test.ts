// The receiver's decision for one receipt (shared/inbound/receive.ts): the contract's order of checks with
// real providers, real signatures and a real sealed secret; the endpoint lookup and the trigger are in-memory.
import { createHmac, randomBytes } from "node:crypto";
import { test } from "tap";
import type { AgentRecord } from "../../shared/agents/record.js";
import type { InboundEndpointRecord } from "../../shared/inbound/endpoint.js";
import { authenticateUrlKey } from "../../shared/inbound/url-key.js";
import type { TriggerInput, TriggerOutcome } from "../../shared/investigations/trigger.js";
import { createLogger } from "../../shared/log.js";
import { BusUnavailableError } from "../../shared/errors.js";
import { decryptSecret, encryptSecret, hashToken, newInboundKey } from "../../shared/secrets.js";
import { receive, type ReceiptRequest, type ReceiveDeps } from "../../shared/inbound/receive.js";

const NOW_MS = 1_700_000_000_000;
const NOW = NOW_MS / 1000;
const MASTER = randomBytes(32);
const SECRET = "edr-secret";

function endpoint(provider: InboundEndpointRecord["provider"], over: Partial<InboundEndpointRecord> = {}): { key: string; record: InboundEndpointRecord } {
  const issued = newInboundKey();
  return {
    key: issued.key,
    record: {
      id: `iep_01ARZ3NDEKTSV4RRFFQ69G5F${provider === "edr" ? "ED" : provider === "ci" ? "CI" : "GE"}`,
      provider,
      default_scope: { type: "selector", filter: { tags: { env: "prod" } } },
      default_depth: "quick",
      active: true,
      url_key_prefix: issued.prefix,
      url_key_hash: hashToken(issued.key),
      signing_secret_sealed: null,
      created_at: new Date(NOW_MS).toISOString(),
      ...over,
    },
  };
}

function harness(records: InboundEndpointRecord[], outcome: TriggerOutcome = { kind: "queued", investigationId: "inv_1", body: "{}", replayed: false }) {
  const triggered: TriggerInput[] = [];
  const agents: AgentRecord[] = [
    { agent_id: "host-1", hostname: "h1", tags: {}, edr_device_id: "dev-1", status: "online", registered_at: "", last_seen_at: null, snapshot_collected_at: null, heartbeat_interval_ms: 1000 },
    { agent_id: "ci-1", hostname: "runner-1", tags: { role: "ci-runner", repository: "octo-org/octo-repo" }, edr_device_id: null, status: "online", registered_at: "", last_seen_at: null, snapshot_collected_at: null, heartbeat_interval_ms: 1000 },
    { agent_id: "ci-2", hostname: "runner-2", tags: { role: "ci-runner", repository: "octo-org/octo-repo" }, edr_device_id: null, status: "online", registered_at: "", last_seen_at: null, snapshot_collected_at: null, heartbeat_interval_ms: 1000 },
  ];
  const deps: ReceiveDeps = {
    byPrefix: async (prefix) => records.find((r) => r.url_key_prefix === prefix) ?? null,
    openSecret: (sealed) => decryptSecret(MASTER, sealed),
    byEdrDevice: (id) => agents.filter((a) => a.edr_device_id === id),
    byHostname: (hostname) => agents.filter((a) => a.hostname === hostname),
    trigger: async (input) => {
      triggered.push(input);
      return outcome;
    },
    clock: { now: () => NOW_MS },
    log: createLogger("test", "silent"),
  };
  return { deps, triggered };
}

function receipt(provider: string, key: string, raw: string | null, headers: Record<string, string> = {}): ReceiptRequest {
  return { provider, key, headers, body: raw === null ? null : Buffer.from(raw) };
}

function edrSigned(raw: string, secret = SECRET, timestamp = NOW): Record<string, string> {
  return { "x-cs-delivery-timestamp": String(timestamp), "x-cs-primary-signature": createHmac("sha256", secret).update(`${timestamp}.${raw}`).digest("base64") };
}

const ALERT = JSON.stringify({ device_id: "dev-1", description: "Mimikatz ran", composite_id: "cid:1", sha256: "a".repeat(64) });

test("the order of checks: provider, key, size, signature, JSON, active", async (t) => {
  const edr = endpoint("edr", { signing_secret_sealed: encryptSecret(MASTER, SECRET), active: false });
  const generic = endpoint("generic");
  const { deps, triggered } = harness([edr.record, generic.record]);
  const kind = async (r: ReceiptRequest) => (await receive(deps, r)).kind;

  t.equal(await kind(receipt("github", "garbage", null)), "unknown_provider", "provider before everything");
  t.equal(await kind(receipt("edr", "whk_AAAAAAAA_0123456789abcdefghijklmnopqrstuvwxyz", null)), "unauthorized", "unknown key before size");
  t.equal(await kind(receipt("edr", `${edr.key.slice(0, -2)}zz`, ALERT, edrSigned(ALERT))), "unauthorized", "right prefix, wrong secret part");
  t.equal(await kind(receipt("generic", edr.key, ALERT, edrSigned(ALERT))), "unauthorized", "provider mismatch");
  t.equal(await kind(receipt("edr", edr.key, null)), "too_large", "size before signature");
  t.equal(await kind(receipt("edr", edr.key, "not json", { "x-cs-primary-signature": "nope" })), "bad_signature", "signature before JSON");
  t.equal(await kind(receipt("edr", edr.key, ALERT, edrSigned(ALERT, SECRET, NOW - 301))), "bad_signature", "stale timestamp");
  t.equal(await kind(receipt("edr", edr.key, "not json", edrSigned("not json"))), "invalid_json", "JSON before the active flag");
  t.same(await receive(deps, receipt("edr", edr.key, ALERT, edrSigned(ALERT))), { kind: "ignored", reason: "this endpoint is inactive" });
  t.equal(await kind(receipt("generic", generic.key, "{}")), "invalid", "then the provider");
  t.equal(triggered.length, 0, "nothing triggered for any of these");
});

test("an EDR alert triggers on the device's agent with the inbound context and seeds", async (t) => {
  const edr = endpoint("edr", { signing_secret_sealed: encryptSecret(MASTER, SECRET) });
  const { deps, triggered } = harness([edr.record]);
  t.same(await receive(deps, receipt("edr", edr.key, ALERT, edrSigned(ALERT))), { kind: "queued", investigation_id: "inv_1" });
  const input = triggered[0];
  t.same(input?.request.scope, { type: "selector", filter: { agent_ids: ["host-1"] } });
  t.equal(input?.request.depth, "quick");
  t.same(input?.context, { trigger_source: "inbound:edr", trigger_id: "cid:1", curiosity_id: null, inbound_endpoint_id: edr.record.id });
  t.equal(input?.idempotencyKey, undefined, "EDR alerts are not deduplicated");
  t.equal(input?.ownerKeyId, null);
  t.same(input?.seeds, ["a".repeat(64)]);
});

test("the signature is checked as at the request's arrival, the instant its receipt records (a replay checks it as then)", async (t) => {
  const edr = endpoint("edr", { signing_secret_sealed: encryptSecret(MASTER, SECRET) });
  const { deps } = harness([edr.record]);
  // The request came at NOW with a timestamp 299 s old; the receiver reads the clock 2 s later (slow NATS).
  const late = { ...deps, clock: { now: () => NOW_MS + 2_000 } };
  const signed = edrSigned(ALERT, SECRET, NOW - 299);
  t.equal((await receive(late, { ...receipt("edr", edr.key, ALERT, signed), receivedAtMs: NOW_MS })).kind, "queued", "within the window at arrival");
  const replay = { ...receipt("edr", edr.key, ALERT, signed), replayOf: { receivedAtMs: NOW_MS } };
  t.equal((await receive(late, replay)).kind, "queued", "and a replay of its receipt, stamped with that instant, agrees");
});

test("a claimed EDR signature: the trigger is keyed on the claim, and the claim is marked answered before the answer", async (t) => {
  const edr = endpoint("edr", { signing_secret_sealed: encryptSecret(MASTER, SECRET) });
  const { deps, triggered } = harness([edr.record]);
  const steps: string[] = [];
  const trigger = deps.trigger;
  const held = {
    ...deps,
    trigger: async (input: TriggerInput) => (steps.push("trigger"), trigger(input)),
    claimSignature: async () => (steps.push("claim"), { triggerKey: "signature:abc", answered: async () => void steps.push("answered") }),
  };
  t.same(await receive(held, receipt("edr", edr.key, ALERT, edrSigned(ALERT))), { kind: "queued", investigation_id: "inv_1" });
  t.same(steps, ["claim", "trigger", "answered"]);
  t.equal(triggered[0]?.idempotencyKey, "signature:abc", "a retry of this request after a crash answers the same investigation");
  t.equal(triggered[0]?.idempotencyScope, `inbound:${edr.record.id}`);

  const replayed = { ...held, claimSignature: async () => null };
  t.same(await receive(replayed, receipt("edr", edr.key, ALERT, edrSigned(ALERT))), { kind: "replayed_signature" });
  const unrecorded = { ...held, claimSignature: async () => ({ triggerKey: "signature:abc", answered: () => Promise.reject(new Error("TIMEOUT")) }) };
  const failed = await receive(unrecorded, receipt("edr", edr.key, ALERT, edrSigned(ALERT))).catch((err: unknown) => err);
  t.ok(failed instanceof BusUnavailableError && failed.changed === "unknown", "not answered as accepted (503): the sender's retry takes the claim over");
  // Rate limited after the claim: the same bytes again would be a replay, so the answer names the receipt's replay.
  const limited = { ...harness([edr.record], { kind: "rate_limited", retryAfterSeconds: 5 }).deps, claimSignature: held.claimSignature };
  const rl = await receive(limited, receipt("edr", edr.key, ALERT, edrSigned(ALERT)));
  t.match(rl.kind === "not_queued" ? rl.reason : "", /^rate_limited: .*signature is spent.*receipts\/\{receipt_id\}\/replay/, "a spent signature: replay the receipt, not the request");
});

test("generic: idempotency per endpoint, receipt ids otherwise, and every could-not-queue reason", async (t) => {
  const generic = endpoint("generic", { default_scope: null });
  const { deps, triggered } = harness([generic.record]);
  await receive(deps, receipt("generic", generic.key, JSON.stringify({ query: "q", idempotency_key: "k" })));
  t.equal(triggered[0]?.idempotencyKey, "k");
  t.equal(triggered[0]?.idempotencyScope, `inbound:${generic.record.id}`);
  t.equal(triggered[0]?.context.trigger_id, "k");
  t.equal(triggered[0]?.request.scope, undefined, "no default scope: every agent");
  await receive(deps, receipt("generic", generic.key, JSON.stringify({ query: "q" })));
  t.match(triggered[1]?.context.trigger_id, /^rcp_[0-9A-HJKMNP-TV-Z]{26}$/);

  const limited = harness([generic.record], { kind: "rate_limited", retryAfterSeconds: 5 }).deps;
  const rl = await receive(limited, receipt("generic", generic.key, '{"query":"q"}'));
  t.equal(rl.kind, "not_queued");
  t.match(rl.kind === "not_queued" ? rl.reason : "", /^rate_limited/);
  const conflicted = harness([generic.record], { kind: "conflict" }).deps;
  const cf = await receive(conflicted, receipt("generic", generic.key, '{"query":"q","idempotency_key":"k"}'));
  t.match(cf.kind === "not_queued" ? cf.reason : "", /^idempotency_conflict/);
  const broken = { ...harness([generic.record]).deps, trigger: async () => Promise.reject(new Error("TIMEOUT")) };
  const nats = await receive(broken, receipt("generic", generic.key, '{"query":"q"}'));
  t.match(nats.kind === "not_queued" ? nats.reason : "", /^unavailable: the investigation could not be queued/, "NATS trouble on the trigger is a 202 with error");
  const unsure = { ...harness([generic.record]).deps, trigger: async () => Promise.reject(new BusUnavailableError("work publish unconfirmed", { cause: new Error("TIMEOUT"), changed: "unknown" })) };
  const maybe = await receive(unsure, receipt("generic", generic.key, '{"query":"q"}'));
  t.match(maybe.kind === "not_queued" ? maybe.reason : "", /did not confirm .* may have been; a retry may start it a second time/, "an unconfirmed write is not said to have failed");
  const keyed = await receive(unsure, receipt("generic", generic.key, '{"query":"q","idempotency_key":"k"}'));
  t.match(keyed.kind === "not_queued" ? keyed.reason : "", /a retry with the same idempotency_key is safe/);
});

test("ci: a workflow_job's runner_name resolves to that runner's agent through the directory", async (t) => {
  const ci = endpoint("ci");
  const { deps, triggered } = harness([ci.record]);
  const job = (runner: string) =>
    JSON.stringify({ action: "completed", repository: { full_name: "octo-org/octo-repo" }, workflow_job: { name: "build", runner_name: runner } });
  t.same(await receive(deps, receipt("ci", ci.key, job("runner-1"), { "x-github-event": "workflow_job", "x-github-delivery": "d-1" })), { kind: "queued", investigation_id: "inv_1" });
  t.same(triggered[0]?.request.scope, { type: "selector", filter: { agent_ids: ["ci-1"] } }, "not a hostname tag: the agent whose hostname field matches");
  t.notMatch(triggered[0]?.request.query ?? "", /No CI runner agent/);

  await receive(deps, receipt("ci", ci.key, job("GitHub Actions 5"), { "x-github-event": "workflow_job" }));
  t.same(triggered[1]?.request.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: "octo-org/octo-repo" } } }, "unknown runner: the repository's runners");
  t.match(triggered[1]?.request.query ?? "", /^No CI runner agent of octo-org\/octo-repo has hostname "GitHub Actions 5"/);
});

test("ci: a GitHub webhook on its default content type (a form whose payload field is the JSON) is read, its signature over the form", async (t) => {
  const ci = endpoint("ci", { signing_secret_sealed: encryptSecret(MASTER, SECRET) });
  const { deps, triggered } = harness([ci.record]);
  const run = JSON.stringify({ action: "completed", repository: { full_name: "octo-org/octo-repo" }, workflow_run: { id: 7, name: "release", conclusion: "failure" } });
  const form = new URLSearchParams({ payload: run }).toString();
  const signed = (raw: string) => ({
    "content-type": "application/x-www-form-urlencoded",
    "x-github-event": "workflow_run",
    "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`,
  });
  t.same(await receive(deps, receipt("ci", ci.key, form, signed(form))), { kind: "queued", investigation_id: "inv_1" });
  t.equal(triggered.length, 1);
  t.equal((await receive(deps, receipt("ci", ci.key, form, { ...signed(form), "x-hub-signature-256": signed(run)["x-hub-signature-256"] }))).kind, "bad_signature", "the signature is the form's bytes'");
  t.equal((await receive(deps, receipt("ci", ci.key, "other=1", signed("other=1")))).kind, "invalid_json", "a form without payload");
  const generic = endpoint("generic");
  const g = harness([generic.record]);
  t.equal((await receive(g.deps, receipt("generic", generic.key, new URLSearchParams({ payload: "{}" }).toString(), { "content-type": "application/x-www-form-urlencoded" }))).kind, "invalid_json", "only ci reads forms");
});

test("generic: a scope or agent_ids outside the shared Scope schema is invalid with details, nothing triggered", async (t) => {
  const generic = endpoint("generic");
  const { deps, triggered } = harness([generic.record]);
  const huge = JSON.stringify({ query: "q", scope: { type: "selector", filter: { tags: { k: "v".repeat(600_000) } } } });
  const outcome = await receive(deps, receipt("generic", generic.key, huge));
  t.equal(outcome.kind, "invalid");
  if (outcome.kind === "invalid") {
    t.equal(outcome.path, "/scope/filter/tags/k");
    t.same(outcome.details, [{ path: "/scope/filter/tags/k", message: "must not have more than 256 characters" }]);
  }
  const many = await receive(deps, receipt("generic", generic.key, JSON.stringify({ query: "q", agent_ids: Array.from({ length: 1001 }, (_, i) => `a${i}`) })));
  t.match(many, { kind: "invalid", path: "/agent_ids", details: [{ path: "/agent_ids" }] });
  t.equal(triggered.length, 0);
});

test("authenticateUrlKey: constant-time hash comparison behind a prefix lookup", async (t) => {
  const ep = endpoint("ci");
  const lookups: string[] = [];
  const byPrefix = async (prefix: string) => {
    lookups.push(prefix);
    return prefix === ep.record.url_key_prefix ? ep.record : null;
  };
  t.equal(await authenticateUrlKey(ep.key, byPrefix), ep.record);
  t.equal(await authenticateUrlKey(`${ep.key}x`, byPrefix), null, "a longer key");
  t.equal(await authenticateUrlKey(ep.key.replace(/.$/, (c) => (c === "a" ? "b" : "a")), byPrefix), null, "last character changed");
  const before = lookups.length;
  for (const bad of ["", "whk_short_x", `inq_${ep.key.slice(4)}`, `${ep.record.url_key_prefix}_tooShort`, `${ep.key}/..`]) {
    t.equal(await authenticateUrlKey(bad, byPrefix), null, JSON.stringify(bad));
  }
  t.equal(lookups.length, before, "malformed keys are refused without a lookup");
});
