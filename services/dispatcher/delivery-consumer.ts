// The delivery-job consumer: a durable pull consumer shared by every dispatcher replica. Each job runs under
// its subscription's concurrency limit; a subscription whose slots and queue are full gets its further jobs
// handed back with a delay, so one slow or failing subscriber never holds up the others. The outcome of a
// job is mapped to ack / nak(delay) / term here and nowhere else.
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { decodeJson } from "../../shared/nats/kvjson.js";
import { checker } from "../../shared/validate.js";
import { DeliveryJob, WEBHOOK_CONSUMERS } from "../../shared/webhooks/catalog.js";
import type { JobAction } from "../../shared/webhooks/delivery-state.js";
import type { Job } from "./deliver.js";
import { KeyLimiter } from "./key-limiter.js";
import { Permits } from "./permits.js";

const deliveryJob = checker(DeliveryJob);
const MS = 1_000_000;

export interface DeliveryConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  deliver(job: Job): Promise<JobAction>;
}

export interface DeliveryConsumerOptions {
  /** Jobs held at once (running or waiting for their subscription's slot). */
  concurrency: number;
  /** Requests in flight to one subscription. */
  perSubscription: number;
  /** Longer than the slowest attempt (request timeout plus the record writes). */
  ackWaitMs: number;
}

export class DeliveryConsumer implements Component {
  readonly name = "delivery-consumer";
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly permits: Permits;
  private readonly limiter: KeyLimiter;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: DeliveryConsumerDeps, private readonly opts: DeliveryConsumerOptions) {
    this.permits = new Permits(opts.concurrency);
    this.limiter = new KeyLimiter({
      limit: opts.perSubscription,
      // One subscription may hold at most half of the dispatcher's jobs.
      queue: Math.max(opts.perSubscription, Math.floor(opts.concurrency / 2) - opts.perSubscription),
      minBackoffMs: 100,
      maxBackoffMs: 30_000,
    });
  }

  async start(): Promise<void> {
    const { stream, durable } = WEBHOOK_CONSUMERS.deliveries;
    await this.deps.jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: this.opts.ackWaitMs * MS,
      // Attempts are counted in the delivery record; a paused subscription's jobs are redelivered for as
      // long as it stays paused, so the server must not give up on them.
      max_deliver: -1,
      // Jobs waiting out a retry delay stay pending on the server; thousands may wait at once.
      max_ack_pending: 1_000_000,
    });
    const consumer = await this.deps.js.consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: Math.min(256, this.opts.concurrency) });
    this.loop = this.run(this.messages);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.messages?.stop();
    this.permits.drain();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        await this.permits.acquire();
        if (this.stopped) {
          msg.nak();
          continue;
        }
        this.admit(msg);
      }
    } catch (err) {
      if (!this.stopped) this.deps.log.error({ err }, "delivery consumer stopped unexpectedly");
    }
  }

  private admit(msg: JsMsg): void {
    const parsed = deliveryJob.check(safeJson(msg.data));
    if (!parsed.ok) {
      this.deps.log.error({ seq: msg.seq }, "malformed delivery job dropped");
      msg.term("malformed");
      this.permits.release();
      return;
    }
    const job: Job = { deliveryId: parsed.value.delivery_id, seq: msg.seq };
    // Keep the job ours while it waits for a slot or runs.
    const heartbeat = setInterval(() => msg.working(), Math.max(500, Math.floor(this.opts.ackWaitMs / 3)));
    const admission = this.limiter.submit(parsed.value.subscription_id, () => this.process(msg, job));
    if (admission.kind === "refused") {
      clearInterval(heartbeat);
      msg.nak(admission.backoffMs);
      this.permits.release();
      return;
    }
    const done = admission.done.finally(() => {
      clearInterval(heartbeat);
      this.permits.release();
      this.inFlight.delete(done);
    });
    this.inFlight.add(done);
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

function safeJson(data: Uint8Array): unknown {
  try {
    return decodeJson<unknown>(data);
  } catch {
    return null;
  }
}
