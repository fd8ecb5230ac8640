// The envelope of a test delivery (POST .../test): the real shape of the subscription's first event type,
// built by the same functions the real events use, with placeholder data and `"test": true`.
import { agentView, type AgentRecord } from "../agents/record.js";
import { iso } from "../clock.js";
import { envelope } from "../events.js";
import { eventData, type InvestigationRecord } from "../investigations/record.js";
import type { EventEnvelope, EventType, InvestigationEventType } from "../schemas/events.js";
import type { Finding, InvestigationStatus } from "../schemas/investigation.js";
import { assertNever } from "../never.js";

const PLACEHOLDER_INVESTIGATION = "inv_00000000000000000000000000";
const PLACEHOLDER_AGENT = "agent-placeholder";

function placeholderFinding(at: string): Finding {
  return {
    finding_id: "fnd_00000000000000000000000000",
    detection_id: "placeholder",
    title: "Placeholder finding (test delivery)",
    severity: "info",
    confidence: 1,
    agent_id: PLACEHOLDER_AGENT,
    hostname: "placeholder.example",
    summary: "A test delivery: this finding does not exist.",
    evidence: [{ table: "processes", row: { pid: 1, name: "placeholder" }, collected_at: at }],
    attack: [],
  };
}

function placeholderInvestigation(status: InvestigationStatus, at: string): InvestigationRecord {
  const terminal = status === "completed" || status === "failed" || status === "cancelled";
  return {
    investigation_id: PLACEHOLDER_INVESTIGATION,
    status,
    query: "placeholder question (test delivery)",
    depth: "standard",
    mode: "auto",
    scope: null,
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: at,
    running_at: status === "queued" ? null : at,
    completed_at: terminal ? at : null,
    progress: null,
    summary:
      status === "completed"
        ? { narrative: "A test delivery: no investigation ran.", severity: "info", verdict: "benign", findings_count: 0, route: "detections" }
        : null,
    freshness: null,
    error: status === "failed" ? { code: "placeholder", message: "A test delivery: no investigation ran." } : null,
    findings: [],
    report: null,
    internal: { owner_key_id: null, seeds: [], events: { queued: "", started: null, terminal: null, findings: {} }, run_attempts: 0 },
  };
}

function placeholderAgent(type: EventType, at: string): AgentRecord {
  return {
    agent_id: PLACEHOLDER_AGENT,
    hostname: "placeholder.example",
    tags: { env: "test" },
    edr_device_id: null,
    // As the registry writes them: registered before its first heartbeat (offline, never seen), then online.
    status: type === "agent.connected" ? "online" : "offline",
    registered_at: at,
    last_seen_at: type === "agent.registered" ? null : at,
    snapshot_collected_at: null,
    heartbeat_interval_ms: 0,
  };
}

const INVESTIGATION_STATUS: Record<InvestigationEventType, InvestigationStatus> = {
  "investigation.queued": "queued",
  "investigation.started": "running",
  "investigation.completed": "completed",
  "investigation.failed": "failed",
  "investigation.cancelled": "cancelled",
};

/** A test event of `type`: the real shape with placeholder data. */
export function testEnvelope(eventId: string, type: EventType, nowMs: number): EventEnvelope {
  const at = iso(nowMs);
  switch (type) {
    case "investigation.queued":
    case "investigation.started":
    case "investigation.completed":
    case "investigation.failed":
    case "investigation.cancelled":
      return { ...envelope(eventId, type, nowMs, eventData(placeholderInvestigation(INVESTIGATION_STATUS[type], at))), test: true };
    case "finding.discovered":
      return { ...envelope(eventId, type, nowMs, { investigation_id: PLACEHOLDER_INVESTIGATION, finding: placeholderFinding(at) }), test: true };
    case "agent.registered":
    case "agent.connected":
    case "agent.disconnected":
      return { ...envelope(eventId, type, nowMs, agentView(placeholderAgent(type, at))), test: true };
    case "subscription.disabled":
      return {
        ...envelope(eventId, type, nowMs, {
          subscription_id: "sub_00000000000000000000000000",
          url: "https://placeholder.example/webhook",
          reason: "endpoint_gone",
          delivery_id: "dlv_00000000000000000000000000",
          disabled_at: at,
        }),
        test: true,
      };
    case "delivery.dead_lettered":
      return {
        ...envelope(eventId, type, nowMs, {
          delivery_id: "dlv_00000000000000000000000000",
          subscription_id: "sub_00000000000000000000000000",
          event_id: "evt_00000000000000000000000000",
          event_type: "investigation.completed",
          attempt_count: 5,
          last_response_code: 503,
          last_error: "http_503",
        }),
        test: true,
      };
    default:
      return assertNever(type, "event type");
  }
}

