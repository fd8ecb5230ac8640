// The gateway's investigations read model keeps each record as its list item, not its findings, report or
// internal state (docs/architecture.md#read-models): real LMDB in a temp directory, the real spec.
import type { KV } from "@nats-io/kv";
import { pino } from "pino";
import { test } from "tap";
import { investigationIndex, investigationPrefix } from "../../services/gateway/investigation-index.js";
import { toDetail, toListItem, type InvestigationRecord } from "../../shared/investigations/record.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel } from "../../shared/readmodel.js";
import { tempDir } from "../helpers/services.js";

const BASE = "https://inquest.example.com";

function completed(id: string): InvestigationRecord {
  const finding = { finding_id: "fnd_1", detection_id: "unexpected-listener", title: "t", severity: "high", confidence: 0.9, agent_id: "a-1", hostname: "h-1", summary: "s".repeat(500), evidence: [] };
  return {
    investigation_id: id, status: "completed", query: "listening ports?", depth: "standard", mode: "live", scope: null,
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: "2026-11-26T10:00:00.000Z", running_at: "2026-11-26T10:00:01.000Z", completed_at: "2026-11-26T10:00:02.000Z",
    progress: null, summary: { narrative: "n", severity: "high", verdict: "malicious", findings_count: 50, route: "detections" }, freshness: null, error: null,
    findings: Array.from({ length: 50 }, () => finding), findings_total: 50, report: { narrative: "r".repeat(20_000) },
    internal: { owner_key_id: "key_1", seeds: [], events: { queued: "evt_1", started: "evt_2", terminal: "evt_3", findings: {} }, run_attempts: 1 },
  } as unknown as InvestigationRecord;
}

test("a record is kept as its list view: what the list shows, none of its findings, report or internal state", async (t) => {
  const dir = tempDir("inquest-view-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log: pino({ level: "silent" }) });
  t.teardown(async () => {
    await lmdb.close();
    dir.remove();
  });
  const model = new ReadModel(lmdb, {} as KV, investigationIndex, pino({ level: "silent" }));
  const record = completed("inv_01M8D0000000000000000000AA");
  await model.apply(record.investigation_id, 7, record);
  const kept = model.get(record.investigation_id);
  t.ok(kept, "kept");
  for (const field of ["findings", "findings_total", "report", "internal"]) t.notOk(field in (kept ?? {}), `no ${field}`);
  t.same(toListItem(kept as InvestigationRecord, BASE), toListItem(record, BASE), "the list item is the record's");
  t.ok(JSON.stringify(kept).length < JSON.stringify(toDetail(record, BASE)).length / 20, "a small part of the record's bytes");
  const listed = model.page(investigationPrefix("completed", "api"), { after: null, limit: 10, reverse: true }).items;
  t.same(listed.map((r) => r.investigation_id), [record.investigation_id], "indexed by status and source as before");
});
