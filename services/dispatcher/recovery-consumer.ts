// The recovery-job consumer: a durable pull consumer shared by every dispatcher replica, one recovery run at a time
// per replica. A run is acked once finished (or found to be another's); one the dispatcher stops in the middle of is
// handed back at once, and one that fails is retried a little later, resuming from its saved cursor. A replica
// killed in the middle leaves its job unacked: JetStream hands it out again after ack_wait, and it resumes the same way.
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import type { Component } from "../../shared/lifecycle.js";
import { tryDecodeJson } from "../../shared/nats/kvjson.js";
import { PooledConsumer } from "../../shared/nats/pooled-consumer.js";
import { checker } from "../../shared/validate.js";
import { WEBHOOK_CONSUMERS } from "../../shared/webhooks/catalog.js";
import { RecoveryJob } from "../../shared/webhooks/recovery.js";
import { runRecovery, type RecoveryRunDeps } from "./recovery-run.js";

const recoveryJob = checker(RecoveryJob);
const MS = 1_000_000;
const ACK_WAIT_MS = 10_000;
const RETRY_MS = 5_000;

export class RecoveryConsumer implements Component {
  readonly name = "recovery-consumer";
  private readonly pool: PooledConsumer;
  private stopping = false;

  constructor(private readonly deps: Omit<RecoveryRunDeps, "stopping">) {
    const { stream, durable } = WEBHOOK_CONSUMERS.recoveries;
    this.pool = new PooledConsumer({
      name: this.name,
      js: deps.js,
      jsm: deps.jsm,
      stream,
      config: {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_MS * MS,
        max_deliver: -1,
      },
      concurrency: 1,
      buffer: 1,
      log: deps.log,
      handle: (msg) => this.handle(msg),
    });
  }

  start(): Promise<void> {
    this.stopping = false;
    return this.pool.start();
  }

  /** A run in progress saves its cursor and is handed back before the pool stops. */
  stop(): Promise<void> {
    this.stopping = true;
    return this.pool.stop();
  }

  private async handle(msg: JsMsg): Promise<void> {
    const parsed = recoveryJob.check(tryDecodeJson(msg.data));
    if (!parsed.ok) {
      this.deps.log.error({ seq: msg.seq }, "malformed recovery job dropped");
      msg.term("malformed");
      return;
    }
    const { recovery_id: id, run } = parsed.value;
    try {
      const outcome = await runRecovery({ ...this.deps, stopping: () => this.stopping }, id, run, msg.seq);
      if (outcome === "handed_back") msg.nak();
      else msg.ack();
      this.deps.log.info({ recovery_id: id, run, outcome }, "recovery run ended");
    } catch (err) {
      this.deps.log.warn({ err, recovery_id: id, run }, "recovery run failed; resuming it from its saved cursor shortly");
      msg.nak(RETRY_MS);
    }
  }
}
