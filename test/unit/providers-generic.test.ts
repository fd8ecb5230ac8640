import { createHmac } from "node:crypto";
import { test, type Test } from "tap";
import { genericProvider } from "../../shared/inbound/providers/generic.js";
import type { InboundEndpointView, InboundRequest, Interpretation, Scope } from "../../shared/inbound/providers/types.js";

const DEFAULT_SCOPE: Scope = { type: "selector", filter: { tags: { team: "payments" } } };
const endpoint: InboundEndpointView = { id: "iep_03", provider: "generic", default_scope: DEFAULT_SCOPE, default_depth: "standard" };

function request(body: unknown): InboundRequest {
  return { headers: { "content-type": "application/json" }, rawBody: Buffer.from(JSON.stringify(body) ?? ""), nowSeconds: 0 };
}

function interpret(body: unknown, ep: InboundEndpointView = endpoint): Interpretation {
  return genericProvider.interpret(request(body), body, ep, "rcp_01");
}

function asTrigger(t: Test, result: Interpretation) {
  if (result.kind !== "trigger") {
    t.fail(`expected a trigger, got ${JSON.stringify(result)}`);
    throw new Error("not a trigger");
  }
  return result;
}

test("with a signing secret, generic verifies X-Hub-Signature-256 over the raw body", async (t) => {
  const signed = request({ query: "x" });
  const signature = `sha256=${createHmac("sha256", "s3cret").update(signed.rawBody).digest("hex")}`;
  t.equal(genericProvider.verify({ ...signed, headers: { ...signed.headers, "x-hub-signature-256": signature } }, "s3cret"), "ok");
  t.equal(genericProvider.verify(signed, "s3cret"), "bad_signature", "unsigned");
  t.equal(genericProvider.verify({ ...signed, headers: { ...signed.headers, "x-hub-signature-256": signature } }, "other"), "bad_signature", "another secret");
});

test("a query alone uses the endpoint defaults and the receipt id", async (t) => {
  const result = asTrigger(t, interpret({ query: "Is anything listening on port 4444?", unknown_field: true }));
  t.same(result, {
    kind: "trigger",
    query: "Is anything listening on port 4444?",
    depth: "standard",
    scope: DEFAULT_SCOPE,
    target: { kind: "scope" },
    trigger_id: "rcp_01",
  });
  t.equal(asTrigger(t, interpret({ query: "q" }, { ...endpoint, default_scope: null })).scope, null, "no default = every agent");
});

test("agent_ids, scope, depth, mode and idempotency_key are passed through", async (t) => {
  const byIds = asTrigger(t, interpret({ query: "q", agent_ids: ["agt_1", "agt_2"] }));
  t.same(byIds.scope, { type: "selector", filter: { agent_ids: ["agt_1", "agt_2"] } });

  const scope = { type: "selector", filter: { tags: { role: "db" } } };
  t.same(asTrigger(t, interpret({ query: "q", scope })).scope, { type: "selector", filter: { tags: { role: "db" } } });
  t.same(asTrigger(t, interpret({ query: "q", scope: { type: "selector", filter: {} } })).scope, { type: "selector", filter: {} });
  t.same(asTrigger(t, interpret({ query: "q", scope: null })).scope, DEFAULT_SCOPE, "null scope = default");

  const both = asTrigger(t, interpret({ query: "q", scope, agent_ids: ["agt_9"] }));
  t.same(both.scope, { type: "selector", filter: { tags: { role: "db" }, agent_ids: ["agt_9"] } }, "agent_ids narrow the scope");

  const full = asTrigger(t, interpret({ query: "q", depth: "deep", mode: "live", idempotency_key: "ticket-123" }));
  t.equal(full.depth, "deep");
  t.equal(full.mode, "live");
  t.equal(full.trigger_id, "ticket-123");
  t.equal(full.idempotency_key, "ticket-123");
  t.equal(asTrigger(t, interpret({ query: "q" })).idempotency_key, undefined);
  t.equal(asTrigger(t, interpret({ query: "x".repeat(2000) })).query.length, 2000, "2000 characters is allowed");
  // A longer question is the trigger's to refuse, as for every trigger (test/integration/inbound-trigger-check.test.ts).
  t.equal(asTrigger(t, interpret({ query: "x".repeat(2001) })).query.length, 2001, "the question's length is not this provider's check");
});

test("validation failures are invalid with the offending path", async (t) => {
  const cases: Array<[string, unknown, string | undefined]> = [
    ["missing query", { agent_ids: ["a"] }, "/query"],
    ["query not a string", { query: 42 }, "/query"],
    ["blank query", { query: "   " }, "/query"],
    ["agent_ids not an array", { query: "q", agent_ids: "agt_1" }, "/agent_ids"],
    ["agent_ids empty", { query: "q", agent_ids: [] }, "/agent_ids"],
    ["agent_ids with a number", { query: "q", agent_ids: ["a", 1] }, "/agent_ids/1"],
    ["scope wrong type", { query: "q", scope: { type: "all", filter: {} } }, "/scope/type"],
    ["scope without filter", { query: "q", scope: { type: "selector" } }, "/scope/filter"],
    ["scope tags not strings", { query: "q", scope: { type: "selector", filter: { tags: { a: 1 } } } }, "/scope/filter/tags/a"],
    ["scope agent_ids bad", { query: "q", scope: { type: "selector", filter: { agent_ids: [null] } } }, "/scope/filter/agent_ids/0"],
    ["scope agent_ids empty", { query: "q", scope: { type: "selector", filter: { agent_ids: [] } } }, "/scope/filter/agent_ids"],
    ["scope unknown field", { query: "q", scope: { type: "selector", filter: {}, extra: 1 } }, "/scope/extra"],
    ["scope filter unknown field", { query: "q", scope: { type: "selector", filter: { hosts: ["a"] } } }, "/scope/filter/hosts"],
    ["scope tag name with a control character", { query: "q", scope: { type: "selector", filter: { tags: { "bad\nkey": "v" } } } }, "/scope/filter/tags/bad\nkey"],
    ["scope tag name with a bidirectional override", { query: "q", scope: { type: "selector", filter: { tags: { "a\u202eb": "v" } } } }, "/scope/filter/tags/a\u202eb"],
    ["scope tag name too long", { query: "q", scope: { type: "selector", filter: { tags: { ["k".repeat(129)]: "v" } } } }, `/scope/filter/tags/${"k".repeat(129)}`],
    ["scope tag value too long", { query: "q", scope: { type: "selector", filter: { tags: { k: "v".repeat(257) } } } }, "/scope/filter/tags/k"],
    ["scope too many tags", { query: "q", scope: { type: "selector", filter: { tags: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) } } }, "/scope/filter/tags"],
    ["scope too many agent_ids", { query: "q", scope: { type: "selector", filter: { agent_ids: Array.from({ length: 1001 }, (_, i) => `a${i}`) } } }, "/scope/filter/agent_ids"],
    ["scope agent id too long", { query: "q", scope: { type: "selector", filter: { agent_ids: ["a".repeat(129)] } } }, "/scope/filter/agent_ids/0"],
    ["agent_ids too many", { query: "q", agent_ids: Array.from({ length: 1001 }, (_, i) => `a${i}`) }, "/agent_ids"],
    ["agent id too long", { query: "q", agent_ids: ["a".repeat(129)] }, "/agent_ids/0"],
    ["agent id blank", { query: "q", agent_ids: ["a", "  "] }, "/agent_ids/1"],
    ["agent_ids twice", { query: "q", agent_ids: ["a"], scope: { type: "selector", filter: { agent_ids: ["b"] } } }, "/agent_ids"],
    ["bad depth", { query: "q", depth: "extreme" }, "/depth"],
    ["bad mode", { query: "q", mode: "sometimes" }, "/mode"],
    ["bad idempotency_key", { query: "q", idempotency_key: 7 }, "/idempotency_key"],
    ["empty idempotency_key", { query: "q", idempotency_key: "" }, "/idempotency_key"],
    ["array body", [{ query: "q" }], undefined],
    ["string body", "q", undefined],
    ["null body", null, undefined],
  ];
  for (const [name, body, path] of cases) {
    const result = interpret(body);
    t.equal(result.kind, "invalid", name);
    if (result.kind === "invalid") {
      t.equal(result.path, path, `${name}: path`);
      t.ok(result.message.length > 0);
    }
  }
  const depthError = interpret({ query: "q", depth: "extreme" });
  t.match(depthError.kind === "invalid" ? depthError.message : "", /quick, standard, deep/);
});

test("scope limits: the ~600 KB scope of the audit is refused with details (each limit has its own case above)", async (t) => {
  const tags = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tag-${i}`, "v".repeat(15_000)]));
  const huge = { type: "selector", filter: { tags, agent_ids: Array.from({ length: 1200 }, () => "a".repeat(200)) } };
  t.ok(JSON.stringify(huge).length > 600_000);
  const result = interpret({ query: "q", scope: huge });
  t.equal(result.kind, "invalid");
  if (result.kind !== "invalid") return;
  const paths = (result.details ?? []).map((d) => d.path);
  t.ok(paths.length > 0 && paths.every((p) => p.startsWith("/scope/filter/")), JSON.stringify(paths));
  t.ok(paths.includes("/scope/filter/tags/tag-0"), "tag value length");
  t.equal(result.path, paths[0]);
  t.ok(JSON.stringify(result).length < 10_000, "the answer stays small");
  const longName = interpret({ query: "q", scope: { type: "selector", filter: { tags: { [`${"x".repeat(100_000)} `]: "v" } } } });
  t.ok(JSON.stringify(longName).length < 2_000, "a huge tag name is not echoed back whole");
  t.same(
    asTrigger(t, interpret({ query: "q", scope: { type: "selector", filter: { tags: { "k8s.io/role:x_y-z": "v".repeat(256) }, agent_ids: ["a".repeat(128)] } } })).scope,
    { type: "selector", filter: { tags: { "k8s.io/role:x_y-z": "v".repeat(256) }, agent_ids: ["a".repeat(128)] } },
    "the limits themselves are allowed",
  );
  t.same(
    asTrigger(t, interpret({ query: "q", scope: { type: "selector", filter: { tags: { "team name": "blue", "équipe": "rouge" } } } })).scope,
    { type: "selector", filter: { tags: { "team name": "blue", "équipe": "rouge" } } },
    "a tag name an agent may declare (spaces, accents) can be selected",
  );
});
