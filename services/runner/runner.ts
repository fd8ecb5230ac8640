// The runner's consumer: pulls investigation ids from the work queue, runs each with a heartbeat that keeps
// the message from being redelivered while it works, and acks only when the run reached a terminal state.
// A runner killed mid-run leaves the message unacked: after ack_wait another runner picks it up and
// starts the run again (never stuck in `running`).
import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from "@nats-io/jetstream";
import type { Subscription } from "@nats-io/transport-node";
import type { Component } from "../../shared/lifecycle.js";
import { CONSUMERS, SUBJECTS, WorkItem } from "../../shared/nats/catalog.js";
import { tryDecodeJson } from "../../shared/nats/kvjson.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { checker } from "../../shared/validate.js";
import { executeInvestigation, failInvestigation, type ExecuteDeps } from "./execute.js";

const workItem = checker(WorkItem);
const PULL_EXPIRES_MS = 5_000;

export interface RunnerOptions {
  concurrency: number;
  ackWaitMs: number;
  /** A run that crashed its runner this many times is marked failed instead of retried forever. */
  maxAttempts: number;
}

export class Runner implements Component {
  readonly name = "runner";
  private running = new Map<string, AbortController>();
  private loops: Array<Promise<void>> = [];
  private stopped = false;
  private cancelSub: Subscription | null = null;
  private consumer: Consumer | null = null;

  constructor(private readonly deps: ExecuteDeps, private readonly opts: RunnerOptions) {}

  async start(): Promise<void> {
    const { jsm, js, nc } = this.deps;
    await jsm.consumers.add(CONSUMERS.runner.stream, {
      durable_name: CONSUMERS.runner.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: this.opts.ackWaitMs * 1_000_000,
      max_ack_pending: 10_000,
    });
    this.consumer = await js.consumers.get(CONSUMERS.runner.stream, CONSUMERS.runner.durable);
    this.cancelSub = nc.subscribe(SUBJECTS.cancelAll, {
      callback: (_err, msg) => {
        const id = msg.subject.split(".")[2];
        if (id) this.running.get(id)?.abort();
      },
    });
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelSub?.unsubscribe();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let msg: JsMsg | null = null;
      try {
        // A 5 s pull (2.5 s idle heartbeat) tolerates event-loop pauses while other runs analyse rows; an idle
        // loop notices a stop within that time.
        msg = (await this.consumer?.next({ expires: PULL_EXPIRES_MS })) ?? null;
      } catch (err) {
        if (!this.stopped) this.deps.log.warn({ err }, "work queue pull failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (msg) await this.handle(msg);
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const parsed = workItem.check(tryDecodeJson(msg.data));
    if (!parsed.ok) {
      this.deps.log.error({ seq: msg.seq }, "malformed work item dropped");
      msg.term();
      return;
    }
    const id = parsed.value.investigation_id;
    const log = this.deps.log.child({ investigation_id: id, delivery: msg.info.deliveryCount });
    const controller = new AbortController();
    if (!this.running.has(id)) this.running.set(id, controller);
    const heartbeat = setInterval(() => msg.working(), Math.max(1_000, Math.floor(this.opts.ackWaitMs / 3)));
    try {
      if (msg.info.deliveryCount > this.opts.maxAttempts) {
        await failInvestigation(this.deps, id, "runner_crashed", `the run was interrupted ${this.opts.maxAttempts} times; giving up`);
      } else {
        const carried = (parsed.value.record ?? null) as InvestigationRecord | null;
        const outcome = await executeInvestigation(this.deps, id, controller.signal, { carried, firstDelivery: msg.info.deliveryCount === 1 });
        if (outcome === "not_found") log.warn("work item without a record and without a carried record dropped");
        if (outcome === "duplicate") log.info("second work item for a running investigation acknowledged");
      }
      msg.ack();
    } catch (err) {
      log.error({ err }, "run failed; will retry");
      msg.nak(1_000);
    } finally {
      clearInterval(heartbeat);
      if (this.running.get(id) === controller) this.running.delete(id);
    }
  }
}
