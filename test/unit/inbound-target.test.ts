// EDR device resolution and the receiver's outcome -> HTTP mapping.
import { test } from "tap";
import type { AgentRecord } from "../../shared/agents/record.js";
import type { ReceiptOutcome } from "../../shared/inbound/receive.js";
import { receiptReply } from "../../services/gateway/routes/inbound.js";
import type { TriggerInterpretation } from "../../shared/inbound/providers/types.js";
import { describeScope, resolveTarget } from "../../shared/inbound/target.js";

const agent: AgentRecord = {
  agent_id: "host-1", hostname: "h1", tags: {}, edr_device_id: "dev-1", status: "online",
  registered_at: "", last_seen_at: null, snapshot_collected_at: null, heartbeat_interval_ms: 1000,
};
const runner = (agent_id: string, hostname: string, repository: string): AgentRecord => ({
  ...agent, agent_id, hostname, edr_device_id: null, tags: { role: "ci-runner", repository },
});
const fleet: AgentRecord[] = [
  agent,
  runner("ci-2", "runner-1", "octo-org/octo-repo"),
  runner("ci-1", "runner-1", "octo-org/octo-repo"),
  runner("ci-3", "runner-2", "octo-org/octo-repo"),
  runner("ci-9", "runner-1", "other-org/other-repo"),
  { ...agent, agent_id: "web-1", hostname: "runner-1", edr_device_id: null, tags: { repository: "octo-org/octo-repo" } },
];
const byDevice = {
  byEdrDevice: (id: string) => fleet.filter((a) => a.edr_device_id === id),
  byHostname: (hostname: string) => fleet.filter((a) => a.hostname === hostname),
};
const RUNNERS = { type: "selector" as const, filter: { tags: { role: "ci-runner", repository: "octo-org/octo-repo" } } };
const ciRunner = (hostname: string) => ({ kind: "ci_runner" as const, hostname, repository: "octo-org/octo-repo" });
const PROD = { type: "selector" as const, filter: { tags: { env: "prod" } } };
const interpretation = (over: Partial<TriggerInterpretation>): TriggerInterpretation => ({
  kind: "trigger", query: "What happened?", depth: "standard", scope: PROD, target: { kind: "scope" }, trigger_id: "t", ...over,
});

test("scope targets pass through; a known device becomes its agent", async (t) => {
  t.same(resolveTarget(interpretation({}), byDevice), { scope: PROD, query: "What happened?" });
  t.same(resolveTarget(interpretation({ target: { kind: "edr_device", device_id: "dev-1" } }), byDevice), {
    scope: { type: "selector", filter: { agent_ids: ["host-1"] } },
    query: "What happened?",
  });
});

test("a device several agents claim becomes all of them, and the query says so (an impersonator never hides the real host)", async (t) => {
  const claimants = [{ ...agent, agent_id: "zz-impostor" }, agent, { ...agent, agent_id: "host-1" }];
  const lookup = { byEdrDevice: () => claimants, byHostname: () => [] };
  t.same(resolveTarget(interpretation({ target: { kind: "edr_device", device_id: "dev-1" } }), lookup), {
    scope: { type: "selector", filter: { agent_ids: ["host-1", "zz-impostor"] } },
    query: "2 agents claim EDR device id dev-1 (host-1, zz-impostor), so this investigation covers all of them. What happened?",
  });
  const long = resolveTarget(interpretation({ query: "q".repeat(2000), target: { kind: "edr_device", device_id: "dev-1" } }), lookup);
  t.ok(long.query.length <= 2000, `length ${long.query.length}`);
});

test("an unknown device falls back to the default scope and the query says so, within 2000 characters", async (t) => {
  const fallback = resolveTarget(interpretation({ target: { kind: "edr_device", device_id: "dev-9" } }), byDevice);
  t.same(fallback.scope, PROD);
  t.equal(fallback.query, "No agent is registered with EDR device id dev-9, so this investigation covers the endpoint's default scope (tags env=prod) instead. What happened?");
  const long = resolveTarget(interpretation({ scope: null, query: "q".repeat(2000), target: { kind: "edr_device", device_id: "x".repeat(500) } }), byDevice);
  t.ok(long.query.length <= 2000, `length ${long.query.length}`);
  t.equal(long.scope, null);
  t.match(long.query, /^No agent is registered .* \(every agent\) instead\. q/);
});

test("a CI runner resolves to the repository's runners with that hostname, by agent id", async (t) => {
  t.same(resolveTarget(interpretation({ scope: RUNNERS, target: ciRunner("runner-1") }), byDevice), {
    scope: { type: "selector", filter: { agent_ids: ["ci-1", "ci-2"] } },
    query: '2 CI runner agents of octo-org/octo-repo have hostname "runner-1" (ci-1, ci-2), so this investigation covers all of them. What happened?',
  }, "only role=ci-runner agents of this repository: not ci-9 (other repository) nor web-1 (not a runner); the query says there were two");
  t.same(resolveTarget(interpretation({ scope: RUNNERS, target: ciRunner("runner-2") }), byDevice).scope, {
    type: "selector", filter: { agent_ids: ["ci-3"] },
  });
});

test("an unknown CI runner falls back to the repository's runners and the query says so", async (t) => {
  const fallback = resolveTarget(interpretation({ scope: RUNNERS, target: ciRunner("GitHub Actions 5") }), byDevice);
  t.same(fallback.scope, RUNNERS);
  t.equal(
    fallback.query,
    'No CI runner agent of octo-org/octo-repo has hostname "GitHub Actions 5", so this investigation covers the agents with ' +
      "tags role=ci-runner, repository=octo-org/octo-repo instead. What happened?",
  );
  const long = resolveTarget(interpretation({ scope: RUNNERS, query: "q".repeat(2000), target: ciRunner("r".repeat(500)) }), byDevice);
  t.ok(long.query.length <= 2000, `length ${long.query.length}`);
  t.match(long.query, /^No CI runner agent of .* instead\. q/);
});

test("describeScope", async (t) => {
  t.equal(describeScope(null), "the endpoint's default scope (every agent)");
  t.equal(describeScope({ type: "selector", filter: {} }), "the endpoint's default scope (every agent)");
  t.equal(
    describeScope({ type: "selector", filter: { tags: { a: "1", b: "2" }, agent_ids: ["1", "2", "3", "4", "5", "6", "7"] } }),
    "the endpoint's default scope (tags a=1, b=2; agents 1, 2, 3, 4, 5 and 2 more)",
  );
});

test("every receipt outcome has its HTTP answer (docs/api.md#inbound)", async (t) => {
  const cases: Array<[ReceiptOutcome, number, unknown]> = [
    [{ kind: "unknown_provider" }, 404, "not_found"],
    [{ kind: "unauthorized" }, 401, "unauthorized"],
    [{ kind: "too_large" }, 413, "payload_too_large"],
    [{ kind: "bad_signature", provider: "edr" }, 401, "unauthorized"],
    [{ kind: "invalid_json" }, 400, "invalid_json"],
    [{ kind: "invalid", message: "query is required", path: "/query" }, 400, "validation_failed"],
  ];
  for (const [outcome, status, code] of cases) {
    const reply = receiptReply(outcome);
    t.equal(reply.status, status, outcome.kind);
    t.equal((reply.body as { error: { code: string } }).error.code, code, outcome.kind);
  }
  t.same(receiptReply({ kind: "invalid", message: "query is required", path: "/query" }).body, {
    error: { code: "validation_failed", message: "query is required", details: [{ path: "/query", message: "query is required" }] },
  });
  const details = [{ path: "/scope/filter/tags", message: "must not have more than 32 properties" }, { path: "/scope/type", message: "must be equal to constant" }];
  t.same(receiptReply({ kind: "invalid", message: "scope is not valid", path: "/scope/filter/tags", details }).body, {
    error: { code: "validation_failed", message: "scope is not valid", details },
  }, "every detail the validator found");
  t.same(receiptReply({ kind: "ignored", reason: "ping" }), { status: 202, body: { ignored: true, reason: "ping" } });
  t.same(receiptReply({ kind: "queued", investigation_id: "inv_1" }), { status: 202, body: { investigation_id: "inv_1" } });
  t.same(receiptReply({ kind: "not_queued", reason: "rate_limited: later" }), { status: 202, body: { error: "rate_limited: later" } });
});

test("a bad signature's receipt names the timestamp window only for the scheme that signs one (EDR)", async (t) => {
  const { receiptKind } = await import("../../shared/inbound/receipt-outcome.js");
  t.match(receiptKind({ kind: "bad_signature", provider: "edr" }).reason, /outside the 300 s window/);
  for (const provider of ["ci", "generic"]) {
    const reason = receiptKind({ kind: "bad_signature", provider }).reason;
    t.equal(reason, "bad signature: the provider signature does not verify", provider);
  }
});
