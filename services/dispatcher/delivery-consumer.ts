// The delivery-job consumer: a durable pull consumer shared by every dispatcher replica. Each job runs under its
// subscription's job limit, and its POST under the subscription's request limit (key-slots.ts); a
// subscription whose job slots and queue are full, or that holds as many jobs as the pool has left free, gets its
// further jobs handed back with a delay, so slow or failing subscribers never hold up the others. The outcome of a
// job is mapped to ack / nak(delay) / term here and nowhere else.
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { tryDecodeJson } from "../../shared/nats/kvjson.js";
import { PooledConsumer } from "../../shared/nats/pooled-consumer.js";
import { checker } from "../../shared/validate.js";
import { DeliveryJob, WEBHOOK_CONSUMERS } from "../../shared/webhooks/catalog.js";
import { recordFromJob } from "../../shared/webhooks/delivery.js";
import type { JobAction } from "../../shared/webhooks/delivery-state.js";
import type { Job } from "./deliver.js";
import { KeyLimiter } from "./key-limiter.js";

const deliveryJob = checker(DeliveryJob);
const MS = 1_000_000;

export interface DeliveryConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  deliver(job: Job): Promise<JobAction>;
}

/**
 * Jobs of one subscription that run at once, per request slot of it. A job reads the delivery record, POSTs
 * (holding one of the subscription's request slots, key-slots.ts), then writes the record; the record's round
 * trips to NATS take about as long as the POST, so with a few jobs per slot the slots stay busy.
 */
export const JOBS_PER_REQUEST_SLOT = 4;

export interface DeliveryConsumerOptions {
  /** Jobs held at once (running or waiting for their subscription's turn). */
  concurrency: number;
  /** Requests in flight to one subscription (its jobs running at once: JOBS_PER_REQUEST_SLOT times this). */
  perSubscription: number;
  /** Longer than the slowest attempt (request timeout plus the record writes). */
  ackWaitMs: number;
}

export class DeliveryConsumer implements Component {
  readonly name = "delivery-consumer";
  private readonly pool: PooledConsumer;
  private readonly limiter: KeyLimiter;

  constructor(private readonly deps: DeliveryConsumerDeps, private readonly opts: DeliveryConsumerOptions) {
    // One subscription may hold at most half of the dispatcher's jobs (running or queued), and never more than the
    // pool has left free (`total`), so that subscriptions whose endpoints hang, however many of their jobs wait,
    // leave room for the others' (two of half each used to fill it). In a pool smaller than twice the
    // per-subscription concurrency, a lone subscription therefore runs at most half the pool's jobs at once.
    const half = Math.floor(opts.concurrency / 2);
    const running = Math.max(opts.perSubscription, Math.min(opts.perSubscription * JOBS_PER_REQUEST_SLOT, half - opts.perSubscription));
    this.limiter = new KeyLimiter({
      limit: running,
      queue: Math.max(opts.perSubscription, half - running),
      total: opts.concurrency,
      minBackoffMs: 100,
      maxBackoffMs: 30_000,
    });
    const { stream, durable } = WEBHOOK_CONSUMERS.deliveries;
    this.pool = new PooledConsumer({
      name: this.name,
      js: deps.js,
      jsm: deps.jsm,
      stream,
      config: {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: this.opts.ackWaitMs * MS,
        // Attempts are counted in the delivery record; a paused subscription's jobs are redelivered for as
        // long as it stays paused, so the server must not give up on them.
        max_deliver: -1,
        // Jobs waiting out a retry delay stay pending on the server; thousands may wait at once.
        max_ack_pending: 1_000_000,
      },
      concurrency: opts.concurrency,
      buffer: Math.min(256, opts.concurrency),
      log: deps.log,
      handle: (msg) => this.admit(msg),
    });
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  stop(): Promise<void> {
    return this.pool.stop();
  }

  /** Runs the job under its subscription's limit; resolves when the pool slot can be given back. */
  private admit(msg: JsMsg): Promise<void> {
    const parsed = jobFromMessage(msg, Date.now());
    if (!parsed) {
      this.deps.log.error({ seq: msg.seq }, "malformed delivery job dropped");
      msg.term("malformed");
      return Promise.resolve();
    }
    const { job, subscriptionId } = parsed;
    // The pool reports the job in progress while it waits for its subscription's slot or runs.
    const admission = this.limiter.submit(subscriptionId, () => this.process(msg, job));
    if (admission.kind === "refused") {
      msg.nak(admission.backoffMs);
      return Promise.resolve();
    }
    return admission.done;
  }

  private async process(msg: JsMsg, job: Job): Promise<void> {
    let action: JobAction;
    try {
      action = await this.deps.deliver(job);
    } catch (err) {
      this.deps.log.warn({ err, delivery_id: job.deliveryId }, "delivery job failed unexpectedly; retrying it");
      action = { kind: "nak", delayMs: 1_000 };
    }
    apply(msg, action);
  }
}

/** A job message as `deliverJob` takes it (with the record its seed makes), or null when it is malformed. */
export function jobFromMessage(msg: Pick<JsMsg, "data" | "seq" | "info">, nowMs: number): { job: Job; subscriptionId: string } | null {
  const parsed = deliveryJob.check(tryDecodeJson(msg.data));
  if (!parsed.ok) return null;
  return {
    job: {
      deliveryId: parsed.value.delivery_id,
      seq: msg.seq,
      deliveryCount: msg.info.deliveryCount,
      seed: recordFromJob(parsed.value, nowMs),
      ...(parsed.value.resumes ? { resumes: parsed.value.resumes } : {}),
    },
    subscriptionId: parsed.value.subscription_id,
  };
}

/** The one place a job's outcome becomes a JetStream acknowledgement. */
function apply(msg: JsMsg, action: JobAction): void {
  switch (action.kind) {
    case "ack":
      msg.ack();
      return;
    case "nak":
      msg.nak(Math.max(1, Math.round(action.delayMs)));
      return;
    case "term":
      msg.term(action.reason);
      return;
    default: {
      const never: never = action;
      throw new Error(`unexpected job action ${JSON.stringify(never)}`);
    }
  }
}
