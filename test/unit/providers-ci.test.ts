import { createRequire } from "node:module";
import { sign } from "@octokit/webhooks-methods";
import { test, type Test } from "tap";
import { ciProvider } from "../../shared/inbound/providers/ci.js";
import type { InboundEndpointView, InboundRequest, Interpretation, Scope } from "../../shared/inbound/providers/types.js";

// Real GitHub payloads contributed to octokit/webhooks. The package's main entry is a JSON array.
interface WebhookDefinition {
  name: string;
  examples: Array<Record<string, unknown>>;
}
const definitions = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookDefinition[];

function examples(name: string): Array<Record<string, unknown>> {
  const found = definitions.find((d) => d.name === name);
  if (found === undefined || found.examples.length === 0) throw new Error(`no ${name} examples`);
  return found.examples;
}

const SECRET = "ci-signing-secret";
const DEFAULT_SCOPE: Scope = { type: "selector", filter: { tags: { env: "prod" } } };
const endpoint = (default_scope: Scope | null = null): InboundEndpointView => ({
  id: "iep_01",
  provider: "ci",
  default_scope,
  default_depth: "deep",
});

async function githubDelivery(event: string, payload: unknown, delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958") {
  const raw = JSON.stringify(payload);
  const req: InboundRequest = {
    headers: {
      "x-github-event": event,
      "x-github-delivery": delivery,
      "x-hub-signature-256": await sign(SECRET, raw),
      "content-type": "application/json",
    },
    rawBody: Buffer.from(raw),
    nowSeconds: 1_700_000_000,
  };
  return { req, body: JSON.parse(raw) as unknown };
}

function asTrigger(t: Test, result: Interpretation) {
  if (result.kind !== "trigger") {
    t.fail(`expected a trigger, got ${JSON.stringify(result)}`);
    throw new Error("not a trigger");
  }
  return result;
}

const repoOf = (payload: Record<string, unknown>): string => {
  const repository = payload["repository"] as { full_name: string };
  return repository.full_name;
};

test("signatures made by @octokit/webhooks-methods verify; a wrong secret or tampered body does not", async (t) => {
  for (const name of ["workflow_run", "workflow_job", "security_advisory", "ping"]) {
    for (const payload of examples(name)) {
      const { req } = await githubDelivery(name, payload);
      t.equal(ciProvider.verify(req, SECRET), "ok", `${name} signed by octokit`);
      t.equal(ciProvider.verify(req, "wrong-secret"), "bad_signature", `${name} wrong secret`);
      const tampered = { ...req, rawBody: Buffer.concat([new Uint8Array(req.rawBody), new Uint8Array(Buffer.from(" "))]) };
      t.equal(ciProvider.verify(tampered, SECRET), "bad_signature", `${name} tampered body`);
    }
  }
  const { req } = await githubDelivery("ping", examples("ping")[0]);
  const { "x-hub-signature-256": _dropped, ...withoutSignature } = req.headers;
  t.equal(ciProvider.verify({ ...req, headers: withoutSignature }, SECRET), "bad_signature", "missing header");
  t.equal(ciProvider.verify({ ...req, headers: { ...req.headers, "x-hub-signature-256": "sha256=nope" } }, SECRET), "bad_signature");
});

test("workflow_run completed investigates the repository's CI runners", async (t) => {
  const completed = examples("workflow_run").filter((p) => p["action"] === "completed");
  t.ok(completed.length >= 2, "the package has completed runs");
  for (const payload of completed) {
    const { req, body } = await githubDelivery("workflow_run", payload);
    const result = asTrigger(t, ciProvider.interpret(req, body, endpoint(DEFAULT_SCOPE), "rcp_1"));
    const repo = repoOf(payload);
    const run = payload["workflow_run"] as { name: string; head_sha: string; head_branch: string; conclusion: string | null };
    t.same(result.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: repo } } });
    t.same(result.target, { kind: "scope" });
    t.equal(result.depth, "deep", "endpoint default depth");
    t.equal(result.trigger_id, "72d3162e-cc78-11e3-81ab-4c9367dc0958", "X-GitHub-Delivery");
    const workflowName = run.name || (payload["workflow"] as { name: string }).name; // some runs have name ""
    t.ok(result.query.includes(`workflow "${workflowName}"`), "names the workflow");
    t.ok(result.query.includes(run.head_sha), "names the commit");
    t.ok(result.query.includes(`branch ${run.head_branch}`), "names the branch");
    if (run.conclusion !== null) t.ok(result.query.includes(`conclusion ${run.conclusion}`), "states the conclusion");
    t.ok(result.query.endsWith(`Did anything unexpected run on the CI runners of ${repo}?`), result.query);
  }
});

test("workflow_run with another action is ignored, naming the event", async (t) => {
  const others = examples("workflow_run").filter((p) => p["action"] !== "completed");
  t.ok(others.length >= 1);
  for (const payload of others) {
    const { req, body } = await githubDelivery("workflow_run", payload);
    const result = ciProvider.interpret(req, body, endpoint(), "rcp_1");
    t.equal(result.kind, "ignored");
    t.match(result.kind === "ignored" ? result.reason : "", /workflow_run.*requested/);
  }
});

test("workflow_job with runner_name targets that runner among the repository's CI runners", async (t) => {
  let narrowed = 0;
  let unnarrowed = 0;
  for (const payload of examples("workflow_job")) {
    const { req, body } = await githubDelivery("workflow_job", payload);
    const result = asTrigger(t, ciProvider.interpret(req, body, endpoint(), "rcp_1"));
    const repo = repoOf(payload);
    const job = payload["workflow_job"] as { name: string; runner_name: string | null };
    // The scope is always the repository's CI runners (no `hostname` tag: agents have a hostname field, not a
    // tag); a named runner is a target the receiver resolves through the agent directory within that scope.
    t.same(result.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: repo } } });
    if (job.runner_name) {
      narrowed++;
      t.same(result.target, { kind: "ci_runner", hostname: job.runner_name, repository: repo });
      t.ok(result.query.includes(`runner "${job.runner_name}"`), "names the runner");
    } else {
      unnarrowed++;
      t.same(result.target, { kind: "scope" });
    }
    t.ok(result.query.includes(`"${job.name}"`), "names the job");
    t.match(result.query, new RegExp(`Did anything unexpected run on .*${repo.replace("/", "\\/")}\\?$`));
  }
  t.ok(narrowed > 0 && unnarrowed > 0, "the examples cover both cases");
});

// @octokit/webhooks-examples 7.6.1 has no repository_advisory example, so this one is assembled from the package's
// own pieces in GitHub's documented shape: the repository of a workflow_run example and the advisory fields of a
// security_advisory example (repository advisories carry `cve_id` instead of `identifiers`).
function repositoryAdvisoryPayload(): Record<string, unknown> {
  const source = examples("security_advisory")[0] as { security_advisory: Record<string, unknown> };
  const repository = examples("workflow_run")[1]?.["repository"];
  return {
    action: "published",
    repository_advisory: {
      ghsa_id: "GHSA-rf4j-j272-fj86",
      cve_id: "CVE-2018-6188",
      summary: source.security_advisory["summary"],
      description: source.security_advisory["description"],
      severity: "high",
      state: "published",
      vulnerabilities: source.security_advisory["vulnerabilities"],
    },
    repository,
  };
}

test("repository_advisory investigates the repository's CI runners and describes the advisory", async (t) => {
  const payload = repositoryAdvisoryPayload();
  const { req, body } = await githubDelivery("repository_advisory", payload);
  t.equal(ciProvider.verify(req, SECRET), "ok");
  const result = asTrigger(t, ciProvider.interpret(req, body, endpoint(DEFAULT_SCOPE), "rcp_1"));
  t.same(result.scope, { type: "selector", filter: { tags: { role: "ci-runner", repository: "octo-org/octo-repo" } } });
  t.match(result.query, /GHSA-rf4j-j272-fj86/);
  t.match(result.query, /CVE-2018-6188/);
  t.match(result.query, /Severity: high\./);
  t.match(result.query, /pip django \(>= 2\.0\.0, < 2\.0\.2; >= 1\.11\.8, < 1\.11\.10\)/, "packages grouped with their ranges");
  t.match(result.query, /CI runners of octo-org\/octo-repo/);
  t.ok(result.query.endsWith("?"));
});

test("security_advisory (no repository) investigates the endpoint's default scope", async (t) => {
  for (const payload of examples("security_advisory")) {
    const { req, body } = await githubDelivery("security_advisory", payload);
    const withDefault = asTrigger(t, ciProvider.interpret(req, body, endpoint(DEFAULT_SCOPE), "rcp_1"));
    t.same(withDefault.scope, DEFAULT_SCOPE);
    const everyAgent = asTrigger(t, ciProvider.interpret(req, body, endpoint(null), "rcp_1"));
    t.equal(everyAgent.scope, null, "no default = every agent");
    const advisory = payload["security_advisory"] as { ghsa_id: string; severity: string };
    t.ok(withDefault.query.includes(advisory.ghsa_id), "names the GHSA id");
    t.ok(withDefault.query.includes(`Severity: ${advisory.severity}.`), "states the severity");
    t.match(withDefault.query, /Affected packages: (npm|pip|maven|rubygems|nuget|composer|go|rust) /);
    t.ok(withDefault.query.endsWith("?"));
  }
});

test("ping and every other event are ignored with a reason naming the event", async (t) => {
  for (const payload of examples("ping")) {
    const { req, body } = await githubDelivery("ping", payload);
    const result = ciProvider.interpret(req, body, endpoint(), "rcp_1");
    t.same(result.kind, "ignored");
    t.match(result.kind === "ignored" ? result.reason : "", /ping/);
  }
  for (const name of ["push", "workflow_dispatch", "repository_vulnerability_alert", "check_run", "issues"]) {
    const payload = definitions.find((d) => d.name === name)?.examples[0] ?? {};
    const { req, body } = await githubDelivery(name, payload);
    const result = ciProvider.interpret(req, body, endpoint(), "rcp_1");
    t.equal(result.kind, "ignored", name);
    t.match(result.kind === "ignored" ? result.reason : "", name);
  }
  const { req, body } = await githubDelivery("ping", examples("ping")[0]);
  const { "x-github-event": _event, ...noEvent } = req.headers;
  const result = ciProvider.interpret({ ...req, headers: noEvent }, body, endpoint(), "rcp_1");
  t.equal(result.kind, "ignored", "no X-GitHub-Event header");
  t.match(result.kind === "ignored" ? result.reason : "", /X-GitHub-Event/);
  t.equal(ciProvider.interpret({ ...req, headers: { "x-github-event": "constructor" } }, body, endpoint(), "r").kind, "ignored", "prototype names are not events");
});

test("trigger_id falls back to the receipt id without X-GitHub-Delivery", async (t) => {
  const payload = examples("workflow_run").find((p) => p["action"] === "completed");
  const { req, body } = await githubDelivery("workflow_run", payload);
  const { "x-github-delivery": _delivery, ...headers } = req.headers;
  const result = asTrigger(t, ciProvider.interpret({ ...req, headers }, body, endpoint(), "rcp_01HX"));
  t.equal(result.trigger_id, "rcp_01HX");
});

test("a recognised event without what it needs is invalid", async (t) => {
  const run = examples("workflow_run").find((p) => p["action"] === "completed") ?? {};
  const { repository: _repository, ...noRepository } = run;
  for (const [event, payload] of [
    ["workflow_run", noRepository],
    ["workflow_job", { action: "queued", workflow_job: {} }],
    ["repository_advisory", { action: "published", repository: run["repository"] }],
    ["security_advisory", { action: "published" }],
    ["workflow_job", ["not", "an", "object"]],
  ] as const) {
    const { req, body } = await githubDelivery(event, payload);
    t.equal(ciProvider.interpret(req, body, endpoint(), "rcp_1").kind, "invalid", `${event} ${JSON.stringify(payload).slice(0, 40)}`);
  }
});

test("huge advisories still give a query within 2000 characters that keeps its question", async (t) => {
  const vulnerabilities = Array.from({ length: 40 }, (_, i) => ({
    package: { ecosystem: "npm", name: `pkg-${i}-${"x".repeat(50)}` },
    vulnerable_version_range: `< ${i}.0.0`,
  }));
  const payload = { action: "published", security_advisory: { ghsa_id: "GHSA-aaaa-bbbb-cccc", summary: "s".repeat(5000), severity: "critical", vulnerabilities } };
  const { req, body } = await githubDelivery("security_advisory", payload);
  const result = asTrigger(t, ciProvider.interpret(req, body, endpoint(), "rcp_1"));
  t.ok(result.query.length <= 2000, `length ${result.query.length}`);
  t.ok(result.query.endsWith("Are any of the affected packages installed or being exploited on these hosts?"));
  t.match(result.query, /GHSA-aaaa-bbbb-cccc/);
});
