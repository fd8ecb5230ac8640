// The whole inbound path per provider (docs/api.md#inbound): real GitHub payloads signed with @octokit/webhooks-methods,
// CrowdStrike-style EDR alerts and generic posts, over real HTTP to the receiver; the investigation they
// trigger is then read back through the investigations API (context, scope, query, depth).
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { test } from "tap";
import { createEndpoint, deliver, edrHeaders, githubHeaders, investigation, investigationIds, type CreatedEndpoint } from "../helpers/inbound.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";

interface WebhookDefinition {
  name: string;
  examples: Array<Record<string, unknown>>;
}
const definitions = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookDefinition[];
const examples = (name: string) => definitions.find((d) => d.name === name)?.examples ?? [];
const example = (name: string, pick: (e: Record<string, unknown>) => boolean) => {
  const found = examples(name).find(pick);
  if (!found) throw new Error(`no matching ${name} example`);
  return found;
};

const CI_SECRET = "It's a Secret to Everybody";
const EDR_SECRET = "edr-shared-secret";
const DEVICE = "4c1f2e8a9b0d4e6f8a1b2c3d4e5f6a7b";
const PROD = { type: "selector", filter: { tags: { env: "prod" } } };

let stack: Stack;
let ci: CreatedEndpoint;
let edr: CreatedEndpoint;
let generic: CreatedEndpoint;

test("setup", async () => {
  stack = await startStack({
    // The runner hosts the agent registry; startStack returns once every fleet agent is registered.
    services: ["gateway", "runner", "agent"],
    fleet: {
      agents: [
        { agent_id: "edr-host-1", hostname: "ws-alice", tags: { env: "prod" }, edr_device_id: DEVICE },
        { agent_id: "ci-runner-1", hostname: "runner-1", tags: { role: "ci-runner", repository: "octo-org/octo-repo" } },
        { agent_id: "ci-runner-2", hostname: "runner-2", tags: { role: "ci-runner", repository: "octo-org/octo-repo" } },
        { agent_id: "web-1", hostname: "web-1", tags: { env: "prod" } },
      ],
    },
  });
  const listed = await api(stack.baseUrl, "GET", "/v1/agents", { key: stack.key });
  if (listed.json?.agents?.length !== 4) throw new Error(`startStack returned before the fleet was registered: ${listed.text}`);
  ci = await createEndpoint(stack, { provider: "ci", provider_signing_secret: CI_SECRET, default_scope: PROD, default_depth: "deep" });
  edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET, default_scope: PROD, default_depth: "quick" });
  generic = await createEndpoint(stack, { provider: "generic", default_scope: PROD });
});

test("ci: a signed workflow_run (completed) investigates the repository's CI runners", async (t) => {
  const payload = example("workflow_run", (e) => e.action === "completed" && (e.repository as { full_name: string }).full_name === "octo-org/octo-repo");
  const raw = JSON.stringify(payload);
  const delivery = randomUUID();
  const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, "workflow_run", delivery));
  t.equal(r.status, 202, r.text);
  t.same(Object.keys(r.json), ["investigation_id"]);
  const inv = await investigation(stack, r.json.investigation_id);
  t.same(inv.context, { trigger_source: "inbound:ci", trigger_id: delivery, curiosity_id: null, inbound_endpoint_id: ci.id });
  t.same(inv.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: "octo-org/octo-repo" } } });
  t.equal(inv.depth, "deep", "the endpoint's default depth");
  t.ok(["queued", "running", "completed"].includes(inv.status), inv.status);
  t.match(inv.query, /octo-org\/octo-repo/);
  t.match(inv.query, /completed/);
  const audited = await investigationIds(stack, "&trigger_source=inbound:ci");
  t.ok(audited.includes(inv.investigation_id), "audited through the list's trigger_source filter");
});

test("ci: workflow_job, and security_advisory on the endpoint's default scope", async (t) => {
  const job = example("workflow_job", (e) => e.action === "completed");
  const rawJob = JSON.stringify(job);
  const j = await deliver(stack, ci.path, rawJob, await githubHeaders(CI_SECRET, rawJob, "workflow_job", randomUUID()));
  t.equal(j.status, 202, j.text);
  const jobInv = await investigation(stack, j.json.investigation_id);
  const repo = (job.repository as { full_name: string }).full_name;
  const runner = (job.workflow_job as { runner_name: string }).runner_name;
  t.same(jobInv.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: repo } } }, "no agent has the runner's hostname: the repository's runners");
  t.ok(jobInv.query.startsWith(`No CI runner agent of ${repo} has hostname "${runner}"`), jobInv.query);

  const advisory = examples("security_advisory")[0];
  const rawAdvisory = JSON.stringify(advisory);
  const a = await deliver(stack, ci.path, rawAdvisory, await githubHeaders(CI_SECRET, rawAdvisory, "security_advisory", randomUUID()));
  t.equal(a.status, 202, a.text);
  const advInv = await investigation(stack, a.json.investigation_id);
  t.same(advInv.scope, PROD, "no repository: the default scope");
  t.match(advInv.query, /advisory/i);
});

test("ci: ping and unrecognised events are 202 ignored; nothing queued", async (t) => {
  const before = (await investigationIds(stack)).length;
  for (const [event, payload] of [
    ["ping", examples("ping")[0]],
    ["workflow_run", example("workflow_run", (e) => e.action === "requested")],
    ["star", examples("star")[0]],
  ] as const) {
    const raw = JSON.stringify(payload);
    const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, event, randomUUID()));
    t.equal(r.status, 202, event);
    t.equal(r.json.ignored, true, event);
    t.type(r.json.reason, "string");
  }
  t.equal((await investigationIds(stack)).length, before);
});

test("ci: a repository.full_name longer than a tag value (256) is 400 validation_failed, nothing queued; one of 256 queues a valid trigger", async (t) => {
  const payload = example("workflow_run", (e) => e.action === "completed");
  const withName = (full_name: string) => JSON.stringify({ ...payload, repository: { ...(payload.repository as object), full_name } });
  const before = (await investigationIds(stack)).length;
  for (const length of [1950, 257]) {
    const raw = withName(`octo-org/${"r".repeat(length - 9)}`);
    const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, "workflow_run", randomUUID()));
    t.equal(r.status, 400, `${length} characters: ${r.text.slice(0, 200)}`);
    t.equal(r.json?.error?.code, "validation_failed");
    t.ok((r.json?.error?.details as Array<{ path: string }> | undefined)?.some((d) => d.path === "/repository/full_name"), "names /repository/full_name");
  }
  t.equal((await investigationIds(stack)).length, before, "nothing queued");

  for (const event of ["workflow_run", "repository_advisory"]) {
    const name = `octo-org/${"r".repeat(256 - 9)}`;
    const base = event === "workflow_run" ? payload : { action: "published", repository: {}, repository_advisory: { ghsa_id: "GHSA-xxxx-xxxx-xxxx", summary: "s" } };
    const raw = JSON.stringify({ ...base, repository: { ...(base.repository as object), full_name: name } });
    const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, event, randomUUID()));
    t.equal(r.status, 202, r.text);
    const inv = await investigation(stack, r.json.investigation_id);
    t.ok(inv.query.length <= 2000, `${event}: query within 2000 characters (${inv.query.length})`);
    t.same(inv.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: name } } });
  }
});

test("ci: a bad, missing or foreign signature is 401 and nothing is queued", async (t) => {
  const before = (await investigationIds(stack)).length;
  const raw = JSON.stringify(example("workflow_run", (e) => e.action === "completed"));
  const wrong = await deliver(stack, ci.path, raw, await githubHeaders("not the secret", raw, "workflow_run", randomUUID()));
  t.equal(wrong.status, 401);
  t.equal(wrong.json.error.code, "unauthorized");
  const headers = await githubHeaders(CI_SECRET, raw, "workflow_run", randomUUID());
  t.equal((await deliver(stack, ci.path, `${raw} `, headers)).status, 401, "body changed after signing");
  const { "x-hub-signature-256": _dropped, ...unsigned } = headers;
  t.equal((await deliver(stack, ci.path, raw, unsigned)).status, 401, "no signature");
  t.equal((await investigationIds(stack)).length, before);
});

test("edr: an alert for a known device investigates that device's agent", async (t) => {
  const alert = {
    device_id: DEVICE,
    description: "A process launched an encoded PowerShell command",
    severity: 4,
    severity_name: "High",
    tactic: "Execution",
    technique: "T1059.001",
    cmdline: "powershell.exe -nop -enc SQBFAFgA",
    composite_id: `cid:ind:${randomUUID()}`,
  };
  const raw = JSON.stringify(alert);
  const r = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw));
  t.equal(r.status, 202, r.text);
  const inv = await investigation(stack, r.json.investigation_id);
  t.same(inv.context, { trigger_source: "inbound:edr", trigger_id: alert.composite_id, curiosity_id: null, inbound_endpoint_id: edr.id });
  t.same(inv.scope, { type: "selector", filter: { agent_ids: ["edr-host-1"] } });
  t.equal(inv.depth, "quick");
  t.match(inv.query, /encoded PowerShell/);
  t.notMatch(inv.query, /No agent is registered/);
});

test("edr: an unknown device falls back to the default scope and says so", async (t) => {
  const raw = JSON.stringify({ device: { device_id: "ffffffffffffffffffffffffffffffff" }, description: "Credential dumping tool detected" });
  const r = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw));
  t.equal(r.status, 202, r.text);
  const inv = await investigation(stack, r.json.investigation_id);
  t.same(inv.scope, PROD);
  t.match(inv.query, /No agent is registered with EDR device id ffffffffffffffffffffffffffffffff/);
  t.match(inv.query, /Credential dumping/);
  t.match(inv.context.trigger_id, /^edr_[0-9a-f]{32}$/, "no composite_id: a hash of the body");
});

test("edr: a stale timestamp or a bad signature is 401; a non-alert is ignored", async (t) => {
  const before = (await investigationIds(stack)).length;
  const raw = JSON.stringify({ device_id: DEVICE, description: "stale" });
  const stale = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw, Math.floor(Date.now() / 1000) - 600));
  t.equal(stale.status, 401, "timestamp 10 minutes old");
  t.equal((await deliver(stack, edr.path, raw, edrHeaders("other", raw))).status, 401, "wrong secret");
  t.equal((await deliver(stack, edr.path, raw)).status, 401, "unsigned");
  const other = JSON.stringify({ event_type: "AuthActivityAuditEvent", user: "alice" });
  const ignored = await deliver(stack, edr.path, other, edrHeaders(EDR_SECRET, other));
  t.equal(ignored.status, 202);
  t.equal(ignored.json.ignored, true);
  t.equal((await investigationIds(stack)).length, before);
});

test("generic: query, agent_ids and depth from the body; idempotency_key dedupes per endpoint", async (t) => {
  const r = await deliver(stack, generic.path, JSON.stringify({ query: "Is web-1 beaconing?", agent_ids: ["web-1"], depth: "deep", extra: "ignored" }));
  t.equal(r.status, 202, r.text);
  const inv = await investigation(stack, r.json.investigation_id);
  t.equal(inv.query, "Is web-1 beaconing?");
  t.same(inv.scope, { type: "selector", filter: { agent_ids: ["web-1"] } });
  t.equal(inv.depth, "deep");
  t.equal(inv.context.trigger_source, "inbound:generic");
  t.match(inv.context.trigger_id, /^rcp_[0-9A-HJKMNP-TV-Z]{26}$/, "a receipt id without idempotency_key");
  t.equal(inv.context.inbound_endpoint_id, generic.id);

  const plain = await deliver(stack, generic.path, JSON.stringify({ query: "default scope please" }));
  t.same((await investigation(stack, plain.json.investigation_id)).scope, PROD, "the endpoint's default scope");

  const body = JSON.stringify({ query: "once only", idempotency_key: "ticket-42" });
  const first = await deliver(stack, generic.path, body);
  const again = await deliver(stack, generic.path, body);
  t.equal(first.status, 202);
  t.equal(again.json.investigation_id, first.json.investigation_id, "the same investigation");
  t.equal((await investigation(stack, first.json.investigation_id)).context.trigger_id, "ticket-42");
  const conflict = await deliver(stack, generic.path, JSON.stringify({ query: "something else", idempotency_key: "ticket-42" }));
  t.equal(conflict.status, 202);
  t.match(conflict.json.error, /^idempotency_conflict/);
  t.notOk("investigation_id" in conflict.json);

  const other = await createEndpoint(stack, { provider: "generic" });
  const elsewhere = await deliver(stack, other.path, body);
  t.not(elsewhere.json.investigation_id, first.json.investigation_id, "keys are per endpoint");
});

test("generic with a signing secret: unsigned or wrongly signed posts are 401 and queue nothing; signed ones are taken", async (t) => {
  const signed = await createEndpoint(stack, { provider: "generic", provider_signing_secret: "generic-secret" });
  const raw = JSON.stringify({ query: "signed generic alert", idempotency_key: `sig-${randomUUID()}` });
  t.equal((await deliver(stack, signed.path, raw)).status, 401, "unsigned");
  const wrong = await githubHeaders("not-the-secret", raw, "generic", randomUUID());
  t.equal((await deliver(stack, signed.path, raw, { "x-hub-signature-256": wrong["x-hub-signature-256"] as string })).status, 401, "another secret");
  const right = await githubHeaders("generic-secret", raw, "generic", randomUUID());
  const r = await deliver(stack, signed.path, raw, { "x-hub-signature-256": right["x-hub-signature-256"] as string });
  t.equal(r.status, 202, r.text);
  t.equal((await investigation(stack, r.json.investigation_id)).query, "signed generic alert");
});

test("generic: a scope or agent_ids outside the shared Scope schema is 400 validation_failed with details; nothing queued", async (t) => {
  const before = (await investigationIds(stack)).length;
  const huge = { type: "selector", filter: { tags: { "big": "v".repeat(600_000) } } };
  const r = await deliver(stack, generic.path, JSON.stringify({ query: "q", scope: huge }));
  t.equal(r.status, 400, r.text.slice(0, 300));
  t.equal(r.json.error.code, "validation_failed");
  t.same(r.json.error.details, [{ path: "/scope/filter/tags/big", message: "must not have more than 256 characters" }]);
  t.ok(r.text.length < 2_000, "the answer does not echo the scope");
  for (const [body, path] of [
    [{ query: "q", scope: { type: "selector", filter: { tags: { "bad\u001bkey": "v" } } } }, "/scope/filter/tags/bad\u001bkey"],
    [{ query: "q", scope: { type: "selector", filter: { tags: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) } } }, "/scope/filter/tags"],
    [{ query: "q", agent_ids: Array.from({ length: 1001 }, (_, i) => `a${i}`) }, "/agent_ids"],
    [{ query: "q", agent_ids: ["x".repeat(129)] }, "/agent_ids/0"],
  ] as const) {
    const bad = await deliver(stack, generic.path, JSON.stringify(body));
    t.equal(bad.status, 400, path);
    t.equal(bad.json.error.details?.[0]?.path, path, bad.text.slice(0, 300));
  }
  t.equal((await investigationIds(stack)).length, before);
});

test("inbound receipts are not outbound deliveries", async (t) => {
  const r = await api(stack.baseUrl, "GET", "/v1/webhooks/deliveries?limit=200", { key: stack.key });
  t.equal(r.status, 200);
  t.same(r.json.deliveries, [], "none of the receipts above shows up (there are no subscriptions either)");
});

test("ci: a workflow_job whose runner_name is an agent's hostname targets exactly that agent", async (t) => {
  const job = example("workflow_job", (e) => e.action === "completed") as { workflow_job: Record<string, unknown> };
  const payload = { ...job, repository: { full_name: "octo-org/octo-repo" }, workflow_job: { ...job.workflow_job, runner_name: "runner-1" } };
  const raw = JSON.stringify(payload);
  const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, "workflow_job", randomUUID()));
  t.equal(r.status, 202, r.text);
  const created = await investigation(stack, r.json.investigation_id);
  t.same(created.scope, { type: "selector", filter: { agent_ids: ["ci-runner-1"] } }, "runner-1 of the two octo-org/octo-repo runners");
  t.notMatch(created.query, /No CI runner agent/);
  t.match(created.query, /runner "runner-1"/);
  const dispatched = await eventually(async () => {
    const inv = await investigation(stack, r.json.investigation_id);
    return inv.progress !== null ? inv : undefined;
  }, 30_000);
  t.equal(dispatched.progress.agents_targeted, 1, "one agent, not zero (a hostname tag) nor both runners");
});

test("teardown", async () => {
  await stack.stop();
});
