// The fan-out: a durable pull consumer on the EVENTS stream, shared by every dispatcher replica. For each
// event it makes one delivery per matching subscription (a deterministic delivery id), and only then acks the
// event. A subscription whose endpoint is healthy gets its first attempt from the fan-out itself, recorded with
// the delivery (first-attempt.ts); any other delivery is enqueued: a job published with the delivery id as message
// id and a KV create, so a redelivered event creates nothing twice. A redelivered event always takes the job path.
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import { forEachLimited } from "../../shared/concurrency.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { tryDecodeJson } from "../../shared/nats/kvjson.js";
import { PooledConsumer } from "../../shared/nats/pooled-consumer.js";
import { EventEnvelope } from "../../shared/schemas/events.js";
import { checker } from "../../shared/validate.js";
import { WEBHOOK_CONSUMERS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { enqueueDelivery, newDeliveryRecord, republishLostJob, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { deliveryIdFor, onItsSubject, wantsEvent } from "../../shared/webhooks/fanout.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { isFirstDelivery, isFirstStoredCopy, messageIdOf } from "./first-copy.js";

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
  /** The key delivery ids are derived with (`deliveryIdKey(master key)`). */
  deliveryIdKey: Buffer;
  /**
   * Makes a delivery's first attempt and records it, or declines (false); absent: every delivery is enqueued.
   * `firstCopy`: the event's message is the first copy the stream stored (first-copy.ts), so no record can exist yet.
   */
  firstAttempt?(record: DeliveryRecord, sub: SubscriptionRecord, firstCopy: boolean): Promise<boolean>;
}

export interface FanoutOptions {
  /** Events fanned out at once. */
  concurrency: number;
  /** Deliveries one event creates at once (an event for thousands of subscriptions does not flood NATS). */
  perEvent?: number;
}

const DEFAULT_PER_EVENT = 16;

/**
 * How far before the event's storage a change of a subscription's events or filters still counts as "since" (the
 * gateway's clock wrote `wants_since`, the stream's stamped the event).
 */
const CHANGED_SINCE_MARGIN_MS = 60_000;

/**
 * Whether a subscription that is no target of the event now may still owe it a delivery made earlier (a record
 * whose job is missing): it wanted the event but for being paused, or its events or filters changed around or
 * after the event was stored (what it wanted then is not known: its record, if any, is read).
 */
function mayOweJob(sub: SubscriptionRecord, event: Parameters<typeof wantsEvent>[1], storedAtMs: number): boolean {
  if (!sub.active && wantsEvent({ ...sub, active: true }, event, storedAtMs)) return true;
  const changed = sub.wants_since ? Date.parse(sub.wants_since) : NaN;
  return changed >= storedAtMs - CHANGED_SINCE_MARGIN_MS && Date.parse(sub.created_at) <= storedAtMs;
}

export class FanoutConsumer implements Component {
  readonly name = "fanout-consumer";
  private readonly pool: PooledConsumer;
  private readonly perEvent: number;

  constructor(private readonly deps: FanoutDeps, opts: FanoutOptions) {
    this.perEvent = opts.perEvent ?? DEFAULT_PER_EVENT;
    const { stream, durable, filter } = WEBHOOK_CONSUMERS.fanout;
    this.pool = new PooledConsumer({
      name: this.name,
      js: deps.js,
      jsm: deps.jsm,
      stream,
      config: {
        durable_name: durable,
        filter_subject: filter,
        ack_policy: AckPolicy.Explicit,
        // Events stored before a subscription existed are skipped by `wantsEvent`, so replaying the stream's
        // history on first start sends nothing old.
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_MS * MS,
        max_deliver: -1,
        max_ack_pending: 10_000,
      },
      concurrency: opts.concurrency,
      buffer: Math.max(16, opts.concurrency * 2),
      log: deps.log,
      handle: (msg, receivedAt) => this.handle(msg, receivedAt),
    });
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  stop(): Promise<void> {
    return this.pool.stop();
  }

  private async handle(msg: JsMsg, receivedAt: number): Promise<void> {
    const parsed = eventEnvelope.check(tryDecodeJson(msg.data));
    if (!parsed.ok) {
      this.deps.log.error({ seq: msg.seq, subject: msg.subject, details: parsed.details }, "malformed event skipped by the fan-out");
      // Acknowledged, not terminated: nats-server 2.9 leaves a terminated message below the consumer's ack floor,
      // and recovery reads that floor as how far the fan-out has settled the stream (recovery-run.ts).
      msg.ack();
      return;
    }
    const event = parsed.value;
    // Subscribers are matched on the envelope's type, and producers publish each type on its own subject: an envelope
    // whose type is not its subject's would reach subscribers of a type it was not published as.
    if (!onItsSubject(msg.subject, event)) {
      this.deps.log.error({ seq: msg.seq, subject: msg.subject, type: event.type, event_id: event.event_id }, "event skipped by the fan-out: its type is not its subject's");
      msg.ack(); // as a malformed envelope, above
      return;
    }
    const storedAtMs = msg.time.getTime();
    // A redelivered event may have been fanned out in part already: deliveries a job has taken on are left alone.
    const recheck = msg.redelivered;
    // No delivery record can exist yet: the first copy of the event, delivered for the first time (first-copy.ts).
    const firstCopy =
      isFirstDelivery(storedAtMs, { redelivered: recheck, consumerCreatedMs: this.pool.consumerCreatedMs, nowMs: this.deps.clock.now() }) &&
      isFirstStoredCopy(event, messageIdOf(msg), storedAtMs);
    try {
      const all = await this.deps.subscriptions(receivedAt);
      const targets = all.filter((s) => wantsEvent(s, event, storedAtMs));
      // A first attempt that needed a retry is recorded before its job is published: if the publish was cut off, the
      // event comes again, and a subscription paused since, or given other event types or filters since, is no
      // target now, yet its delivery still needs that job.
      const owed = recheck ? all.filter((s) => !targets.includes(s) && mayOweJob(s, event, storedAtMs)) : [];
      await forEachLimited(owed, this.perEvent, async (sub) => {
        await republishLostJob(this.deps.stores, deliveryIdFor(event, sub.id, storedAtMs, this.deps.deliveryIdKey));
      });
      await forEachLimited(targets, this.perEvent, async (sub) => {
        const record = newDeliveryRecord({
          deliveryId: deliveryIdFor(event, sub.id, storedAtMs, this.deps.deliveryIdKey),
          subscriptionId: sub.id,
          envelope: event,
          nowMs: this.deps.clock.now(),
        });
        if (!recheck && this.deps.firstAttempt && (await this.deps.firstAttempt(record, sub, firstCopy))) return;
        await enqueueDelivery(this.deps.stores, record, { recheck });
      });
      msg.ack();
    } catch (err) {
      this.deps.log.warn({ err, event_id: event.event_id }, "fan-out failed; the event will be fanned out again");
      msg.nak(RETRY_MS);
    }
  }
}
