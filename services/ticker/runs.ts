// One item, one step forward: claim a due run, trigger its investigation (the same path as
// POST /v1/investigations), and re-queue the item once that investigation ends. Every step re-reads the
// item and is safe to repeat: the claim is a compare-and-set, and the trigger's idempotency key is the
// run's trigger id, so a ticker that crashed between trigger and bookkeeping (or two leaders at once)
// ends with the one investigation of that run.
import type { Clock } from "../../shared/clock.js";
import { CURIOSITY_IDEMPOTENCY_SCOPE, runContext, runTriggerId, type CuriosityRecord, type InFlightRun } from "../../shared/curiosity/record.js";
import { isDue, nextAction } from "../../shared/curiosity/schedule.js";
import type { CuriosityStore } from "../../shared/curiosity/store.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { triggerInvestigation, type TriggerDeps } from "../../shared/investigations/trigger.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { isTerminal } from "../../shared/schemas/investigation.js";
import { assertNever } from "../../shared/never.js";
import type { TickerMetrics } from "./metrics.js";

export interface RunDeps {
  store: CuriosityStore;
  trigger: TriggerDeps;
  investigations: JsonKv<InvestigationRecord>;
  clock: Clock;
  log: Logger;
  metrics?: TickerMetrics;
}

export type StepOutcome =
  | { kind: "idle" }
  | { kind: "gone" }
  | { kind: "running"; investigationId: string }
  | { kind: "finished"; record: CuriosityRecord }
  /** The trigger could not queue (backlog over its limit): try again at `at`. */
  | { kind: "retry"; at: number };

const CONFLICT_RETRY_MS = 30_000;
const TOO_LARGE_RETRY_MS = 3_600_000;

export async function advanceItem(deps: RunDeps, id: string, again = true): Promise<StepOutcome> {
  const now = deps.clock.now();
  let record = await deps.store.get(id);
  if (!record) return { kind: "gone" };
  let action = nextAction(record, now);
  if (action.kind === "claim") {
    const claimed = await deps.store.claim(id, now);
    if (claimed.kind === "gone") return { kind: "gone" };
    record = claimed.record;
    action = nextAction(record, now);
    if (claimed.kind === "changed") {
      deps.log.debug({ curiosity_id: id, run: record.internal.in_flight?.run }, "run claimed");
      deps.metrics?.lateness.observe(Math.max(0, now - Date.parse(record.next_run_at)) / 1000);
    }
  }
  if (action.kind === "trigger") {
    const triggered = await triggerRun(deps, record, action.run);
    if (triggered.kind !== "queued") return triggered.outcome;
    const attached = await deps.store.attach(id, action.run.run, triggered.investigationId);
    if (attached.kind === "gone") return { kind: "gone" };
    record = attached.record;
    action = nextAction(record, now);
  }
  if (action.kind !== "watch") return { kind: "idle" };
  const watched = await watchRun(deps, record, action.investigationId);
  // A run that ended long after its successor fell due: start that one now rather than on the next pass.
  if (watched.kind === "finished" && again && isDue(watched.record, deps.clock.now())) return advanceItem(deps, id, false);
  return watched;
}

type Fired = { kind: "queued"; investigationId: string } | { kind: "not_queued"; outcome: StepOutcome };

async function triggerRun(deps: RunDeps, record: CuriosityRecord, run: InFlightRun): Promise<Fired> {
  // The run's investigation exists: a ticker triggered it and stopped before recording it on the item (then perhaps
  // a pause held the run for longer than the idempotency record lives). Recorded as it is, not triggered again.
  const reserved = run.reserved_investigation_id;
  if (reserved !== undefined && (await deps.investigations.get(reserved))) {
    deps.log.info({ curiosity_id: record.id, trigger_id: runTriggerId(record.id, run.run), investigation_id: reserved }, "curiosity run was triggered already");
    return { kind: "queued", investigationId: reserved };
  }
  // A DELETE or a pause answered since the item was read (by the claim, say) wins over the trigger: read it again
  // right before. One landing while the trigger itself runs (a few round trips) is concurrent with it; the run then
  // counts as triggered first, and is left alone like any other.
  const current = await deps.store.get(record.id);
  if (!current) return { kind: "not_queued", outcome: { kind: "gone" } };
  const still = nextAction(current, deps.clock.now());
  if (still.kind !== "trigger" || still.run.run !== run.run) return { kind: "not_queued", outcome: { kind: "idle" } };
  return fire(deps, current, still.run, reserved);
}

/** The trigger of a run, under its idempotency key and with `investigationId` when its id is fixed already. */
async function fire(deps: RunDeps, record: CuriosityRecord, run: InFlightRun, investigationId: string | undefined): Promise<Fired> {
  const triggerId = runTriggerId(record.id, run.run);
  const log = deps.log.child({ curiosity_id: record.id, trigger_id: triggerId });
  const outcome = await triggerInvestigation(deps.trigger, {
    request: run.request,
    idempotencyKey: triggerId,
    idempotencyScope: CURIOSITY_IDEMPOTENCY_SCOPE,
    ownerKeyId: record.internal.owner_key_id,
    // The run compares its findings with the item's previous completed run (the item records it only when a run
    // ends, so it is the same now as while this run executes): the runner reads it from here, not the item.
    context: runContext(record.id, run.run, record.internal.last_completed_investigation_id),
    // Absent its idempotency record (expired), a retried trigger still makes the one investigation of this run.
    investigationId,
  });
  switch (outcome.kind) {
    case "queued":
      if (!outcome.replayed) deps.metrics?.triggered.inc();
      log.info({ investigation_id: outcome.investigationId, replayed: outcome.replayed }, "curiosity run triggered");
      return { kind: "queued", investigationId: outcome.investigationId };
    case "rate_limited":
      log.warn({ retry_after_s: outcome.retryAfterSeconds }, "backlog over its limit; the run waits");
      return { kind: "not_queued", outcome: { kind: "retry", at: deps.clock.now() + outcome.retryAfterSeconds * 1000 } };
    case "conflict":
      // Cannot happen while the claimed request is replayed as stored; say so loudly rather than fire twice.
      log.error("idempotency record of this run holds another request; not triggering");
      return { kind: "not_queued", outcome: { kind: "retry", at: deps.clock.now() + CONFLICT_RETRY_MS } };
    case "invalid":
      // The API refuses such an item (and a PATCH making it one): only an item stored before it did gets here. Its
      // claimed run keeps the request it was claimed with, so it waits for good: say so once an hour.
      log.error({ details: outcome.details }, "this item's question and scope cannot be triggered (invalid, or too large to store); not triggering");
      return { kind: "not_queued", outcome: { kind: "retry", at: deps.clock.now() + TOO_LARGE_RETRY_MS } };
    default:
      return assertNever(outcome, "outcome");
  }
}

async function watchRun(deps: RunDeps, record: CuriosityRecord, investigationId: string): Promise<StepOutcome> {
  const run = record.internal.in_flight;
  if (!run) return { kind: "idle" };
  const found = await deps.investigations.get(investigationId);
  const inv = found?.value;
  // No record: the trigger answered queued, so its work is in the work stream (kept until a runner takes it) and
  // the runner writes the record from it; only the trigger's own write failed (a timeout after the work was
  // acknowledged). The run is still queued, not over. Its trigger is repeated under the same key and id: that
  // writes the record from the idempotency record (or drafts it again under the same id once that expired) and
  // re-queues the work (the stream drops a duplicate within its window; past it the runner finds the run taken), so
  // a record lost for good cannot hold the item forever either.
  if (!inv) {
    deps.log.warn({ curiosity_id: record.id, investigation_id: investigationId }, "the investigation of a curiosity run has no record; triggering it again under its id");
    const again = await fire(deps, record, run, investigationId);
    return again.kind === "queued" ? { kind: "running", investigationId } : again.outcome;
  }
  if (!isTerminal(inv.status)) return { kind: "running", investigationId };
  const now = deps.clock.now();
  const endedAt = inv.completed_at ? Date.parse(inv.completed_at) : now;
  const finished = await deps.store.finish(record.id, run.run, { investigationId, endedAt, completed: inv.status === "completed" }, now);
  if (finished.kind === "gone") return { kind: "gone" };
  return { kind: "finished", record: finished.record };
}
