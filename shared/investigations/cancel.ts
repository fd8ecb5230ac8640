// Cancelling an investigation (docs/api.md#cancel): a non-terminal run becomes `cancelled`, keeping its
// partial progress and findings; a terminal one is left as it is. Idempotent.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { iso, type Clock } from "../clock.js";
import { envelope, publishEvent } from "../events.js";
import { newId } from "../ids.js";
import { SUBJECTS } from "../nats/catalog.js";
import type { JsonKv } from "../nats/kvjson.js";
import { isTerminal, type InvestigationStatus } from "../schemas/investigation.js";
import { eventData, type InvestigationRecord } from "./record.js";

export type CancelOutcome = { kind: "not_found" } | { kind: "done"; ok: boolean; status: InvestigationStatus };

export interface CancelDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  investigations: JsonKv<InvestigationRecord>;
  clock: Clock;
}

export async function cancelInvestigation(deps: CancelDeps, id: string): Promise<CancelOutcome> {
  const now = deps.clock.now();
  const result = await deps.investigations.update(id, (r) => {
    if (isTerminal(r.status)) return null;
    const progress = r.progress ? { ...r.progress, phase: "cancelled" } : null;
    return {
      ...r,
      status: "cancelled",
      completed_at: iso(now),
      progress,
      error: null,
      internal: { ...r.internal, events: { ...r.internal.events, terminal: newId("evt", now) } },
    };
  });
  if (!result) return { kind: "not_found" };
  const record = result.value;
  if (result.changed) {
    // Tell a runner working on it to stop now; the runner also re-checks the record before every write.
    deps.nc.publish(SUBJECTS.cancel(id));
  }
  // A repeated cancel of a cancelled run publishes its event again (the same event id): the first call's publish may
  // have failed after the record was written (its caller got a 503 and retries). The runner working on the run
  // publishes it again too as it stops (a caller may never retry).
  if (result.changed || record.status === "cancelled") await publishTerminalEvent(deps.js, record);
  return { kind: "done", ok: record.status === "cancelled", status: record.status };
}

/** Publishes the event of a terminal state; repeats carry the same event id. */
export async function publishTerminalEvent(js: JetStreamClient, r: InvestigationRecord): Promise<void> {
  const eventId = r.internal.events.terminal;
  if (!eventId || !isTerminal(r.status)) return;
  const type = r.status === "completed" ? "investigation.completed" : r.status === "failed" ? "investigation.failed" : "investigation.cancelled";
  await publishEvent(js, envelope(eventId, type, Date.parse(r.completed_at ?? r.started_at), eventData(r)));
}
