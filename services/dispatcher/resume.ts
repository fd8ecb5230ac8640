// A resumed subscription's held deliveries, sent now. While a subscription is paused (or turned off) each of its
// jobs is handed back for up to a minute at a time (deliver.ts: pausedWait), and JetStream cannot call a handed-back
// message in early. So when a dispatcher sees the subscription turned on again, it publishes each held job again:
// a copy that takes the delivery over (deliver.ts: takeOver) and is handed out at once. The held job, when its wait
// ends, finds the delivery owned by the copy (or done) and is dropped. A job of the subscription in a dispatcher's
// hands at the resume (waiting for a request slot) reads its record again before its POST and is dropped likewise
// (deliver.ts: stillOwned). What can still be sent twice: a POST already in flight when its copy takes over (it
// loses its record write, and the copy POSTs again), with the same delivery id and event id.
// The jobs stream is a work queue: the jobs still in it for the subscription's subject are exactly those not done,
// read one by one by subject without a consumer (a work queue allows one consumer per subject, the dispatchers').
import type { JetStreamClient, JetStreamManager, MsgRequest } from "@nats-io/jetstream";
import type { Logger } from "../../shared/log.js";
import { encodeJson, tryDecodeJson, type JsonKv } from "../../shared/nats/kvjson.js";
import { checker } from "../../shared/validate.js";
import { DeliveryJob, WEBHOOK_STREAMS, WEBHOOK_SUBJECTS } from "../../shared/webhooks/catalog.js";
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";

const deliveryJob = checker(DeliveryJob);

export interface ResumeDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  deliveries: JsonKv<DeliveryRecord>;
  log: Logger;
}

/**
 * Publishes a copy of each job of the subscription waiting in the jobs stream whose delivery is pending and still
 * its (or no job's); returns how many. Every dispatcher that sees the resume does this: a copy's message id is
 * (delivery id, held job's sequence), so the stream stores one copy of each held job however many publish it.
 */
export async function resendHeld(deps: ResumeDeps, subscriptionId: string): Promise<number> {
  const stream = WEBHOOK_STREAMS.jobs.name;
  const subject = WEBHOOK_SUBJECTS.job(subscriptionId);
  // Jobs published after this are new, and their copies too: not held.
  const lastSeq = (await deps.jsm.streams.info(stream)).state.last_seq;
  let published = 0;
  for (let seq = 1; seq <= lastSeq; ) {
    // The server's message get takes `next_by_subj` (the first message of the subject at or after `seq`); the
    // client's type only lists it for direct gets, which the jobs stream does not allow.
    const held = await deps.jsm.streams.getMessage(stream, { seq, next_by_subj: subject } as unknown as MsgRequest);
    if (held === null || held.seq > lastSeq) break;
    seq = held.seq + 1;
    const parsed = deliveryJob.check(tryDecodeJson(held.data));
    if (!parsed.ok) continue;
    const record = (await deps.deliveries.get(parsed.value.delivery_id))?.value;
    // Done, not created yet, or owned by another job (this one is a leftover copy): its own job takes care of it.
    if (!record || record.status !== "pending" || (record.internal.job_seq !== null && record.internal.job_seq !== held.seq)) continue;
    // A copy that took the delivery over and has made no attempt since was handed out at once, not held: it may be
    // POSTing right now (another replica's scan of this same resume), and a copy of it would take over and POST again.
    const from = parsed.value.resumes;
    if (from && record.internal.job_seq === held.seq && record.attempt_count === from.attempts) continue;
    const copy: DeliveryJob = { ...parsed.value, resumes: { seq: held.seq, attempts: record.attempt_count } };
    await deps.js.publish(subject, encodeJson(copy), { msgID: `${record.delivery_id}.${held.seq}` });
    published++;
  }
  return published;
}

/** `resendHeld` for the cache's resume notices: failures are logged (the held jobs still come back after their wait). */
export function onResumed(deps: ResumeDeps): (subscriptionId: string) => void {
  return (subscriptionId) => {
    resendHeld(deps, subscriptionId).then(
      (count) => {
        if (count > 0) deps.log.info({ subscription_id: subscriptionId, jobs: count }, "subscription resumed: its held deliveries are sent now");
      },
      (err: unknown) => deps.log.warn({ err, subscription_id: subscriptionId }, "could not send a resumed subscription's held deliveries now; they go out after their wait"),
    );
  };
}
