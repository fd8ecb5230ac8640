// `ci`: GitHub-compatible webhooks, so a real GitHub repository or organisation hook can point here (docs/api.md#inbound).
// Signature `X-Hub-Signature-256`; event from `X-GitHub-Event`; trigger id from `X-GitHub-Delivery`.

import { MAX_TAG_VALUE_CHARS } from "../../schemas/common.js";
import { verifyGithubSignature } from "../../signing.js";
import { at, clip, composeQuery, isObject, text, textOrNumber } from "./payload.js";
import type { JsonObject } from "./payload.js";
import type { InboundEndpointView, InboundRequest, Interpretation, Provider, Scope, Target, Verification } from "./types.js";

const MAX_PACKAGES = 10;

interface EventContext {
  endpoint: InboundEndpointView;
  triggerId: string;
  action: string | undefined;
}

type EventHandler = (body: JsonObject, ctx: EventContext) => Interpretation;

/** The repository's CI runners: agents tagged `role=ci-runner` and `repository=<full_name>`. */
function runnerScope(repository: string): Scope {
  return { type: "selector", filter: { tags: { role: "ci-runner", repository } } };
}

function quoted(value: string | undefined, max = 200): string | undefined {
  return value === undefined ? undefined : `"${clip(value, max)}"`;
}

/** "(branch main, commit abc…, triggered by push from octocat)" from whichever parts are present. */
function runDetails(parts: Array<[label: string, value: string | undefined]>): string {
  const present = parts.filter((p): p is [string, string] => p[1] !== undefined).map(([l, v]) => `${l} ${clip(v, 200)}`);
  return present.length === 0 ? "" : ` (${present.join(", ")})`;
}

function repositoryOf(body: JsonObject, event: string): { ok: true; name: string } | { ok: false; invalid: Interpretation } {
  const name = text(at(body, "repository", "full_name"));
  if (name === undefined) {
    return { ok: false, invalid: { kind: "invalid", path: "/repository/full_name", message: `${event} payload has no repository.full_name` } };
  }
  // The name is the runners' `repository` tag, so it must be a tag value; cut, it would name another repository's
  // runners. Within it the name also leaves the question room in its 2,000 characters (GitHub's are at most 140).
  if (name.length > MAX_TAG_VALUE_CHARS) {
    const message = `${event} payload's repository.full_name has ${name.length} characters; a repository tag holds at most ${MAX_TAG_VALUE_CHARS}`;
    return { ok: false, invalid: { kind: "invalid", path: "/repository/full_name", message } };
  }
  return { ok: true, name };
}

function trigger(ctx: EventContext, query: string, scope: Scope | null, target: Target = { kind: "scope" }): Interpretation {
  return { kind: "trigger", query, depth: ctx.endpoint.default_depth, scope, target, trigger_id: ctx.triggerId };
}

const unexpectedRunQuestion = (repository: string, runner?: string): string =>
  runner === undefined
    ? `Did anything unexpected run on the CI runners of ${repository}?`
    : `Did anything unexpected run on CI runner "${clip(runner, 200)}" of ${repository}?`;

const workflowRun: EventHandler = (body, ctx) => {
  if (ctx.action !== "completed") {
    return { kind: "ignored", reason: `workflow_run action "${clip(ctx.action ?? "none", 50)}" is not investigated (only "completed")` };
  }
  const repo = repositoryOf(body, "workflow_run");
  if (!repo.ok) return repo.invalid;
  const run = at(body, "workflow_run");
  const name = text(at(run, "name")) ?? text(at(body, "workflow", "name"));
  const runNumber = textOrNumber(at(run, "run_number"));
  const conclusion = text(at(run, "conclusion"));
  const actor = text(at(run, "triggering_actor", "login")) ?? text(at(run, "actor", "login"));
  const event = text(at(run, "event"));
  const sentence =
    `GitHub Actions workflow ${quoted(name) ?? "(unnamed)"}${runNumber !== undefined ? ` run #${runNumber}` : ""} ` +
    `in ${repo.name} completed${conclusion !== undefined ? ` with conclusion ${clip(conclusion, 50)}` : ""}` +
    runDetails([
      ["branch", text(at(run, "head_branch"))],
      ["commit", text(at(run, "head_sha"))],
      ["event", event],
      ["triggered by", actor],
    ]) +
    ".";
  return trigger(ctx, composeQuery([sentence], unexpectedRunQuestion(repo.name)), runnerScope(repo.name));
};

function jobOutcome(action: string | undefined, conclusion: string | undefined): string {
  switch (action) {
    case "queued":
      return "was queued";
    case "in_progress":
      return "started";
    case "waiting":
      return "is waiting";
    case "completed":
      return conclusion === undefined ? "completed" : `completed with conclusion ${clip(conclusion, 50)}`;
    default:
      return `reported action ${clip(action ?? "none", 50)}`;
  }
}

const workflowJob: EventHandler = (body, ctx) => {
  const repo = repositoryOf(body, "workflow_job");
  if (!repo.ok) return repo.invalid;
  const job = at(body, "workflow_job");
  const runner = text(at(job, "runner_name"));
  const workflow = text(at(job, "workflow_name"));
  const sentence =
    `GitHub Actions job ${quoted(text(at(job, "name"))) ?? "(unnamed)"}` +
    `${workflow !== undefined ? ` of workflow ${quoted(workflow)}` : ""} in ${repo.name} ` +
    `${jobOutcome(ctx.action, text(at(job, "conclusion")))}` +
    `${runner !== undefined ? ` on runner ${quoted(runner)}` : ""}` +
    runDetails([
      ["branch", text(at(job, "head_branch"))],
      ["commit", text(at(job, "head_sha"))],
    ]) +
    ".";
  // A job that names its runner narrows to the agents among the repository's CI runners whose hostname is the
  // runner's name (docs/api.md#inbound); the receiver resolves them and falls back to all of the repository's runners.
  const target: Target = runner === undefined ? { kind: "scope" } : { kind: "ci_runner", hostname: runner, repository: repo.name };
  return trigger(ctx, composeQuery([sentence], unexpectedRunQuestion(repo.name, runner)), runnerScope(repo.name), target);
};

/** "npm lodash (< 4.17.21), pip django (>= 2.0.0, < 2.0.2; >= 1.11.8, < 1.11.10)" */
function affectedPackages(vulnerabilities: unknown): string | undefined {
  if (!Array.isArray(vulnerabilities)) return undefined;
  const ranges = new Map<string, string[]>();
  for (const vulnerability of vulnerabilities) {
    const name = text(at(vulnerability, "package", "name"));
    if (name === undefined) continue;
    const ecosystem = text(at(vulnerability, "package", "ecosystem"));
    const label = clip(ecosystem === undefined ? name : `${ecosystem} ${name}`, 120);
    const list = ranges.get(label) ?? [];
    const raw = text(at(vulnerability, "vulnerable_version_range"));
    const range = raw === undefined ? undefined : clip(raw, 80);
    if (range !== undefined && !list.includes(range)) list.push(range);
    ranges.set(label, list);
  }
  if (ranges.size === 0) return undefined;
  const shown = [...ranges].slice(0, MAX_PACKAGES).map(([label, list]) => (list.length > 0 ? `${label} (${list.join("; ")})` : label));
  const more = ranges.size > MAX_PACKAGES ? ` and ${ranges.size - MAX_PACKAGES} more` : "";
  return `${shown.join(", ")}${more}`;
}

function cveOf(advisory: unknown): string | undefined {
  const direct = text(at(advisory, "cve_id"));
  if (direct !== undefined) return direct;
  const identifiers = at(advisory, "identifiers");
  if (!Array.isArray(identifiers)) return undefined;
  return identifiers.map((i) => (at(i, "type") === "CVE" ? text(at(i, "value")) : undefined)).find((v) => v !== undefined);
}

/** Sentences describing an advisory: ids, what it is, severity and affected packages. */
function describeAdvisory(kind: string, advisory: JsonObject, where: string, action: string | undefined): string[] {
  const ghsa = text(advisory["ghsa_id"]);
  const cve = cveOf(advisory);
  const ids = [ghsa, cve].filter((v): v is string => v !== undefined).map((v) => clip(v, 60));
  const label = ids.length === 0 ? kind : `${kind} ${ids[0]}${ids.length > 1 ? ` (${ids.slice(1).join(", ")})` : ""}`;
  const summary = quoted(text(advisory["summary"]), 400);
  const severity = text(advisory["severity"]);
  const packages = affectedPackages(advisory["vulnerabilities"]);
  return [
    `${label}${where} was ${clip(action ?? "published", 40).replaceAll("_", " ")}${summary !== undefined ? `: ${summary}` : ""}.`,
    severity !== undefined ? `Severity: ${clip(severity, 40)}.` : "",
    packages !== undefined ? `Affected packages: ${packages}.` : "",
  ];
}

const repositoryAdvisory: EventHandler = (body, ctx) => {
  const repo = repositoryOf(body, "repository_advisory");
  if (!repo.ok) return repo.invalid;
  const advisory = body["repository_advisory"];
  if (!isObject(advisory)) {
    return { kind: "invalid", path: "/repository_advisory", message: "repository_advisory payload has no repository_advisory object" };
  }
  const sentences = describeAdvisory("GitHub repository advisory", advisory, ` for ${repo.name}`, ctx.action);
  const question = `Did anything unexpected run on the CI runners of ${repo.name}, and are the affected packages installed there?`;
  return trigger(ctx, composeQuery(sentences, question), runnerScope(repo.name));
};

const securityAdvisory: EventHandler = (body, ctx) => {
  const advisory = body["security_advisory"];
  if (!isObject(advisory)) {
    return { kind: "invalid", path: "/security_advisory", message: "security_advisory payload has no security_advisory object" };
  }
  const sentences = describeAdvisory("GitHub security advisory", advisory, "", ctx.action);
  const question = "Are any of the affected packages installed or being exploited on these hosts?";
  return trigger(ctx, composeQuery(sentences, question), ctx.endpoint.default_scope);
};

/** Investigated GitHub events; anything not listed here (including `ping`) is ignored. */
const HANDLERS: ReadonlyMap<string, EventHandler> = new Map([
  ["workflow_run", workflowRun],
  ["workflow_job", workflowJob],
  ["repository_advisory", repositoryAdvisory],
  ["security_advisory", securityAdvisory],
]);

/** GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`: ci's scheme, and generic's with a secret. */
export function verifyHubSignature(req: InboundRequest, signingSecret: string): Verification {
  return verifyGithubSignature(signingSecret, req.rawBody, req.headers["x-hub-signature-256"]) ? "ok" : "bad_signature";
}

export const ciProvider: Provider<"ci"> = {
  name: "ci",
  // A GitHub webhook left on its default content type posts a form (the signature covers the form's bytes).
  formField: "payload",

  verify: verifyHubSignature,

  interpret(req, body, endpoint, receiptId) {
    const event = text(req.headers["x-github-event"]);
    if (event === undefined) return { kind: "ignored", reason: "no X-GitHub-Event header" };
    if (event === "ping") return { kind: "ignored", reason: "ping event: nothing to investigate" };
    const handler = HANDLERS.get(event);
    if (handler === undefined) return { kind: "ignored", reason: `GitHub event "${clip(event, 100)}" is not investigated` };
    if (!isObject(body)) return { kind: "invalid", message: `${event} payload must be a JSON object` };
    const triggerId = text(req.headers["x-github-delivery"]) ?? receiptId;
    return handler(body, { endpoint, triggerId, action: text(body["action"]) });
  },
};
