// The runner's consumer: pulls investigation ids from the work queue through the shared pooled consumer (which
// keeps every message in hand reported in progress), runs each, and acks only when the run reached a terminal
// state. A runner killed mid-run leaves the message unacked: after ack_wait another runner picks it up and, once
// the dead attempt's lease has expired, starts the run again (never stuck in `running`). Cancels reach every
// attempt of an investigation running here. A runner told to stop gives its runs a grace period, then hands the
// ones still running back (lease released, message nak'ed) so another runner takes them over at once.
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import type { Subscription } from "@nats-io/transport-node";
import { DEFAULT_SHUTDOWN_DEADLINE_MS, type Component } from "../../shared/lifecycle.js";
import { CONSUMERS, SUBJECTS, WorkItem } from "../../shared/nats/catalog.js";
import { tryDecodeJson } from "../../shared/nats/kvjson.js";
import { PooledConsumer } from "../../shared/nats/pooled-consumer.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { checker } from "../../shared/validate.js";
import { ABORT_CANCELLED, ABORT_SHUTDOWN, executeInvestigation, type ExecuteDeps, type ExecuteOutcome } from "./execute.js";
import { assertNever } from "../../shared/never.js";

const workItem = checker(WorkItem);
const NS_PER_MS = 1_000_000;
/** Deliveries of a message whose record stays invisible before it is dropped (a minute at one per second). */
const MAX_NOT_FOUND_DELIVERIES = 60;

export interface RunnerOptions {
  concurrency: number;
  ackWaitMs: number;
  /** How often held work messages are reported in progress; default a third of ack_wait (tests set it). */
  workingIntervalMs?: number;
  /** The delay before a run that stopped on an error is tried again: `firstMs`, doubled each time, at most `maxMs`. */
  errorRetry?: { firstMs: number; maxMs: number };
  /** How long a stopping runner lets its runs go on before it hands them back (default STOP_GRACE_MS). */
  stopGraceMs?: number;
}

/**
 * Half the shutdown deadline: the rest is for aborting the runs still in hand, releasing their leases and draining
 * NATS, so a stopped runner's runs are handed back rather than cut off (left to wait out their leases, counted as
 * crashes: five rolling restarts during a deep run failed it as runner_crashed).
 */
export const STOP_GRACE_MS = DEFAULT_SHUTDOWN_DEADLINE_MS / 2;

const ERROR_RETRY = { firstMs: 1_000, maxMs: 30_000 };

/** The delay before the `delivery`-th delivery of a work message that failed is tried again. */
export function errorRetryMs(delivery: number, retry: { firstMs: number; maxMs: number } = ERROR_RETRY): number {
  return Math.min(retry.maxMs, retry.firstMs * 2 ** Math.min(20, Math.max(0, delivery - 1)));
}

export class Runner implements Component {
  readonly name = "runner";
  /** Every attempt running here, by investigation (a redelivered message can briefly add a second one). */
  private readonly running = new Map<string, Set<AbortController>>();
  private cancelSub: Subscription | null = null;
  private readonly pool: PooledConsumer;

  constructor(private readonly deps: ExecuteDeps, private readonly opts: RunnerOptions) {
    this.pool = new PooledConsumer({
      name: this.name,
      js: deps.js,
      jsm: deps.jsm,
      stream: CONSUMERS.runner.stream,
      config: {
        durable_name: CONSUMERS.runner.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: opts.ackWaitMs * NS_PER_MS,
        max_ack_pending: 10_000,
      },
      concurrency: opts.concurrency,
      // Nothing fetched ahead: a message waiting here is one another runner could be working on.
      buffer: 0,
      ...(opts.workingIntervalMs === undefined ? {} : { workingIntervalMs: opts.workingIntervalMs }),
      log: deps.log,
      handle: (msg) => this.handle(msg),
    });
  }

  async start(): Promise<void> {
    this.cancelSub = this.deps.nc.subscribe(SUBJECTS.cancelAll, {
      callback: (_err, msg) => {
        const id = msg.subject.split(".")[2];
        for (const run of (id && this.running.get(id)) || []) run.abort(ABORT_CANCELLED);
      },
    });
    await this.pool.start();
  }

  async stop(): Promise<void> {
    // No more pulls, waiting messages handed back; the runs in hand go on (cancels still reach them) for the grace.
    const stopped = this.pool.stop();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<"grace">((resolve) => {
      timer = setTimeout(() => resolve("grace"), this.opts.stopGraceMs ?? STOP_GRACE_MS);
    });
    if ((await Promise.race([stopped, grace])) === "grace") {
      this.deps.log.warn({ runs: this.running.size }, "stopping: runs still in hand after the grace period are handed back");
      for (const runs of this.running.values()) for (const run of runs) run.abort(ABORT_SHUTDOWN);
      await stopped;
    }
    clearTimeout(timer);
    this.cancelSub?.unsubscribe();
  }

  /** Work messages in hand (tests, metrics). */
  get load(): { running: number; waiting: number } {
    return this.pool.load;
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
    const run = new AbortController();
    const runs = this.running.get(id) ?? new Set<AbortController>();
    runs.add(run);
    this.running.set(id, runs);
    let outcome: ExecuteOutcome;
    try {
      const carried = (parsed.value.record ?? null) as InvestigationRecord | null;
      outcome = await executeInvestigation(this.deps, id, run, { carried, firstDelivery: msg.info.deliveryCount === 1 });
    } catch (err) {
      const retryInMs = errorRetryMs(msg.info.deliveryCount, this.opts.errorRetry);
      log.error({ err, retry_in_ms: retryInMs }, "run stopped on an error; handed back, will retry");
      msg.nak(retryInMs);
      return;
    } finally {
      runs.delete(run);
      if (runs.size === 0 && this.running.get(id) === runs) this.running.delete(id);
    }
    switch (outcome.kind) {
      case "done":
        msg.ack();
        return;
      case "not_found":
        // A message that carries its record finds none only when the read saw a replica that had not caught up
        // (docs/nats.md#direct-get): look again rather than drop the run.
        if (parsed.value.record && msg.info.deliveryCount < MAX_NOT_FOUND_DELIVERIES) {
          log.warn("the record of this run is not visible yet; looking again");
          msg.nak(1_000);
          return;
        }
        log.error("work item whose record cannot be found dropped");
        msg.ack();
        return;
      case "duplicate":
        log.info("second work item for a running investigation acknowledged");
        msg.ack();
        return;
      case "busy":
        log.info({ retry_in_ms: outcome.retryInMs }, "another runner is working on this investigation; looking again after its lease");
        msg.nak(outcome.retryInMs);
        return;
      case "handed_back":
        log.info("this runner is stopping: run handed back for another runner");
        msg.nak();
        return;
      case "superseded":
        // Another attempt took the run over while this one stalled; the message is now its to acknowledge.
        log.warn("this runner stalled past its lease and another took the run over; stopped");
        return;
      default:
        assertNever(outcome, "outcome");
    }
  }
}

