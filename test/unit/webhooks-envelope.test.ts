// The test delivery's envelope (docs/api.md#webhooks): for every event type, the real shape with placeholder data.
import { test } from "tap";
import { EVENT_TYPES, EventEnvelope, type WireEnvelope } from "../../shared/schemas/events.js";
import { envelope } from "../../shared/events.js";
import { Finding } from "../../shared/schemas/investigation.js";
import { checker } from "../../shared/validate.js";
import { testEnvelope } from "../../shared/webhooks/test-envelope.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const INVESTIGATION_KEYS = ["completed_at", "context", "depth", "investigation_id", "mode", "query", "scope", "started_at", "status", "summary"];

test("every event type has a test envelope of the real shape", async (t) => {
  const envelope = checker(EventEnvelope);
  for (const type of EVENT_TYPES) {
    const e = testEnvelope("evt_01", type, T0);
    t.ok(envelope.check(e).ok, `${type}: a valid envelope`);
    t.equal(e.test, true);
    t.equal(e.type, type);
    t.equal(e.created_at, "2026-11-22T10:00:00.000Z");
    const data: Record<string, unknown> = e.data;
    if (type.startsWith("investigation.")) {
      t.same(Object.keys(data).sort(), INVESTIGATION_KEYS, `${type}: the investigation as the list shows it`);
      t.equal(data.status, { queued: "queued", started: "running", completed: "completed", failed: "failed", cancelled: "cancelled" }[type.split(".")[1] as string]);
      t.equal(data.summary === null, type !== "investigation.completed", "a summary only when completed");
    } else if (type === "finding.discovered") {
      t.same(Object.keys(data).sort(), ["finding", "investigation_id"]);
      t.ok(checker(Finding).check(data.finding).ok, "a Finding");
    } else if (type === "delivery.dead_lettered") {
      t.same(Object.keys(data).sort(), ["attempt_count", "delivery_id", "event_id", "event_type", "last_error", "last_response_code", "subscription_id"]);
    } else if (type === "subscription.disabled") {
      t.same(Object.keys(data).sort(), ["delivery_id", "disabled_at", "reason", "subscription_id", "url"]);
      t.equal(data.reason, "endpoint_gone");
    } else {
      t.match(data, { agent_id: String, hostname: String, tags: Object, status: type === "agent.connected" ? "online" : "offline", last_seen_at: type === "agent.registered" ? null : String });
    }
  }
});

test("EventEnvelope is a union keyed by type: the type picks the data (checked by the compiler)", async (t) => {
  const f = testEnvelope("evt_02", "finding.discovered", T0);
  const severities: string[] = [];
  if (f.type === "finding.discovered") severities.push(f.data.finding.severity);
  else if (f.type === "investigation.completed") severities.push(f.data.summary?.severity ?? "none");
  t.same(severities, ["info"]);
  // @ts-expect-error an agent event does not carry a finding
  envelope("evt_03", "agent.connected", T0, { investigation_id: "inv_x", finding: null });
  const wire: WireEnvelope = f;
  t.equal(wire.type, "finding.discovered", "every member is a wire envelope");
});
