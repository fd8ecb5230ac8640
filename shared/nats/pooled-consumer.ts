// A durable pull consumer worked by a pool: at most `concurrency` messages are handled at once, at most `buffer`
// more are fetched ahead of the pool, and `stop()` waits for the ones in hand. Every message the pool holds
// (waiting for a slot or being handled) is reported in progress (`working()`) well within ack_wait, so the
// server never hands it to someone else while it is here. Every replica of a service attaches to the same
// durable, so JetStream spreads the messages across them.
import type { Consumer, ConsumerConfig, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { patiently } from "./provision.js";
import { logRetriedFailure } from "./errors.js";

export interface PooledConsumerOptions {
  name: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** The durable's configuration; `durable_name` is required. Re-adding it updates the durable. */
  config: Partial<ConsumerConfig> & { durable_name: string };
  /** Messages handled at once. */
  concurrency: number;
  /** Messages fetched ahead of the pool (they wait for a slot). */
  buffer: number;
  /** How often held messages are reported in progress; default a third of the config's ack_wait. */
  workingIntervalMs?: number;
  log: Logger;
  /**
   * Handles one message; the pool slot is held until the returned promise settles. It must ack, nak or term
   * the message itself. `receivedAt` is performance.now() when the message arrived.
   */
  handle(msg: JsMsg, receivedAt: number): Promise<void>;
}

/** JetStream's ack_wait when the config sets none. */
const DEFAULT_ACK_WAIT_MS = 30_000;
const MIN_WORKING_INTERVAL_MS = 100;
/** How long one pull request waits for messages before the next is made. */
const FETCH_EXPIRES_MS = 10_000;
/** A pull that came back empty sooner than this waits out the rest before the next. */
const EMPTY_PULL_MIN_MS = 100;
/** Pause after a failed pull (NATS disconnected, consumer being re-created) before the next one. */
const RETRY_MS = 1_000;

const NS_PER_MS = 1_000_000;

/** The period of `working()` for a consumer config: a third of its ack_wait. */
export function workingIntervalFor(config: Partial<ConsumerConfig>): number {
  const ackWaitMs = typeof config.ack_wait === "number" && config.ack_wait > 0 ? config.ack_wait / NS_PER_MS : DEFAULT_ACK_WAIT_MS;
  return Math.max(MIN_WORKING_INTERVAL_MS, Math.floor(ackWaitMs / 3));
}

interface Held {
  msg: JsMsg;
  receivedAt: number;
}

export class PooledConsumer implements Component {
  readonly name: string;
  readonly workingIntervalMs: number;
  private loop: Promise<void> | null = null;
  private fetching: ConsumerMessages | null = null;
  private stopped = false;
  private running = 0;
  /** Received and waiting for a slot, oldest first. */
  private readonly waiting: Held[] = [];
  /** Every message in hand: waiting or being handled. */
  private readonly held = new Set<JsMsg>();
  private readonly inFlight = new Set<Promise<void>>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private wake: (() => void) | null = null;
  private waitingForRoom = false;
  /** Fetch again once this much room is free (so a busy pool does not pull one message at a time). */
  private readonly lowWater: number;
  private created: number | null = null;

  constructor(private readonly opts: PooledConsumerOptions) {
    this.name = opts.name;
    this.workingIntervalMs = opts.workingIntervalMs ?? workingIntervalFor(opts.config);
    this.lowWater = Math.max(1, Math.floor(opts.buffer / 2));
  }

  async start(): Promise<void> {
    const { js, jsm, stream, config } = this.opts;
    // A replica (re)started while JetStream is unavailable (an election, a node restarting) waits for it here
    // instead of exiting (seen in make chaos: a dispatcher restarted during a NATS fault).
    const consumer = await patiently(async () => {
      this.noteCreated(await jsm.consumers.add(stream, config));
      return js.consumers.get(stream, config.durable_name);
    });
    this.heartbeat = setInterval(() => this.beat(), this.workingIntervalMs);
    this.loop = this.run(consumer);
  }

  /** The durable again (after a failed pull: it may have been deleted); null when that fails too. */
  private async reattach(): Promise<Consumer | null> {
    const { js, jsm, stream, config } = this.opts;
    try {
      this.noteCreated(await jsm.consumers.add(stream, config));
      return await js.consumers.get(stream, config.durable_name);
    } catch {
      return null;
    }
  }

  /**
   * When the durable this pool pulls from was created (the server's clock, ms), as of the last start or re-attach;
   * null before. A durable deleted and made again delivers the stream's history once more, each message as if for the
   * first time (a delivery count of 1): what was stored before this time may have been handled by the one before.
   */
  get consumerCreatedMs(): number | null {
    return this.created;
  }

  private noteCreated(info: { created: string }): void {
    const ms = Date.parse(info.created);
    this.created = Number.isFinite(ms) ? ms : null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.fetching?.stop();
    this.wake?.();
    await this.loop;
    // Not started: handed back at once for another replica (or the next start).
    for (const w of this.waiting.splice(0)) {
      this.held.delete(w.msg);
      w.msg.nak();
    }
    await Promise.all([...this.inFlight]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Messages in hand (waiting or being handled): tests, metrics. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private get capacity(): number {
    return this.opts.concurrency + this.opts.buffer;
  }

  private async run(first: Consumer): Promise<void> {
    let consumer = first;
    while (!this.stopped) {
      const room = this.capacity - this.held.size;
      if (room < this.lowWater) {
        this.waitingForRoom = true;
        await this.sleep(null);
        this.waitingForRoom = false;
        continue;
      }
      try {
        const started = performance.now();
        const batch = await consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS });
        this.fetching = batch;
        if (this.stopped) batch.stop();
        let got = 0;
        for await (const msg of batch) {
          got++;
          this.accept(msg);
        }
        // A pull the server ends at once with nothing (it should wait) must not turn into a busy loop.
        if (got === 0 && performance.now() - started < EMPTY_PULL_MIN_MS) await this.sleep(EMPTY_PULL_MIN_MS);
      } catch (err) {
        if (this.stopped) break;
        logRetriedFailure(this.opts.log, err, "pulling messages failed; trying again", { consumer: this.opts.config.durable_name, component: this.name });
        await this.sleep(RETRY_MS);
        if (!this.stopped) consumer = (await this.reattach()) ?? consumer;
      } finally {
        this.fetching = null;
      }
    }
  }

  /** Waits for `ms` (null: until room frees up), or until stopped. */
  private sleep(ms: number | null): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === null ? null : setTimeout(() => done(), ms);
      const done = (): void => {
        if (timer) clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      this.wake = done;
    });
  }

  private accept(msg: JsMsg): void {
    if (this.stopped) {
      msg.nak();
      return;
    }
    this.held.add(msg);
    this.waiting.push({ msg, receivedAt: performance.now() });
    this.pump();
  }

  /** Starts waiting messages while slots are free. */
  private pump(): void {
    while (this.running < this.opts.concurrency && this.waiting.length > 0) {
      const { msg, receivedAt } = this.waiting.shift() as Held;
      this.running++;
      const done: Promise<void> = Promise.resolve()
        .then(() => this.opts.handle(msg, receivedAt))
        .catch((err: unknown) => {
          this.opts.log.error({ err, consumer: this.opts.config.durable_name, component: this.name, seq: msg.seq }, "message handler failed; it will be redelivered");
          msg.nak(1_000);
        })
        .finally(() => {
          this.running--;
          this.held.delete(msg);
          this.inFlight.delete(done);
          this.pump();
          if (this.waitingForRoom && this.capacity - this.held.size >= this.lowWater) this.wake?.();
        });
      this.inFlight.add(done);
    }
  }

  /** Keeps every message in hand ours (a no-op for one already acknowledged). */
  private beat(): void {
    for (const msg of this.held) {
      try {
        msg.working();
      } catch {
        // The connection is closing; the server redelivers what was not acknowledged.
      }
    }
  }
}
