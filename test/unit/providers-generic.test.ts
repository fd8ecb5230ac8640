import { test, type Test } from "tap";
import { genericProvider } from "../../services/ingestor/providers/generic.js";
import type { InboundEndpointView, InboundRequest, Interpretation, Scope } from "../../services/ingestor/providers/types.js";

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

test("generic has no signature scheme", async (t) => {
  t.equal(genericProvider.verify(request({ query: "x" }), "any-secret"), "ok");
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

  const scope = { type: "selector", filter: { tags: { role: "db" } }, extra: 1 };
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
});

test("validation failures are invalid with the offending path", async (t) => {
  const cases: Array<[string, unknown, string | undefined]> = [
    ["missing query", { agent_ids: ["a"] }, "/query"],
    ["query not a string", { query: 42 }, "/query"],
    ["blank query", { query: "   " }, "/query"],
    ["query too long", { query: "x".repeat(2001) }, "/query"],
    ["agent_ids not an array", { query: "q", agent_ids: "agt_1" }, "/agent_ids"],
    ["agent_ids empty", { query: "q", agent_ids: [] }, "/agent_ids"],
    ["agent_ids with a number", { query: "q", agent_ids: ["a", 1] }, "/agent_ids"],
    ["scope wrong type", { query: "q", scope: { type: "all" } }, "/scope"],
    ["scope without filter", { query: "q", scope: { type: "selector" } }, "/scope"],
    ["scope tags not strings", { query: "q", scope: { type: "selector", filter: { tags: { a: 1 } } } }, "/scope/filter/tags/a"],
    ["scope agent_ids bad", { query: "q", scope: { type: "selector", filter: { agent_ids: [null] } } }, "/scope/filter/agent_ids"],
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
