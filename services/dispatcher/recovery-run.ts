// One run of a bulk recovery (docs/api.md#recovery): read the EVENTS stream over the window, and for each event the
// subscription was owed, look up the delivery the fan-out made of it; a dead letter or a missing delivery is sent
// again as a new delivery (one id per recovery, run and event), a dead letter only if no re-send of it (a replay by
// hand, another recovery's) is delivered or pending, and only by the one recovery that claims it (`claimDeadLetter`).
// The cursor and the counters are saved together in the recovery record every few hundred
// events, so a run that stops (kill -9, shutdown) resumes after the last saved event; events after it are looked at again, and their re-sends, having the same ids, are not made twice.
// The scan ends at the last event the fan-out has settled (`settledSeq`): past it, "no delivery" may only mean the
// fan-out has not recorded it yet, and sending it would make the subscriber get it twice.
import { DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import { iso } from "../../shared/clock.js";
import { ConflictError } from "../../shared/errors.js";
import type { Logger } from "../../shared/log.js";
import { STREAMS } from "../../shared/nats/catalog.js";
import { isNotFound } from "../../shared/nats/errors.js";
import { tryDecodeJson, type Versioned } from "../../shared/nats/kvjson.js";
import { EventEnvelope } from "../../shared/schemas/events.js";
import { checker } from "../../shared/validate.js";
import { WEBHOOK_CONSUMERS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, noteReplay, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { deliveryIdFor, onItsSubject } from "../../shared/webhooks/fanout.js";
import { isFinished, recoveryAction, resendIdFor, wasOwed, type RecoveryRecord } from "../../shared/webhooks/recovery.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";

const eventEnvelope = checker(EventEnvelope);
/** Progress is saved after this many events, or this often, whichever comes first. */
const SAVE_EVERY_EVENTS = 250;
const SAVE_EVERY_MS = 1_000;
const FETCH_BATCH = 256;
const FETCH_EXPIRES_MS = 2_000;

export interface RecoveryRunDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stores: Pick<WebhookStores, "js" | "deliveries" | "recoveries">;
  subscription(id: string): Promise<SubscriptionRecord | null>;
  /** `deliveryIdKey(master key)`: the fan-out's delivery ids, and the re-sends'. */
  deliveryIdKey: Buffer;
  clock: Clock;
  log: Logger;
  /** True once the dispatcher is stopping: the run saves where it is and hands the job back. */
  stopping(): boolean;
}

export type RunOutcome = "finished" | "handed_back" | "not_ours";

/** Works the run `run` of recovery `id` for the job message at `jobSeq`, to its end or until the dispatcher stops. */
export async function runRecovery(deps: RecoveryRunDeps, id: string, run: number, jobSeq: number): Promise<RunOutcome> {
  const claimed = await claim(deps, id, run, jobSeq);
  if (claimed === null) return "not_ours";
  let record = claimed;
  const sub = await deps.subscription(record.subscription_id);
  if (!sub) return (await finish(deps, record, "failed", "subscription_deleted")) ? "finished" : "not_ours";

  const consumer = await deps.js.consumers.get(STREAMS.events.name, {
    filter_subjects: "events.>",
    ...(record.internal.cursor_seq > 0
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: record.internal.cursor_seq + 1 }
      : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: record.since }),
  });
  const untilMs = Date.parse(record.until);
  const endSeq = record.internal.end_seq ?? 0;
  let pending = unsaved(record);
  let savedAt = deps.clock.now();
  const save = async (): Promise<void> => {
    const saved = await saveProgress(deps, record, jobSeq, pending);
    if (saved === null) throw new Error(`recovery ${id} run ${run} was taken over`);
    record = saved;
    pending = unsaved(record);
    savedAt = deps.clock.now();
  };

  // Whether the window goes on past `endSeq`: those events are left to the fan-out, and the result says so.
  let leftOver = false;
  let done = false;
  while (!done) {
    if (deps.stopping()) {
      await save();
      return "handed_back";
    }
    const batch = await consumer.fetch({ max_messages: FETCH_BATCH, expires: FETCH_EXPIRES_MS });
    let got = 0;
    for await (const msg of batch) {
      got++;
      if (msg.seq > endSeq || msg.time.getTime() > untilMs) {
        leftOver = msg.time.getTime() <= untilMs;
        done = true;
        batch.stop();
        break;
      }
      pending.startSeq ??= msg.seq;
      const action = await handleEvent(deps, record, sub, msg);
      pending.scanned++;
      if (action === "dead_letter") pending.deadLetters++;
      if (action === "missed") pending.missed++;
      pending.cursor = msg.seq;
      // At `endSeq` with more stored after it, the next event is read to tell whether the window goes on past it.
      if (msg.info.pending === 0) {
        done = true;
        batch.stop();
        break;
      }
      if (pending.scanned >= SAVE_EVERY_EVENTS || deps.clock.now() - savedAt >= SAVE_EVERY_MS) await save();
    }
    if (got === 0) done = true; // nothing left in the stream after the cursor
  }
  await save();
  const left = leftOver ? Math.max(0, (record.internal.last_seq ?? endSeq) - endSeq) : 0;
  return (await finish(deps, record, "completed", null, left)) ? "finished" : "not_ours";
}

/**
 * The last event the fan-out has settled: its durable acks an event only once every delivery of it is recorded or
 * enqueued (fanout-consumer.ts), so up to its ack floor "no delivery" means it made none. No durable yet: nothing.
 */
async function settledSeq(deps: RecoveryRunDeps, lastSeq: number): Promise<number> {
  const { stream, durable } = WEBHOOK_CONSUMERS.fanout;
  try {
    return Math.min(lastSeq, (await deps.jsm.consumers.info(stream, durable)).ack_floor.stream_seq);
  } catch (err) {
    if (isNotFound(err)) return 0;
    throw err;
  }
}

/** The run's record, claimed for this job message; null when it is another run's, another job's or finished. */
async function claim(deps: RecoveryRunDeps, id: string, run: number, jobSeq: number): Promise<RecoveryRecord | null> {
  const lastSeq = (await deps.jsm.streams.info(STREAMS.events.name)).state.last_seq;
  const endSeq = await settledSeq(deps, lastSeq);
  const r = await deps.stores.recoveries.update(id, (current) => {
    if (current.run !== run || isFinished(current)) return null;
    const owner = current.internal.job_seq ?? null;
    if (owner !== null && owner !== jobSeq) return null;
    if (owner === jobSeq && current.status === "running") return null; // ours already (a redelivered job resumes)
    return {
      ...current,
      status: "running",
      updated_at: iso(deps.clock.now()),
      internal: {
        ...current.internal,
        job_seq: jobSeq,
        // A resumed run keeps the end its first claim set.
        ...((current.internal.end_seq ?? null) === null ? { end_seq: endSeq, last_seq: lastSeq } : {}),
      },
    };
  });
  if (!r) return null;
  const ours = r.value.run === run && r.value.status === "running" && r.value.internal.job_seq === jobSeq;
  return ours ? r.value : null;
}

async function handleEvent(deps: RecoveryRunDeps, record: RecoveryRecord, sub: SubscriptionRecord, msg: JsMsg): Promise<"dead_letter" | "missed" | "skip"> {
  const parsed = eventEnvelope.check(tryDecodeJson(msg.data));
  if (!parsed.ok) return "skip";
  const event = parsed.value;
  // Refused by the fan-out (fanout-consumer.ts), so never owed: no record is no reason to send it now.
  if (!onItsSubject(msg.subject, event)) return "skip";
  const storedAtMs = msg.time.getTime();
  if (!wasOwed(sub, event, storedAtMs)) return "skip";
  const originalId = deliveryIdFor(event, sub.id, storedAtMs, deps.deliveryIdKey);
  const original = await deps.stores.deliveries.get(originalId);
  const action = recoveryAction(original?.value ?? null);
  if (action === "skip") return action;
  // An earlier run of the same window re-sent it already: left alone unless that re-send was dead-lettered too and no
  // replay of it (by hand, a few deep) is delivered or pending. A missed event has no dead letter whose record notes
  // those replays, so they are looked for here; one noted but not enqueued is sent under its id, as for a dead letter.
  for (let run = 1; run < record.run; run++) {
    const earlier = (await deps.stores.deliveries.get(resendIdFor(record.recovery_id, run, event, deps.deliveryIdKey)))?.value;
    if (!earlier) continue;
    if (earlier.status !== "failed_permanent") return "skip";
    const standing = await resendStanding(deps, earlier);
    if (standing === "stands") return "skip";
    if (standing !== null) {
      const noted = newDeliveryRecord({ deliveryId: standing.id, subscriptionId: sub.id, envelope: event, nowMs: deps.clock.now(), replayOf: standing.replayOf });
      await enqueueDelivery(deps.stores, noted, { recheck: true });
      return "skip";
    }
  }
  const ownId = resendIdFor(record.recovery_id, record.run, event, deps.deliveryIdKey);
  // A dead letter is claimed first: another recovery or a replay by hand may be sending it again at the same moment.
  const send = original !== null ? await claimDeadLetter(deps, original, ownId) : { id: ownId, replayOf: null };
  if (send === null) return "skip";
  const resend = newDeliveryRecord({ deliveryId: send.id, subscriptionId: sub.id, envelope: event, nowMs: deps.clock.now(), replayOf: send.replayOf });
  // recheck: an event looked at again after a restart is not published twice once its re-send has started.
  await enqueueDelivery(deps.stores, resend, { recheck: true });
  // A re-send noted by another (whose enqueue had not happened yet, or failed) is enqueued under its id, and counted by it.
  return send.id === ownId ? action : "skip";
}

/** How many times a claim reads the dead letter again after another writer noted something on it first. */
const CLAIM_ATTEMPTS = 10;

/**
 * Claims a dead letter for the run's re-send `ownId`: noted in its record (`internal.replays`, as a replay by hand is)
 * by compare-and-set against the revision whose noted re-sends were found not to stand. Of two recoveries (two
 * dispatchers) or a recovery and a replay finding it at once, one notes first; the other's write fails, and it reads
 * the record again and finds that re-send. What to send (the id and the delivery it replays), or null: a re-send
 * of it is delivered or pending.
 */
async function claimDeadLetter(deps: RecoveryRunDeps, read: Versioned<DeliveryRecord>, ownId: string): Promise<{ id: string; replayOf: string } | null> {
  const originalId = read.value.delivery_id;
  for (let i = 0; i < CLAIM_ATTEMPTS; i++) {
    const found = i === 0 ? read : await deps.stores.deliveries.get(originalId);
    if (!found || found.value.status !== "failed_permanent") return null;
    // Claimed by this run already (an event looked at again after a restart): its re-send is enqueued (again).
    if (found.value.internal.replays?.includes(ownId)) return { id: ownId, replayOf: originalId };
    const standing = await resendStanding(deps, found.value);
    if (standing === "stands") return null;
    if (standing !== null) return standing;
    if ((await deps.stores.deliveries.replace(originalId, noteReplay(found.value, ownId), found.revision)) !== null) return { id: ownId, replayOf: originalId };
  }
  throw new ConflictError(`dead letter ${originalId} kept changing while a recovery claimed it`);
}

/** How many replays of replays deep `resendStanding` looks (a dead letter replayed, that replay replayed, ...). */
const REPLAY_DEPTH = 4;

/**
 * Whether a re-send of the delivery noted in its record (a replay by hand, a recovery's; or of such a re-send, a few
 * deep) is delivered or still pending ("stands"): the subscriber got the event or is getting it, and sending it again
 * would make it twice. Else one noted but without a record (its enqueue has not happened yet, or failed: nothing
 * reached the subscriber), which is sent under its own id, so that it is sent once whether or not its enqueue comes;
 * null when every one was dead-lettered too.
 */
async function resendStanding(deps: RecoveryRunDeps, record: DeliveryRecord, depth = 0): Promise<"stands" | { id: string; replayOf: string } | null> {
  let unsent: { id: string; replayOf: string } | null = null;
  for (const id of record.internal.replays ?? []) {
    const replay = (await deps.stores.deliveries.get(id))?.value;
    if (!replay) {
      unsent = { id, replayOf: record.delivery_id }; // the newest such
      continue;
    }
    if (replay.status !== "failed_permanent") return "stands";
    const deeper = depth < REPLAY_DEPTH ? await resendStanding(deps, replay, depth + 1) : null;
    if (deeper === "stands") return deeper;
    unsent = deeper ?? unsent;
  }
  return unsent;
}

/** Progress since the last save: counts to add, and where the scan stands. */
interface Progress {
  scanned: number;
  deadLetters: number;
  missed: number;
  cursor: number;
  startSeq: number | null;
}

/** Nothing counted yet since `record` was saved; the scan stands where it says. */
function unsaved(record: RecoveryRecord): Progress {
  return { scanned: 0, deadLetters: 0, missed: 0, cursor: record.internal.cursor_seq, startSeq: record.internal.start_seq };
}

async function saveProgress(deps: RecoveryRunDeps, record: RecoveryRecord, jobSeq: number, p: Progress): Promise<RecoveryRecord | null> {
  const r = await deps.stores.recoveries.update(record.recovery_id, (current) => {
    if (current.run !== record.run || current.internal.job_seq !== jobSeq || isFinished(current)) return null;
    const endSeq = current.internal.end_seq ?? 0;
    const startSeq = p.startSeq ?? current.internal.start_seq;
    return {
      ...current,
      events_scanned: current.events_scanned + p.scanned,
      events_total: startSeq === null ? current.events_total : Math.max(0, endSeq - startSeq + 1),
      resent_dead_letters: current.resent_dead_letters + p.deadLetters,
      resent_missed: current.resent_missed + p.missed,
      updated_at: iso(deps.clock.now()),
      internal: { ...current.internal, cursor_seq: p.cursor, start_seq: startSeq },
    };
  });
  return r?.changed ? r.value : null;
}

async function finish(deps: RecoveryRunDeps, record: RecoveryRecord, status: "completed" | "failed", error: string | null, leftToFanout: number | null = null): Promise<boolean> {
  const now = iso(deps.clock.now());
  const r = await deps.stores.recoveries.update(record.recovery_id, (current) =>
    current.run !== record.run || isFinished(current) ? null : { ...current, status, error, events_left_to_fanout: leftToFanout, updated_at: now, completed_at: now },
  );
  return r?.changed ?? false;
}
