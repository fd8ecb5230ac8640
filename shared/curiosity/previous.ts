// "New since last run" (docs/engine.md#standing-questions): the findings a curiosity run is compared with are those of the
// item's latest completed run. The ticker names that run in the trigger context (`previous_investigation_id`)
// when it triggers the next one, so the runner needs nothing but the investigations bucket.
import type { FindingsStore } from "../investigations/findings-store.js";
import type { InvestigationRecord } from "../investigations/record.js";
import type { JsonKv } from "../nats/kvjson.js";
import type { Finding } from "../schemas/investigation.js";

/**
 * The findings of the previous completed run of the same curiosity item: null when `record` is not a
 * curiosity run (no marking), [] when it is the item's first completed run (everything is new).
 */
export async function previousRunFindings(investigations: JsonKv<InvestigationRecord>, record: InvestigationRecord, findings?: FindingsStore): Promise<Finding[] | null> {
  const curiosityId = record.context.curiosity_id;
  if (record.context.trigger_source !== "curiosity" || !curiosityId) return null;
  const previousId = record.context.previous_investigation_id ?? null;
  if (previousId === null || previousId === record.investigation_id) return [];
  const previous = await investigations.get(previousId);
  if (!previous || previous.value.context.curiosity_id !== curiosityId) return [];
  // The record carries the most severe only; all of them are in the findings bucket (docs/nats.md#findings).
  const ref = previous.value.internal.findings_ref;
  return ref && findings ? findings.all(previousId, ref) : previous.value.findings;
}
