// One delivery job, start to finish: check the record and the subscription, POST the signed envelope, record
// the attempt, and say what happens to the job. Attempts are counted in the record (never the message's
// delivery count), so a job that waits for a paused subscription spends none.
import type { Clock } from "../../shared/clock.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv, Versioned } from "../../shared/nats/kvjson.js";
import { signatureHeaders } from "../../shared/signing.js";
import { owesAnnouncements, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { abandonDelivery, classify, precheck, recordAttempt, type AttemptResult, type JobAction } from "../../shared/webhooks/delivery-state.js";
import type { ResumedFrom } from "../../shared/webhooks/catalog.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { announceOwed, isGone, withAnnouncementsOwed } from "./announcements.js";
import type { AttemptObserver } from "./metrics.js";
import type { Send } from "./sender.js";
import { assertNever } from "../../shared/never.js";

export interface DeliverDeps {
  deliveries: JsonKv<DeliveryRecord>;
  /** Announces a delivery recorded as failed for good (delivery.dead_lettered; announcements.ts). */
  deadLettered?(record: DeliveryRecord): Promise<void>;
  /** Told of every attempt recorded, with the delivery's status after it (metrics). */
  observe?: AttemptObserver;
  /** Turns a subscription off when its endpoint answered 410 Gone, announcing it (failing-endpoints.ts, announcements.ts). */
  disableGone?(sub: SubscriptionRecord, record: DeliveryRecord): Promise<void>;
  /** Told of each attempt recorded: keeps the subscription's failing window (failing-endpoints.ts). */
  noteOutcome?(sub: SubscriptionRecord, record: DeliveryRecord, delivered: boolean, attemptStartedMs: number): Promise<void>;
  subscription(id: string): Promise<SubscriptionRecord | null>;
  secretOf(sub: SubscriptionRecord): string;
  /** The subscription's custom headers, opened (docs/api.md#subscription-options); absent: none. */
  headersOf?(sub: SubscriptionRecord): Record<string, string>;
  /**
   * Runs `post` once one of the subscription's request slots is free (key-slots.ts): the endpoint never has
   * more than INQUEST_SUBSCRIPTION_CONCURRENCY requests from this dispatcher in flight. Absent: no limit.
   */
  requestSlot?(subscriptionId: string, post: () => Promise<Posted>): Promise<Posted>;
  /**
   * performance.now() at which this dispatcher last saw the subscription turned on again (subscription-cache.ts:
   * resumedAt), -Infinity if never. Absent: never (no resumed copies to yield to).
   */
  resumedAt?(subscriptionId: string): number;
  /** Admits a POST under the subscription's per-second limit: 0 to go, else ms to wait (rate-gate.ts). */
  rateGate?(subscriptionId: string, limit: number): Promise<number>;
  /** The old secret while a rotation's grace period lasts at `nowMs`, else null. */
  previousSecretOf?(sub: SubscriptionRecord, nowMs: number): string | null;
  send: Send;
  clock: Clock;
  log: Logger;
  retryDelaysMs: readonly number[];
  /** Outbound request timeout unless the subscription sets its own. */
  timeoutMs: number;
  /**
   * How long a job of a paused (or turned off) subscription waits before it looks again: half as long as the
   * subscription has been off so far (`pausedWait`), at least the first, at most the second.
   */
  pausedRecheckMs: number;
  pausedRecheckMaxMs: number;
  /** `Inquest-Webhooks/<version>`. */
  userAgent: string;
}

export interface Job {
  deliveryId: string;
  /** Stream sequence of the job message: identifies the job that owns the delivery. */
  seq: number;
  /** How many times JetStream has handed out this job (1 the first time). */
  deliveryCount: number;
  /** The record to create when there is none yet (`recordFromJob`); null for a job without a seed. */
  seed: DeliveryRecord | null;
  /** A resumed subscription's held job published again (resume.ts): the job it takes the delivery over from. */
  resumes?: ResumedFrom;
}

/**
 * A job without a seed whose record is missing looks again this often, this many times in all, before it is
 * dropped (a record written by an older publisher right after its job, or one that expired).
 */
export const MISSING_RECORD_RETRY_MS = 1_000;
export const MISSING_RECORD_DELIVERIES = 5;

/**
 * The request of one attempt: the stored envelope's bytes, the subscription's custom headers, and every header of
 * docs/api.md#webhooks (last, so none of them can be replaced; the API refuses those names anyway).
 */
export function buildRequest(
  deps: Pick<DeliverDeps, "userAgent" | "clock">,
  record: DeliveryRecord,
  secret: string,
  previousSecret: string | null = null,
  custom: Record<string, string> = {},
): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(JSON.stringify(record.envelope), "utf8");
  return {
    body,
    headers: {
      ...custom,
      "Content-Type": "application/json",
      "User-Agent": deps.userAgent,
      "X-Service-Event": record.event_type,
      "X-Service-Delivery": record.delivery_id,
      ...signatureHeaders({ secret, previousSecret, eventId: record.event_id, timestamp: Math.floor(deps.clock.now() / 1000), body }),
    },
  };
}

/** What a job does when the record is not (or no longer) ours to attempt: follow the record as it stands. */
function followRecord(record: DeliveryRecord | null, nowMs: number): JobAction {
  if (!record) return { kind: "term", reason: "delivery record not found" };
  if (record.status !== "pending") return { kind: "ack" };
  const due = record.next_attempt_at === null ? nowMs : Date.parse(record.next_attempt_at);
  return { kind: "nak", delayMs: Math.max(0, due - nowMs) };
}

/**
 * The delivery's record with its revision; a job that finds none creates it from its seed (its publisher stopped or
 * is not there yet). The revision lets the attempt be recorded without reading the record again.
 */
async function loadRecord(deps: DeliverDeps, job: Job): Promise<Versioned<DeliveryRecord> | null> {
  const found = await deps.deliveries.get(job.deliveryId);
  if (found) return found;
  if (!job.seed || job.seed.delivery_id !== job.deliveryId) return null;
  // Whoever creates it first (this job or the publisher) makes the one record; the other finds it.
  const revision = await deps.deliveries.create(job.deliveryId, job.seed);
  if (revision !== null) return { value: job.seed, revision };
  return deps.deliveries.get(job.deliveryId);
}

/**
 * A resumed copy of a held job (resume.ts) becomes the delivery's owner, so the held job, when it comes back from
 * its wait, finds it owned by another and is dropped. Only while the held job still owns it (or no job does) and has
 * made no attempt since the copy was published; otherwise the copy has nothing to do ("yield").
 */
async function takeOver(deps: DeliverDeps, job: Job, loaded: Versioned<DeliveryRecord> | null): Promise<Versioned<DeliveryRecord> | null | "yield"> {
  const from = job.resumes;
  if (!from || !loaded || loaded.value.internal.job_seq === job.seq) return loaded;
  const heldStill = (d: DeliveryRecord) => d.status === "pending" && d.attempt_count === from.attempts && (d.internal.job_seq === null || d.internal.job_seq === from.seq);
  if (!heldStill(loaded.value)) return "yield";
  const r = await deps.deliveries.update(loaded.value.delivery_id, (d) => (heldStill(d) ? { ...d, internal: { ...d.internal, job_seq: job.seq } } : null), undefined, loaded);
  return r?.value.internal.job_seq === job.seq ? r : "yield";
}

/**
 * How long after a dispatcher saw a resume its jobs of that subscription still look at their record again before
 * their POST: the copies (resume.ts) are published by a scan right after the resume and handed out at once, so one
 * can take over a delivery whose job was loaded a little after the resume (as long as it has made no attempt yet).
 */
export const RESUME_SETTLE_MS = 60_000;

/**
 * Whether the job still owns the delivery right before its POST. Read again only when the subscription was resumed
 * after (or shortly before) the job loaded its record: a resumed copy may have taken the delivery over meanwhile
 * while the job waited for its request slot. Otherwise nothing else takes over a delivery between the load and the
 * POST without an attempt the record write would catch, and the normal path adds no read.
 */
async function stillOwned(deps: DeliverDeps, job: Job, current: DeliveryRecord, loadedAtMs: number): Promise<{ owned: true } | { owned: false; record: DeliveryRecord | null }> {
  if (!deps.resumedAt || deps.resumedAt(current.subscription_id) < loadedAtMs - RESUME_SETTLE_MS) return { owned: true };
  const d = (await deps.deliveries.get(current.delivery_id))?.value ?? null;
  return d && ownsAttempt(d, current, job) ? { owned: true } : { owned: false, record: d };
}

/** The record `d` still has the attempt this job read in `current` to make, and no other job owns it. */
function ownsAttempt(d: DeliveryRecord, current: DeliveryRecord, job: Job): boolean {
  return d.status === "pending" && d.attempt_count === current.attempt_count && (d.internal.job_seq === null || d.internal.job_seq === job.seq);
}

export async function deliverJob(deps: DeliverDeps, job: Job): Promise<JobAction> {
  const loadedAtMs = performance.now();
  const loaded = await takeOver(deps, job, await loadRecord(deps, job));
  if (loaded === "yield") return { kind: "ack" };
  const record = loaded?.value ?? null;
  // An attempt recorded with its announcements still owed (their publish failed, or the dispatcher stopped): they
  // are published now, and the attempt is not made again (its record is terminal).
  if (record && owesAnnouncements(record)) {
    await announceOwed(deps, record);
    return followRecord(record, deps.clock.now());
  }
  const check = precheck(record, job.seq, deps.clock.now());
  switch (check.kind) {
    case "gone":
      if (job.seed === null && job.deliveryCount < MISSING_RECORD_DELIVERIES) return { kind: "nak", delayMs: MISSING_RECORD_RETRY_MS };
      return { kind: "term", reason: "delivery record not found (expired?)" };
    case "done":
      return { kind: "ack" };
    case "wait":
      return { kind: "nak", delayMs: check.delayMs };
    case "attempt":
      break;
    default:
      return assertNever(check, "precheck");
  }
  const current = record as DeliveryRecord;

  // The subscription is looked at once a request slot is ours, right before the POST: a job that waited for the
  // slot never posts to a subscription deleted or paused meanwhile, nor a delivery a resumed copy took over.
  let lost: { record: DeliveryRecord | null } | null = null;
  const owned = async () => {
    const seen = await stillOwned(deps, job, current, loadedAtMs);
    lost = seen.owned ? null : { record: seen.record };
    return seen.owned;
  };
  const post = () => postAttempt(deps, current, owned);
  const posted = deps.requestSlot ? await deps.requestSlot(current.subscription_id, post) : await post();
  // Another job owns the delivery now (or it is done): this one is dropped, as in `takeOver`. Still pending and
  // this job's (another hand-out of this same job made an attempt meanwhile): it follows the record, as after any
  // attempt, so the retry it owes keeps its job.
  if (lost) {
    const d = (lost as { record: DeliveryRecord | null }).record;
    if (d && d.status === "pending" && (d.internal.job_seq === null || d.internal.job_seq === job.seq)) return followRecord(d, deps.clock.now());
    return { kind: "ack" };
  }
  if (posted.kind === "deleted") {
    const r = await deps.deliveries.update(current.delivery_id, (d) =>
      precheck(d, job.seq, deps.clock.now()).kind === "done" ? null : abandonDelivery(d, deps.clock.now(), "subscription_deleted"),
    );
    // Still pending here means another job owns the delivery: this copy is dropped.
    return r?.value.status === "pending" ? { kind: "ack" } : { kind: "term", reason: "subscription deleted" };
  }
  if (posted.kind === "wait") return { kind: "nak", delayMs: posted.delayMs };
  const { result, startedMs, endedMs } = posted;

  const step: { action: JobAction | null } = { action: null };
  const updated = await deps.deliveries.update(
    current.delivery_id,
    (d) => {
      // Only the job that read this state may record its attempt (a concurrent copy of the job or a deletion in
      // between leaves the record as the other writer made it).
      if (!ownsAttempt(d, current, job)) return null;
      const next = recordAttempt(d, { startedMs, endedMs, result, retryDelaysMs: deps.retryDelaysMs, jobSeq: job.seq });
      step.action = next.action;
      return withAnnouncementsOwed(deps, result, next.record);
    },
    undefined,
    // The record as this job read it: written against without reading it again (a change since costs a conflict).
    loaded ?? undefined,
  );
  if (!updated) return { kind: "term", reason: "delivery record vanished" };
  if (updated.changed && step.action !== null) {
    await afterRecording(deps, posted, updated.value);
    // A failure here leaves them owed in the record; the job comes back for them alone.
    await announceOwed(deps, updated.value, posted.sub);
  }
  const done = step.action;
  if (!updated.changed || done === null) return followRecord(updated.value, deps.clock.now());
  if (done.kind === "nak") {
    // The delay counts from the end of the attempt (next_attempt_at), not from when the record was written.
    const due = Date.parse(updated.value.next_attempt_at ?? "") || deps.clock.now();
    return { kind: "nak", delayMs: Math.max(0, due - deps.clock.now()) };
  }
  return done;
}

export type Sent = { kind: "sent"; sub: SubscriptionRecord; result: AttemptResult; startedMs: number; endedMs: number };
export type Posted = { kind: "deleted" } | { kind: "wait"; delayMs: number } | Sent;

/** Whether a POST came back a success (for EndpointHealth: anything else is not a healthy endpoint). */
export function postedDelivered(posted: Posted): boolean {
  return posted.kind !== "sent" || classify(posted.result) === "delivered";
}

/** What happens once the attempt is recorded (`recorded`): metrics and the subscription's failing window. */
export async function afterRecording(deps: DeliverDeps, posted: Sent, recorded: DeliveryRecord): Promise<void> {
  const { sub, result, startedMs } = posted;
  deps.observe?.(result, recorded.status);
  // Not for a 410: that turned the subscription off already. The attempt is recorded whatever happens here: a
  // failing-window write that fails is caught up by the next attempt's.
  if (isGone(result)) return;
  await deps.noteOutcome?.(sub, recorded, recorded.status === "delivered", startedMs).catch((err: unknown) => {
    deps.log.warn({ err, subscription_id: sub.id }, "could not note the attempt in the subscription's failing window");
  });
}

/**
 * The attempt's POST, if the subscription still exists, is on, the job still `owned` the delivery, and its rate limit
 * admits it (else why not; not owned: wait 0, the caller knows): what holds one of the subscription's request slots,
 * so a slot is never held for the record's reads and writes (but the rare one of `stillOwned`).
 */
export async function postAttempt(deps: DeliverDeps, current: DeliveryRecord, owned?: () => Promise<boolean>): Promise<Posted> {
  const sub = await deps.subscription(current.subscription_id);
  if (!sub) return { kind: "deleted" };
  if (!sub.active) return { kind: "wait", delayMs: pausedWait(deps, sub) };
  // After the subscription was found on: by then this dispatcher has seen its resume, if any (`stillOwned`).
  if (owned && !(await owned())) return { kind: "wait", delayMs: 0 };
  const limit = sub.rate_limit_per_second ?? null;
  if (limit !== null && deps.rateGate) {
    const waitMs = await deps.rateGate(sub.id, limit);
    if (waitMs > 0) return { kind: "wait", delayMs: waitMs };
  }
  const sealed = openSealed(deps, sub, current);
  const previous = sealed === null ? null : openPrevious(deps, sub);
  const startedMs = deps.clock.now();
  let result: AttemptResult;
  if (sealed === null) {
    // No later attempt can open them either: the attempt is recorded as failed and the delivery ends.
    result = { kind: "error", error: "secret_unreadable", durationMs: 0 };
  } else {
    const { body, headers } = buildRequest(deps, current, sealed.secret, previous, sealed.headers);
    const timeoutMs = sub.timeout_seconds ? sub.timeout_seconds * 1000 : deps.timeoutMs;
    result = await deps.send({ url: sub.url, headers, body, timeoutMs });
  }
  return { kind: "sent", sub, result, startedMs, endedMs: deps.clock.now() };
}

/**
 * The wait of a job whose subscription is off: half of how long it has been off (since its last change, which is no
 * later than the pause), between `pausedRecheckMs` and `pausedRecheckMaxMs`. A job comes back every couple of seconds
 * after a pause, then less and less often: a long pause costs a bounded number of looks per minute instead of one
 * every `pausedRecheckMs` for as long as it lasts. A resumed subscription's jobs are published again at once
 * (resume.ts); this wait only bounds how late they go out when no dispatcher saw the resume.
 */
export function pausedWait(deps: Pick<DeliverDeps, "clock" | "pausedRecheckMs" | "pausedRecheckMaxMs">, sub: SubscriptionRecord): number {
  const offForMs = deps.clock.now() - Date.parse(sub.updated_at);
  const half = Number.isFinite(offForMs) ? offForMs / 2 : 0;
  return Math.round(Math.min(deps.pausedRecheckMaxMs, Math.max(deps.pausedRecheckMs, half)));
}

/**
 * The subscription's plain secret and custom headers, or null (logged) when the master key cannot open them (a
 * POST without headers the receiver may need for authentication is never sent).
 */
function openSealed(deps: DeliverDeps, sub: SubscriptionRecord, record: DeliveryRecord): { secret: string; headers: Record<string, string> } | null {
  try {
    return { secret: deps.secretOf(sub), headers: deps.headersOf?.(sub) ?? {} };
  } catch (err) {
    deps.log.error(
      { err, subscription_id: sub.id, delivery_id: record.delivery_id },
      "the subscription's secret or headers cannot be opened with INQUEST_MASTER_KEY (not the key they were sealed with?); the delivery fails permanently (secret_unreadable)",
    );
    return null;
  }
}


/** The old secret during a rotation's grace period; one that cannot be opened is logged and left out. */
function openPrevious(deps: DeliverDeps, sub: SubscriptionRecord): string | null {
  try {
    return deps.previousSecretOf?.(sub, deps.clock.now()) ?? null;
  } catch (err) {
    deps.log.warn({ err, subscription_id: sub.id }, "the subscription's previous secret cannot be opened; signing with the current one only");
    return null;
  }
}
