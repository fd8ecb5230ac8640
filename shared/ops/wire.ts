// The ops pieces every service without an HTTP API starts (docs/operations.md): readiness that turns false once a
// shutdown begins, runtime metrics (memory, NATS, consumer lag) and, when INQUEST_OPS_PORT is set, the ops port.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Component, Lifecycle } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { Readiness } from "../nats/readiness.js";
import type { Runtime } from "../runtime.js";
import type { Registry } from "./metrics.js";
import { RuntimeMetrics, type WatchedConsumer } from "./runtime-metrics.js";
import { OpsServer } from "./server.js";

export interface OpsWiring {
  config: { INQUEST_OPS_HOST: string; INQUEST_OPS_PORT: number | undefined };
  nc: NatsConnection;
  rt: Runtime;
  life: Lifecycle;
  log: Logger;
  registry: Registry;
  /** Streams the service relies on (buckets as KV_<bucket>). */
  streams: () => string[];
  consumers: WatchedConsumer[];
}

/** Components to start first (so they stop last): readiness, runtime metrics, then the ops port if configured. */
export function opsComponents(w: OpsWiring): Component[] {
  const readiness = new Readiness(w.nc, w.streams, 1_000, () => w.life.draining);
  const out: Component[] = [readiness, new RuntimeMetrics(w.registry, w.nc, w.rt.jsm, w.consumers, w.log)];
  if (w.config.INQUEST_OPS_PORT !== undefined) {
    out.push(new OpsServer({ host: w.config.INQUEST_OPS_HOST, port: w.config.INQUEST_OPS_PORT, ready: () => readiness.check(), metrics: w.registry, log: w.log }));
  }
  return out;
}
