// The record a run's end writes must fit in one NATS message whatever the agents answered: the report's lists and
// texts are bounded one by one, and the report as a whole in bytes (a compromised agent's long values otherwise
// fill every list to its item bound with texts at their character bound).
import { test } from "tap";
import { InvestigationRun, routeQuery } from "../../shared/engine/index.js";
import { boundReport } from "../../shared/investigations/bounded.js";
import { DEFAULT_FINDINGS_BOUNDS, inlineFromChunks } from "../../shared/investigations/findings.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { serializeEvaluation } from "../../services/runner/engine-protocol.js";
import { evaluationEncoding, withResults } from "../../services/runner/results.js";

/** Well under NATS's default max_payload (1 MiB), as the record must stay. */
const RECORD_BUDGET = 640 * 1024;

/** A host answering `count` processes run from /tmp, each with a name of `nameChars` characters. */
function hostileHost(count: number, nameChars: number) {
  const processes = Array.from({ length: count }, (_, i) => ({
    pid: String(1000 + i), name: `p${i}${"A".repeat(nameChars)}`, path: `/tmp/x${i}`, cmdline: `/tmp/x${i}`, on_disk: "1", start_time: String(1700000000 + i),
  }));
  return { agent_id: "a-1", hostname: "h-1", tags: {}, collected_at: "2026-11-22T10:00:00.000Z", tables: { processes } };
}

function running(): InvestigationRecord {
  return {
    investigation_id: "inv_x", status: "running", query: "is anything executing from /tmp?", depth: "standard", mode: "live",
    scope: null, context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: "2026-11-22T10:00:00.000Z", running_at: "2026-11-22T10:00:00.000Z", completed_at: null, progress: null, summary: null, freshness: null,
    error: null, findings: [], report: null,
    internal: { owner_key_id: null, seeds: [], events: { queued: "evt_q", started: "evt_s", terminal: null, findings: {} }, run_attempts: 1, lease: { token: "t", until: "2026-11-22T10:00:30.000Z" } },
  };
}

/** The record as the run's end writes it (storeAndAnnounce) for an evaluation of `host`. */
function endRecord(host: ReturnType<typeof hostileHost>, status: InvestigationRecord["status"] = "running"): { record: InvestigationRecord; findings: number } {
  const plan = routeQuery("is anything executing from /tmp?", "standard");
  const run = new InvestigationRun(plan);
  run.add(host);
  const report = run.finish({ mode: "live", agents_targeted: 1, agents_responded: 1, unreachable: [] }, "standard");
  const evaluation = serializeEvaluation(report, null, evaluationEncoding(DEFAULT_FINDINGS_BOUNDS, Date.parse("2026-11-22T10:00:05.000Z")));
  const stored = { findings: inlineFromChunks(evaluation.chunks, DEFAULT_FINDINGS_BOUNDS), findings_total: report.findings.length };
  const progress = { phase: "analysing", plans_total: 1, plans_completed: 1, agents_targeted: 1, agents_responded: 1, agents_unreachable: 0 };
  const record = withResults({ ...running(), status }, { stored, report: evaluation.report, ref: { attempt: 1, chunks: evaluation.chunks.map((c) => c.ids.length) }, progress, endMs: Date.now() });
  return { record, findings: report.findings.length };
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

test("a host answering 105 processes from /tmp with 8 KB names: the completed record stays well under max_payload", async (t) => {
  const { record, findings } = endRecord(hostileHost(105, 8_300));
  t.equal(findings, 105, "every process is a finding (all stored in the findings bucket)");
  t.ok(bytesOf(record) < RECORD_BUDGET, `record of ${bytesOf(record)} bytes`);
  const report = record.report as Record<string, unknown> & { truncated?: Record<string, number>; timeline?: unknown[] };
  t.ok(report.truncated?.["/timeline"] !== undefined, "the cut timeline is named in truncated, with its full length");
  t.ok((report.timeline?.length ?? 0) > 0, "the timeline keeps its first entries");
  t.equal(record.summary?.narrative, report.narrative, "the summary's narrative is the report's");
  const cancelled = endRecord(hostileHost(105, 8_300), "cancelled").record;
  t.ok(bytesOf(cancelled) < RECORD_BUDGET, "so is the partial record of a run cancelled while collecting");
});

test("a small run's report is not cut", async (t) => {
  const { record } = endRecord(hostileHost(3, 10));
  t.notOk("truncated" in (record.report ?? {}), "nothing cut: no truncated");
});

test("a report over its bytes is cut where it is largest: small lists and texts stay whole, every cut list is named", async (t) => {
  const report = {
    severity: "high",
    narrative: "n".repeat(3_000),
    next_steps: { triage: ["one", "two"] },
    timeline: Array.from({ length: 50 }, (_, i) => ({ time: `t${i}`, event: "e".repeat(2_000) })),
    paths: Array.from({ length: 10 }, (_, i) => ({ nodes: [`n${i}`, "x".repeat(500)] })),
  };
  const bounds = { maxItems: 100, maxChars: 8192, maxBytes: 20_000 };
  const bounded = boundReport(report, bounds) as typeof report & { truncated?: Record<string, number> };
  t.ok(bytesOf(bounded) <= bounds.maxBytes, `${bytesOf(bounded)} bytes`);
  t.same(bounded.next_steps, report.next_steps, "a small list passes whole");
  t.equal(bounded.severity, "high");
  t.ok(bounded.timeline.length < 50 && bounded.timeline.length > 0, `the largest list cut (${bounded.timeline.length} of 50 kept)`);
  t.same(bounded.timeline, report.timeline.slice(0, bounded.timeline.length), "its first items, whole");
  t.equal(bounded.truncated?.["/timeline"], 50, "named in truncated with its full length");
  t.same(boundReport(report, { ...bounds, maxBytes: 1_000_000 }), report, "within its bytes: unchanged");
  const tiny = boundReport(report, { ...bounds, maxBytes: 2_000 });
  t.ok(bytesOf(tiny) <= 2_000, `even a small bound is met (${bytesOf(tiny)} bytes)`);
  const texts = boundReport({ narrative: "é".repeat(8_000), steps: ["a"] }, { ...bounds, maxBytes: 4_000 }) as { narrative: string; steps: string[] };
  t.ok(bytesOf(texts) <= 4_000 && /more characters cut\)$/.test(texts.narrative), "a text alone over the bytes is cut, saying so");
  t.same(texts.steps, ["a"]);
});
