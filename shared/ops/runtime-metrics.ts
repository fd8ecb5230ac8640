// Metrics every service exposes: its memory, its NATS connection (up, reconnects) and the lag of the durable
// consumers it works (docs/operations.md#metrics). Consumer info is fetched every `lagEveryMs`, not per scrape, so a
// scrape never waits on NATS.
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import type { Counter, Registry } from "./metrics.js";

export interface WatchedConsumer {
  stream: string;
  durable: string;
}

interface Lag {
  pending: number;
  ackPending: number;
  redelivered: number;
}

export class RuntimeMetrics implements Component {
  readonly name = "runtime-metrics";
  private connected = 1;
  private readonly reconnects: Counter;
  private readonly lag = new Map<string, Lag>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    registry: Registry,
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly consumers: WatchedConsumer[],
    private readonly log: Logger,
    private readonly lagEveryMs = 5_000,
  ) {
    registry.gauge("process_resident_memory_bytes", "Resident set size.", () => process.memoryUsage.rss());
    registry.gauge("nodejs_heap_used_bytes", "V8 heap in use.", () => process.memoryUsage().heapUsed);
    registry.gauge("inquest_nats_connected", "1 while the NATS connection is up.", () => (this.nc.isClosed() ? 0 : this.connected));
    this.reconnects = registry.counter("inquest_nats_reconnects_total", "Times the NATS connection came back after a disconnect.");
    this.reconnects.inc({}, 0); // exposed as 0 from the start, so increase() (the flapping alert) counts the first
    const perConsumer = (pick: (l: Lag) => number) => () => [...this.lag].map(([key, l]) => ({ labels: labelsOf(key), value: pick(l) }));
    registry.gauge("inquest_consumer_pending_messages", "Messages in the stream not yet delivered to the durable consumer (lag).", perConsumer((l) => l.pending));
    registry.gauge("inquest_consumer_ack_pending_messages", "Messages delivered to the consumer and not acknowledged yet.", perConsumer((l) => l.ackPending));
    registry.gauge("inquest_consumer_redelivered_messages", "Messages delivered more than once and still unacknowledged.", perConsumer((l) => l.redelivered));
  }

  async start(): Promise<void> {
    void this.follow();
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.lagEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  private async follow(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === "disconnect") this.connected = 0;
      else if (s.type === "reconnect") {
        this.connected = 1;
        this.reconnects.inc();
      }
    }
  }

  private async refresh(): Promise<void> {
    for (const c of this.consumers) {
      const key = `${c.stream}\u0000${c.durable}`;
      try {
        const info = await this.jsm.consumers.info(c.stream, c.durable);
        this.lag.set(key, { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered });
      } catch (err) {
        // No series rather than the last value read: a consumer deleted, or NATS down, showed a lag frozen at
        // whatever it was, on which a lag alert neither fires nor clears.
        this.lag.delete(key);
        this.log.debug({ err, ...c }, "consumer info unavailable for the lag metric");
      }
    }
  }
}

function labelsOf(key: string): { stream: string; consumer: string } {
  const [stream = "", consumer = ""] = key.split("\u0000");
  return { stream, consumer };
}
