// Services deal in ids; the gateway renders links. The trigger stores its 202 body without links and the gateway
// adds them, in the contract's key order, also to bodies stored (with links) before triggers stopped rendering them.
import { test } from "tap";
import { eventData, queuedResponseBody, type InvestigationRecord } from "../../shared/investigations/record.js";

const BASE = "https://inquest.example.com";

test("queuedResponseBody adds the links after the estimate, before freshness", async (t) => {
  const stored = JSON.stringify({ investigation_id: "inv_1", status: "queued", estimated_completion_seconds: 15, freshness: { stale_agents: 0 } });
  const body = queuedResponseBody(stored, BASE);
  t.same(Object.keys(JSON.parse(body)), ["investigation_id", "status", "estimated_completion_seconds", "links", "freshness"]);
  t.same(JSON.parse(body).links, { self: `${BASE}/v1/investigations/inv_1`, cancel: `${BASE}/v1/investigations/inv_1` });
  t.equal(queuedResponseBody(stored, BASE), body, "the same bytes every time (idempotent replays)");
  const made = { investigation_id: "inv_1", status: "queued", estimated_completion_seconds: 15, freshness: { stale_agents: 0 } };
  t.equal(queuedResponseBody(made, BASE), body, "the first answer, from the object the trigger made, is the replay's bytes");
  const live = JSON.stringify({ investigation_id: "inv_2", status: "queued", estimated_completion_seconds: 5 });
  t.same(Object.keys(JSON.parse(queuedResponseBody(live, BASE))), ["investigation_id", "status", "estimated_completion_seconds", "links"]);
});

test("a body stored with links by an older trigger gets them replaced in place", async (t) => {
  const old = JSON.stringify({ investigation_id: "inv_3", status: "queued", estimated_completion_seconds: 15, links: { self: "http://127.0.0.1:8080/v1/investigations/inv_3", cancel: "x" } });
  const body = JSON.parse(queuedResponseBody(old, BASE));
  t.same(Object.keys(body), ["investigation_id", "status", "estimated_completion_seconds", "links"]);
  t.equal(body.links.self, `${BASE}/v1/investigations/inv_3`);
});

test("event payloads carry ids, never links", async (t) => {
  const r = {
    investigation_id: "inv_4", status: "queued", query: "q", depth: "quick", mode: "auto", scope: null,
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: "2026-11-22T10:00:00.000Z", running_at: null, completed_at: null, progress: null, summary: null, freshness: null, error: null,
    findings: [], report: null, internal: { owner_key_id: null, seeds: [], events: { queued: "evt_1", started: null, terminal: null, findings: {} }, run_attempts: 0 },
  } as InvestigationRecord;
  const data = eventData(r);
  t.notOk("links" in data);
  t.equal(data.investigation_id, "inv_4");
});
