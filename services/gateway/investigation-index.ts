// The investigations read model: newest started_at first, filterable by status and trigger source.
import { investigationView, type InvestigationRecord, type InvestigationView } from "../../shared/investigations/record.js";
import type { IndexKey, ReadModelSpec } from "../../shared/readmodel.js";
import type { InvestigationStatus } from "../../shared/schemas/investigation.js";

/**
 * Statuses after which no writer changes the record again: every update (runner, lease, progress, cancel)
 * returns "no change" for them. Not `cancelled`: a run cancelled while collecting still writes its partial
 * findings into the record once (services/runner/execute.ts).
 */
const FINAL: ReadonlySet<InvestigationStatus> = new Set(["completed", "failed"]);

export const isFinal = (status: InvestigationStatus): boolean => FINAL.has(status);

/**
 * Each record is kept as the list shows it: findings, report and internal state (most of a completed record's
 * bytes) stay in the bucket, and a detail is read from there. Documents written before this kept whole records;
 * they read the same.
 */
export const investigationIndex: ReadModelSpec<InvestigationRecord, InvestigationView> = {
  name: "investigations.v1",
  store: investigationView,
  indexKeys(r) {
    const t = Date.parse(r.started_at);
    const id = r.investigation_id;
    const src = r.context.trigger_source;
    return [
      ["all", t, id],
      ["status", r.status, t, id],
      ["source", src, t, id],
      ["status+source", r.status, src, t, id],
    ];
  },
};

export function investigationPrefix(status: string | null, source: string | null): IndexKey {
  if (status && source) return ["status+source", status, source];
  if (status) return ["status", status];
  if (source) return ["source", source];
  return ["all"];
}
