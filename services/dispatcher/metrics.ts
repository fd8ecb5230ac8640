// The dispatcher's metrics (docs/operations.md#metrics): every attempt by how it ended and the class of the
// answer's status, and how long the endpoints took to answer.
import type { Registry } from "../../shared/ops/metrics.js";
import type { AttemptResult } from "../../shared/webhooks/delivery-state.js";
import type { DeliveryStatus } from "../../shared/webhooks/schemas.js";
import { FIRST_ATTEMPT_OUTCOMES, type FirstAttemptOutcome } from "./first-attempt.js";

/** Seconds an attempt took: a fast endpoint to the delivery timeout. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type AttemptObserver = (result: AttemptResult, status: DeliveryStatus) => void;

/** `outcome`: delivered, retry (still pending) or dead_letter; `status_class`: 2xx..5xx, or none without an answer. */
export function deliveryMetrics(registry: Registry): AttemptObserver {
  const attempts = registry.counter("inquest_delivery_attempts_total", "Webhook delivery attempts, by outcome (delivered, retry, dead_letter) and answer status class (none: no HTTP answer).");
  const durations = registry.histogram("inquest_delivery_attempt_duration_seconds", "How long webhook endpoints took to answer an attempt (or to fail).", ATTEMPT_BUCKETS);
  // Exposed at 0 from the start: a series born at 1 has no earlier sample, so increase() (the dead-letter alert)
  // missed the first dead letter of each class. 2xx never ends in one (delivery-state.ts: classify).
  for (const statusClass of ["3xx", "4xx", "5xx", "none"]) attempts.inc({ outcome: "dead_letter", status_class: statusClass }, 0);
  return (result, status) => {
    const outcome = status === "delivered" ? "delivered" : status === "pending" ? "retry" : "dead_letter";
    const statusClass = result.kind === "response" ? `${Math.floor(result.status / 100)}xx` : "none";
    attempts.inc({ outcome, status_class: statusClass });
    durations.observe(result.durationMs / 1000);
  };
}

/** Jobs sent back to wait because their subscription's rate_limit_per_second was reached this second. */
export function rateLimitedMetric(registry: Registry): () => void {
  const waits = registry.counter("inquest_delivery_rate_limited_total", "Webhook deliveries made to wait (no attempt spent) because their subscription's rate_limit_per_second was reached.");
  waits.inc({}, 0); // 0 from the start, so increase() counts the first
  return () => waits.inc({});
}

/** How the fan-out's first attempts went (first-attempt.ts: made, or why the delivery took the job path). */
export function firstAttemptMetric(registry: Registry): (outcome: FirstAttemptOutcome) => void {
  const outcomes = registry.counter(
    "inquest_delivery_first_attempts_total",
    "Deliveries the fan-out looked at, by outcome: made (first attempt made by the fan-out), deleted, joined, or why it took the job path (inactive, rate_limited, unhealthy, busy, recorded).",
  );
  for (const outcome of FIRST_ATTEMPT_OUTCOMES) outcomes.inc({ outcome }, 0); // every outcome's series from the start
  return (outcome) => outcomes.inc({ outcome });
}
