// The ticker's metrics (docs/operations.md#metrics): how late due runs start, runs triggered, who leads.
import type { Histogram, Counter, Registry } from "../../shared/ops/metrics.js";

export interface TickerMetrics {
  /** Seconds from a run's next_run_at to its claim. */
  lateness: Histogram;
  triggered: Counter;
}

const LATENESS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function tickerMetrics(registry: Registry, isLeader: () => boolean): TickerMetrics {
  registry.gauge("inquest_ticker_leader", "1 while this ticker holds the lease.", () => (isLeader() ? 1 : 0));
  return {
    lateness: registry.histogram("inquest_ticker_lateness_seconds", "From a curiosity run's next_run_at to its claim (the contract allows 1 s).", LATENESS_BUCKETS),
    triggered: zeroed(registry.counter("inquest_ticker_runs_triggered_total", "Curiosity runs whose investigation this ticker triggered.")),
  };
}

/** A counter shown as 0 from the start, so that `increase()` counts its first run (a series appears with it otherwise). */
function zeroed<C extends { inc(labels?: Record<string, string>, by?: number): void }>(c: C): C {
  c.inc({}, 0);
  return c;
}
