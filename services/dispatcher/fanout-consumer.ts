// The fan-out: a durable pull consumer on the EVENTS stream, shared by every dispatcher replica. For each
// event it creates one delivery per matching subscription (a deterministic delivery id and a KV create, so a
// redelivered event creates nothing twice), publishes their jobs, and only then acks the event.
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { decodeJson } from "../../shared/nats/kvjson.js";
import { EventEnvelope } from "../../shared/schemas/events.js";
import { checker } from "../../shared/validate.js";
import { WEBHOOK_CONSUMERS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord } from "../../shared/webhooks/delivery.js";
import { deliveryIdFor, wantsEvent } from "../../shared/webhooks/fanout.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { Permits } from "./permits.js";

const eventEnvelope = checker(EventEnvelope);
const MS = 1_000_000;
const ACK_WAIT_MS = 10_000;
const RETRY_MS = 1_000;

export interface FanoutDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stores: Pick<WebhookStores, "js" | "deliveries">;
  /** Every subscription as of a moment after `since` (performance.now()). */
  subscriptions(since: number): Promise<SubscriptionRecord[]>;
  clock: Clock;
  log: Logger;
}

export class FanoutConsumer implements Component {
  readonly name = "fanout-consumer";
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly permits: Permits;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: FanoutDeps, private readonly opts: { concurrency: number }) {
    this.permits = new Permits(opts.concurrency);
  }

  async start(): Promise<void> {
    const { stream, durable, filter } = WEBHOOK_CONSUMERS.fanout;
    await this.deps.jsm.consumers.add(stream, {
      durable_name: durable,
      filter_subject: filter,
      ack_policy: AckPolicy.Explicit,
      // Events stored before a subscription existed are skipped by `wantsEvent`, so replaying the stream's
      // history on first start sends nothing old.
      deliver_policy: DeliverPolicy.All,
      ack_wait: ACK_WAIT_MS * MS,
      max_deliver: -1,
      max_ack_pending: 10_000,
    });
    const consumer = await this.deps.js.consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: Math.max(16, this.opts.concurrency * 2) });
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
        const receivedAt = performance.now();
        await this.permits.acquire();
        if (this.stopped) {
          msg.nak();
          continue;
        }
        const done = this.handle(msg, receivedAt).finally(() => {
          this.permits.release();
          this.inFlight.delete(done);
        });
        this.inFlight.add(done);
      }
    } catch (err) {
      if (!this.stopped) this.deps.log.error({ err }, "fan-out consumer stopped unexpectedly");
    }
  }

  private async handle(msg: JsMsg, receivedAt: number): Promise<void> {
    const parsed = eventEnvelope.check(safeJson(msg.data));
    if (!parsed.ok) {
      this.deps.log.error({ seq: msg.seq, subject: msg.subject, details: parsed.details }, "malformed event skipped by the fan-out");
      msg.term("malformed envelope");
      return;
    }
    const event = parsed.value;
    const storedAtMs = msg.time.getTime();
    const heartbeat = setInterval(() => msg.working(), ACK_WAIT_MS / 3);
    try {
      const targets = (await this.deps.subscriptions(receivedAt)).filter((s) => wantsEvent(s, event, storedAtMs));
      await Promise.all(
        targets.map((sub) =>
          enqueueDelivery(
            this.deps.stores,
            newDeliveryRecord({ deliveryId: deliveryIdFor(event, sub.id, storedAtMs), subscriptionId: sub.id, envelope: event, nowMs: this.deps.clock.now() }),
          ),
        ),
      );
      msg.ack();
    } catch (err) {
      this.deps.log.warn({ err, event_id: event.event_id }, "fan-out failed; the event will be fanned out again");
      msg.nak(RETRY_MS);
    } finally {
      clearInterval(heartbeat);
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
