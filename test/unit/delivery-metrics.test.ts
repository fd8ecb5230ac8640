// The dispatcher's attempt counter: the dead-letter series are scraped at 0 before the first dead letter, so
// Prometheus' increase() (the InquestWebhookDeadLetters alert) counts the first one too; a series born at 1 has no
// earlier sample to count from.
import { test } from "tap";
import { Registry } from "../../shared/ops/metrics.js";
import { deliveryMetrics } from "../../services/dispatcher/metrics.js";
import { sample } from "../helpers/metrics.js";

test("dead-letter series at 0 from the start, for every answer class that can end in one", async (t) => {
  const registry = new Registry();
  const observe = deliveryMetrics(registry);
  const series = (cls: string) => `inquest_delivery_attempts_total{outcome="dead_letter",status_class="${cls}"} `;
  for (const cls of ["3xx", "4xx", "5xx", "none"]) t.equal(sample(registry.render(), series(cls)), 0, `${cls}: 0 before any dead letter`);
  observe({ kind: "response", status: 410, body: "", durationMs: 5 }, "failed_permanent");
  t.equal(sample(registry.render(), series("4xx")), 1, "then counted");
  t.equal(sample(registry.render(), series("5xx")), 0);
});

test("the other counters increase() is asked about are scraped at 0 before their first event", async (t) => {
  const { firstAttemptMetric, rateLimitedMetric } = await import("../../services/dispatcher/metrics.js");
  const { FIRST_ATTEMPT_OUTCOMES } = await import("../../services/dispatcher/first-attempt.js");
  const { tickerMetrics } = await import("../../services/ticker/metrics.js");
  const registry = new Registry();
  const waited = rateLimitedMetric(registry);
  const looked = firstAttemptMetric(registry);
  const ticker = tickerMetrics(registry, () => false);
  t.equal(sample(registry.render(), "inquest_delivery_rate_limited_total "), 0);
  t.equal(sample(registry.render(), "inquest_ticker_runs_triggered_total "), 0);
  for (const outcome of FIRST_ATTEMPT_OUTCOMES) t.equal(sample(registry.render(), `inquest_delivery_first_attempts_total{outcome="${outcome}"} `), 0, outcome);
  waited();
  looked("busy");
  ticker.triggered.inc();
  t.equal(sample(registry.render(), "inquest_delivery_rate_limited_total "), 1);
  t.equal(sample(registry.render(), 'inquest_delivery_first_attempts_total{outcome="busy"} '), 1);
  t.equal(sample(registry.render(), "inquest_ticker_runs_triggered_total "), 1);
});
