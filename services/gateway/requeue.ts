// A safety net under the trigger: an investigation still queued long after it was accepted, while the runners'
// consumer has nothing left to deliver and nothing in a runner's hands, has lost its work message; it is queued again.
//
// The trigger stores the work message (and waits for JetStream's ack) before it writes the record
// (shared/investigations/trigger.ts), and a runner acknowledges the message only once the record is terminal. So a
// record that stays `queued` while the runner consumer has no message pending or unacknowledged means the message
// went missing between the ack and a runner: a chaos run on a 3-node cluster saw it once in many runs, without a
// trace in any service's log (nats-server 2.9.10). It acts only when the runners are idle, so in a system never idle
// a lost message waits for a quiet moment. Checked rarely and cheaply: one consumer info per pass, the local index
// read only when the consumer is idle, and one stream info when messages are found missing (logged for the
// runbook). Any number of gateways may do this at once: the message id dedupes their copies, and a runner treats a
// second work message for a run it already has as done (services/runner/execute.ts).
import type { ConsumerInfo, JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { Clock } from "../../shared/clock.js";
import type { InvestigationRecord, InvestigationView } from "../../shared/investigations/record.js";
import { workMessage } from "../../shared/investigations/trigger.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import type { Counter, Registry } from "../../shared/ops/metrics.js";
import { CONSUMERS, SUBJECTS } from "../../shared/nats/catalog.js";
import { encodeJson, type JsonKv } from "../../shared/nats/kvjson.js";
import { startPeriodic, type Periodic } from "../../shared/periodic.js";
import type { ReadModel } from "../../shared/readmodel.js";
import { logRetriedFailure } from "../../shared/nats/errors.js";

export interface RequeueOptions {
  /** How often to look (default 30 s). */
  intervalMs: number;
  /**
   * How long a record must have been queued: a runner claims a run (the record turns `running`) as soon as it takes
   * the message, and a message taken by a runner that died before that comes back after ack_wait (30 s by
   * default). Earlier would only add a second work message, which the runners handle as a duplicate. Default 90 s.
   */
  queuedForMs: number;
  /** At most this many investigations queued again per pass. */
  batch: number;
}

export const DEFAULT_REQUEUE: RequeueOptions = { intervalMs: 30_000, queuedForMs: 90_000, batch: 100 };

export interface RequeueDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  investigations: JsonKv<InvestigationRecord>;
  index: Pick<ReadModel<InvestigationRecord, InvestigationView>, "page" | "catchUp">;
  clock: Clock;
  log: Logger;
  /** Counts each investigation queued again (the gateway's metrics). */
  onRequeued?: () => void;
}

/** One pass: the ids queued again. */
export async function requeueLost(deps: RequeueDeps, opts: RequeueOptions): Promise<string[]> {
  const consumer = await deps.jsm.consumers.info(CONSUMERS.runner.stream, CONSUMERS.runner.durable).catch(() => null);
  // No runner consumer yet (no runner ever started), work still waiting for a runner, or messages in runners' hands
  // (runs going on, and runs waiting out a retry delay after an error: a nak with a delay keeps the message
  // delivered and unacknowledged): nothing can be told lost. A chaos run showed the second: 64 investigations queued
  // again whose messages were backing off after NATS faults, not lost.
  if (consumer === null || consumer.num_pending > 0 || consumer.num_ack_pending > 0) return [];
  await deps.index.catchUp();
  const now = deps.clock.now();
  const cutoff = now - opts.queuedForMs;
  // Gateways passing at once publish the same message id: JetStream keeps one copy.
  const msgId = (id: string) => `${id}.requeue.${Math.floor(now / opts.intervalMs)}`;
  const { items } = deps.index.page(["status", "queued"], { after: null, limit: opts.batch, reverse: false, accept: (v) => Date.parse(v.started_at) <= cutoff });
  const stuck: Array<{ id: string; record: InvestigationRecord }> = [];
  for (const view of items) {
    // The index may lag the bucket: only a record that is still queued there is queued again.
    const entry = await deps.investigations.get(view.investigation_id);
    if (entry !== null && entry.value.status === "queued") stuck.push({ id: view.investigation_id, record: entry.value });
  }
  if (stuck.length > 0) await describeLoss(deps, consumer, stuck.length);
  const requeued: string[] = [];
  for (const { id, record } of stuck) {
    await deps.js.publish(SUBJECTS.work, workMessage(id, encodeJson(record)), { msgID: msgId(id) });
    deps.log.warn({ investigation_id: id, queued_for_ms: now - Date.parse(record.started_at) }, "investigation queued with no work message left for it: queued again");
    deps.onRequeued?.();
    requeued.push(id);
  }
  return requeued;
}

/**
 * What the stream and the consumer held when work messages were found missing, logged once per pass that finds any
 * (before the copies are published): the stream still holding messages the consumer no longer offers points at the
 * consumer's state (its delivered or ack floor moved past them), an empty stream at the messages themselves.
 */
async function describeLoss(deps: RequeueDeps, consumer: ConsumerInfo, missing: number): Promise<void> {
  const stream = await deps.jsm.streams.info(CONSUMERS.runner.stream).catch(() => null);
  deps.log.warn(
    {
      missing,
      stream: stream && { messages: stream.state.messages, first_seq: stream.state.first_seq, last_seq: stream.state.last_seq, leader: stream.cluster?.leader },
      consumer: { delivered_stream_seq: consumer.delivered.stream_seq, ack_floor_stream_seq: consumer.ack_floor.stream_seq, num_redelivered: consumer.num_redelivered, leader: consumer.cluster?.leader },
    },
    "work messages missing for queued investigations: what the work stream and the runners' consumer hold",
  );
}

/** inquest_investigations_requeued_total, 0 from the start (so increase() counts the first). */
export function requeuedMetric(registry: Registry): Counter {
  const c = registry.counter("inquest_investigations_requeued_total", "Investigations queued again because their work message was gone while they stayed queued (services/gateway/requeue.ts); any is worth a look.");
  c.inc({}, 0);
  return c;
}

export class Requeuer implements Component {
  readonly name = "requeue";
  private periodic: Periodic | null = null;

  constructor(private readonly deps: RequeueDeps, private readonly opts: RequeueOptions = DEFAULT_REQUEUE) {}

  async start(): Promise<void> {
    this.periodic = startPeriodic(this.opts.intervalMs, async () => void (await requeueLost(this.deps, this.opts)), (err) => logRetriedFailure(this.deps.log, err, "requeue pass failed; trying again next pass"));
  }

  async stop(): Promise<void> {
    await this.periodic?.stop();
  }
}
