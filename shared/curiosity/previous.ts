// "New since last run" (ENGINE.md "Standing questions"): the findings a curiosity run is compared with are
// those of the item's latest completed run. The item is re-queued (and its last completed run recorded)
// only when a run ends, so while run N executes the record still points at run N-1 or earlier.
import type { InvestigationRecord } from "../investigations/record.js";
import type { JsonKv } from "../nats/kvjson.js";
import type { Finding } from "../schemas/investigation.js";
import type { CuriosityRecord } from "./record.js";

export interface PreviousFindingsDeps {
  items: JsonKv<CuriosityRecord>;
  investigations: JsonKv<InvestigationRecord>;
}

/**
 * The findings of the previous completed run of the same curiosity item: null when `record` is not a
 * curiosity run (no marking), [] when it is the item's first completed run (everything is new).
 */
export async function previousRunFindings(deps: PreviousFindingsDeps, record: InvestigationRecord): Promise<Finding[] | null> {
  const curiosityId = record.context.curiosity_id;
  if (record.context.trigger_source !== "curiosity" || !curiosityId) return null;
  const item = await deps.items.get(curiosityId);
  const previousId = item?.value.internal.last_completed_investigation_id ?? null;
  if (previousId === null || previousId === record.investigation_id) return [];
  const previous = await deps.investigations.get(previousId);
  if (!previous || previous.value.context.curiosity_id !== curiosityId) return [];
  return previous.value.findings;
}
