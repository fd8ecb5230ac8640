// A durable pull consumer worked by a pool: messages are consumed continuously, at most `concurrency` are
// handled at once, and `stop()` waits for the ones in hand. Every replica of a service attaches to the same
// durable, so JetStream spreads the messages across them.
import type { ConsumerConfig, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { Permits } from "./permits.js";

export interface PooledConsumerOptions {
  name: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** The durable's configuration; `durable_name` is required. Re-adding it updates the durable. */
  config: Partial<ConsumerConfig> & { durable_name: string };
  /** Messages handled at once. */
  concurrency: number;
  /** Messages the client buffers ahead of the pool. */
  buffer: number;
  log: Logger;
  /**
   * Handles one message; the pool slot is held until the returned promise settles. It must ack, nak or term
   * the message itself. `receivedAt` is performance.now() when the message arrived.
   */
  handle(msg: JsMsg, receivedAt: number): Promise<void>;
}

export class PooledConsumer implements Component {
  readonly name: string;
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly permits: Permits;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly opts: PooledConsumerOptions) {
    this.name = opts.name;
    this.permits = new Permits(opts.concurrency);
  }

  async start(): Promise<void> {
    const { js, jsm, stream, config } = this.opts;
    await jsm.consumers.add(stream, config);
    const consumer = await js.consumers.get(stream, config.durable_name);
    this.messages = await consumer.consume({ max_messages: this.opts.buffer });
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
        const done = this.opts
          .handle(msg, receivedAt)
          .catch((err: unknown) => {
            this.opts.log.error({ err, consumer: this.name, seq: msg.seq }, "message handler failed; it will be redelivered");
            msg.nak(1_000);
          })
          .finally(() => {
            this.permits.release();
            this.inFlight.delete(done);
          });
        this.inFlight.add(done);
      }
    } catch (err) {
      if (!this.stopped) this.opts.log.error({ err, consumer: this.name }, "consumer stopped unexpectedly");
    }
  }
}
