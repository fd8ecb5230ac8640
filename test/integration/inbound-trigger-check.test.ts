// What an inbound event triggers is an investigation the API itself would accept (docs/api.md#inbound): the
// receiver's own choices (a device or runner resolved through the agent directory) never make a record that
// POST /v1/investigations would refuse, and what the API accepts a generic post may ask for too. Real HTTP to the
// gateway's receiver; real agents registered from a fleet.
import { randomUUID } from "node:crypto";
import { test } from "tap";
import { checker } from "../../shared/validate.js";
import { InvestigationRequest } from "../../shared/schemas/investigation.js";
import { createEndpoint, deliver, edrHeaders, githubHeaders, investigation, type CreatedEndpoint } from "../helpers/inbound.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

const EDR_SECRET = "edr-secret";
const CI_SECRET = "ci-secret";
const DEVICE = "crowded-device";
const RUNNER = "crowded-runner";
const REPO = "octo-org/crowded";
/** One more agent than a scope may name (MAX_SCOPE_AGENT_IDS). */
const CLAIMANTS = 1001;
const PROD = { type: "selector", filter: { tags: { env: "prod" } } };
const apiRequest = checker(InvestigationRequest);

let stack: Stack;
let edr: CreatedEndpoint;
let ci: CreatedEndpoint;
let generic: CreatedEndpoint;

test("setup", async () => {
  const agents = Array.from({ length: CLAIMANTS }, (_, i) => ({
    agent_id: `claimant-${String(i).padStart(4, "0")}`,
    hostname: RUNNER,
    tags: { role: "ci-runner", repository: REPO },
    edr_device_id: DEVICE,
    online: false,
  }));
  stack = await startStack({ services: ["gateway", "runner", "agent"], fleet: { agents } });
  edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET, default_scope: PROD });
  ci = await createEndpoint(stack, { provider: "ci", provider_signing_secret: CI_SECRET });
  generic = await createEndpoint(stack, { provider: "generic" });
});

/** The stored investigation as a trigger request: what POST /v1/investigations would have been sent to make it. */
async function asApiRequest(id: string): Promise<{ inv: any; problems: unknown }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const inv = await investigation(stack, id);
  const checked = apiRequest.check({ query: inv.query, depth: inv.depth, mode: inv.mode, scope: inv.scope });
  return { inv, problems: checked.ok ? null : checked.details };
}

test(`edr: a device id claimed by ${CLAIMANTS} agents (more than a scope names) falls back to the default scope`, async (t) => {
  const raw = JSON.stringify({ device_id: DEVICE, description: "Credential dumping" });
  const r = await deliver(stack, edr.path, raw, edrHeaders(EDR_SECRET, raw));
  t.equal(r.status, 202, r.text.slice(0, 300));
  t.type(r.json?.investigation_id, "string", "queued");
  const { inv, problems } = await asApiRequest(r.json.investigation_id);
  t.equal(problems, null, "the API would accept this investigation's request");
  t.same(inv.scope, PROD, "the endpoint's default scope");
  t.match(inv.query, new RegExp(`^${CLAIMANTS} agents claim EDR device id ${DEVICE}`), "the question says why");
});

test(`ci: a runner hostname shared by ${CLAIMANTS} of the repository's runners falls back to all its runners`, async (t) => {
  const raw = JSON.stringify({ action: "completed", repository: { full_name: REPO }, workflow_job: { name: "build", runner_name: RUNNER } });
  const r = await deliver(stack, ci.path, raw, await githubHeaders(CI_SECRET, raw, "workflow_job", randomUUID()));
  t.equal(r.status, 202, r.text.slice(0, 300));
  t.type(r.json?.investigation_id, "string", "queued");
  const { inv, problems } = await asApiRequest(r.json.investigation_id);
  t.equal(problems, null, "the API would accept this investigation's request");
  t.same(inv.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: REPO } } }, "the repository's runners");
  t.match(inv.query, new RegExp(`^${CLAIMANTS} CI runner agents of ${REPO} have hostname "${RUNNER}"`), "the question says why");
});

test("generic: the question is held to the API's own limit (2,000 characters, counted as code points as the API does), no other", async (t) => {
  // 1,500 emoji are 3,000 UTF-16 code units: within the API's 2,000 characters, over a limit counted in code units.
  for (const [query, status] of [["\u{1F50D}".repeat(1500), 202], ["\u{1F50D}".repeat(2001), 400], ["q".repeat(2001), 400]] as const) {
    const viaApi = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query } });
    const viaInbound = await deliver(stack, generic.path, JSON.stringify({ query }));
    t.equal(viaApi.status, status, `the API: ${viaApi.text.slice(0, 200)}`);
    t.equal(viaInbound.status, status, `the generic receiver answers as the API does: ${viaInbound.text.slice(0, 200)}`);
    if (status === 400) {
      t.equal(viaInbound.json?.error?.code, "validation_failed");
      t.same(viaInbound.json?.error?.details, viaApi.json?.error?.details, "with the API's details");
    } else {
      const { inv, problems } = await asApiRequest(viaInbound.json.investigation_id);
      t.equal(problems, null);
      t.equal(inv.query, query, "the question as sent");
    }
  }
});

test("teardown", async () => {
  await stack.stop();
});
