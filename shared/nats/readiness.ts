// Readiness of a service: NATS connected and every stream and bucket it relies on present. The connection
// state comes from the client's status events, so while NATS is down the answer is immediate and sends
// nothing; while connected, one listing request bounded by `timeoutMs` checks the streams.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection, Status } from "@nats-io/transport-node";
import type { Component } from "../lifecycle.js";
import { isUnavailable } from "./errors.js";

export interface ReadinessResult {
  ok: boolean;
  reason?: string;
}

export class Readiness implements Component {
  readonly name = "readiness";
  private connected = true;
  private jsm: JetStreamManager | null = null;

  constructor(
    private readonly nc: NatsConnection,
    /** Every stream the caller relies on (buckets as `KV_<bucket>`). */
    private readonly streams: () => string[],
    private readonly timeoutMs = 1_000,
    /** True once a shutdown began (Lifecycle.draining): not ready from then on, whatever NATS says. */
    private readonly draining: () => boolean = () => false,
  ) {}

  async start(): Promise<void> {
    void this.follow(this.nc.status());
    this.jsm = await jetstreamManager(this.nc, { timeout: this.timeoutMs });
  }

  /** The status iterator ends when the connection closes (the shutdown drains NATS last). */
  async stop(): Promise<void> {}

  private async follow(events: AsyncIterable<Status>): Promise<void> {
    for await (const s of events) {
      if (s.type === "disconnect" || s.type === "close") this.connected = false;
      else if (s.type === "reconnect") this.connected = true;
    }
  }

  /** Whether the last status event left the connection up (no request is sent to find out). */
  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  async check(): Promise<ReadinessResult> {
    if (this.draining()) return { ok: false, reason: "shutting down" };
    if (this.nc.isClosed()) return { ok: false, reason: "NATS connection closed" };
    if (!this.isConnected() || this.jsm === null) return { ok: false, reason: "NATS disconnected" };
    try {
      const present = new Set<string>();
      for await (const name of this.jsm.streams.names()) present.add(name);
      const missing = this.streams().filter((n) => !present.has(n));
      return missing.length === 0 ? { ok: true } : { ok: false, reason: `missing streams: ${missing.join(", ")}` };
    } catch (err) {
      return { ok: false, reason: isUnavailable(err) ? "NATS did not answer" : err instanceof Error ? err.message : String(err) };
    }
  }
}
