// Asking for a bulk recovery (docs/api.md#recovery): the one record of (subscription, window), then its job. A
// repeated request finds the same record: while it is queued or running the job is published again (the stream
// keeps one copy per run within its duplicate window; a gateway that stopped between the two steps left a record
// without a job), once it is finished the request starts its next run.
import type { Clock } from "../clock.js";
import { encodeJson } from "../nats/kvjson.js";
import { WEBHOOK_SUBJECTS, type WebhookStores } from "./catalog.js";
import { checkWindow, isFinished, newRecovery, nextRun, recoveryIdFor, recoveryView, type RecoverRequest, type RecoveryJob, type RecoveryRecord, type RecoveryView } from "./recovery.js";
import { idKey } from "../ids.js";

export interface RecoveryRequestDeps {
  stores: Pick<WebhookStores, "js" | "subscriptions" | "recoveries">;
  masterKey: Buffer;
  clock: Clock;
  /** Dead-lettered deliveries of the subscription created in [sinceMs, untilMs] (the gateway's index). */
  deadLetters(subscriptionId: string, sinceMs: number, untilMs: number): Promise<number>;
}

export type RecoveryOutcome =
  | { kind: "accepted"; recovery: RecoveryView }
  | { kind: "not_found" }
  | { kind: "bad_window"; path: string; message: string };

/** How many times a request re-reads a record that changed under it before it gives up (a conflict). */
const ATTEMPTS = 5;

export async function requestRecovery(deps: RecoveryRequestDeps, subscriptionId: string, req: RecoverRequest): Promise<RecoveryOutcome> {
  const sub = await deps.stores.subscriptions.get(subscriptionId);
  if (!sub) return { kind: "not_found" };
  const now = deps.clock.now();
  const window = checkWindow(req, now);
  if (!window.ok) return { kind: "bad_window", path: window.path, message: window.message };
  const id = recoveryIdFor(subscriptionId, req.since, req.until, idKey(deps.masterKey, "webhook-recovery/v1"), Date.parse(req.since));
  // Counted from the index only for a new run (at most once per request), never to answer a run in progress.
  let deadLetters: number | null = null;
  const countDeadLetters = async (): Promise<number> => (deadLetters ??= await deps.deadLetters(subscriptionId, window.sinceMs, window.untilMs));
  for (let i = 0; i < ATTEMPTS; i++) {
    const found = await deps.stores.recoveries.get(id);
    let record: RecoveryRecord;
    if (!found) {
      const fresh = newRecovery({ id, subscriptionId, req, untilMs: window.untilMs, deadLetters: await countDeadLetters(), nowMs: now });
      if ((await deps.stores.recoveries.create(id, fresh)) === null) continue;
      record = fresh;
    } else if (!isFinished(found.value)) {
      record = found.value;
    } else {
      const next = nextRun(found.value, window.untilMs, await countDeadLetters(), now);
      const r = await deps.stores.recoveries.update(id, (current) => (current.run === found.value.run ? next : null));
      if (!r?.changed) continue;
      record = r.value;
    }
    if (record.status === "queued") await publishJob(deps, record);
    return { kind: "accepted", recovery: recoveryView(record) };
  }
  throw new Error(`recovery ${id} kept changing while it was asked for`);
}

async function publishJob(deps: RecoveryRequestDeps, r: RecoveryRecord): Promise<void> {
  const job: RecoveryJob = { recovery_id: r.recovery_id, run: r.run };
  await deps.stores.js.publish(WEBHOOK_SUBJECTS.recovery, encodeJson(job), { msgID: `${r.recovery_id}.${r.run}` });
}
