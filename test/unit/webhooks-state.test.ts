// The delivery state table (docs/api.md#deliveries) as pure functions.
import { test } from "tap";
import { newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import { parseRetryAfter } from "../../shared/retry-after.js";
import { classify, precheck, recordAttempt, retryDelay, truncateBody, type AttemptResult } from "../../shared/webhooks/delivery-state.js";

const DELAYS = [30_000, 120_000, 600_000, 3_600_000];
const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const envelope = { event_id: "evt_01", type: "agent.connected" as const, created_at: "2026-11-22T10:00:00.000Z", data: {} };
const fresh = (): DeliveryRecord => newDeliveryRecord({ deliveryId: "dlv_01", subscriptionId: "sub_01", envelope, nowMs: T0 });
const response = (status: number, body = ""): AttemptResult => ({ kind: "response", status, body, durationMs: 12 });

test("only the status code decides: 2xx delivered, 4xx but 408/429 permanent, the rest retried", async (t) => {
  for (const s of [200, 201, 202, 204, 299]) t.equal(classify(response(s, '{"error":"x"}')), "delivered", `${s}`);
  for (const s of [400, 401, 403, 404, 405, 409, 410, 413, 422, 499]) t.equal(classify(response(s)), "permanent", `${s}`);
  for (const s of [408, 429, 500, 502, 503, 504, 599, 301, 302, 100]) t.equal(classify(response(s)), "retry", `${s}`);
  for (const e of ["timeout", "connection_refused", "connection_reset", "dns_failure", "tls_error", "network_error"] as const) {
    t.equal(classify({ kind: "error", error: e, durationMs: 1 }), "retry", e);
  }
  t.equal(classify({ kind: "error", error: "private_target", durationMs: 0 }), "permanent", "a refused target is not retried");
  t.equal(classify({ kind: "error", error: "secret_unreadable", durationMs: 0 }), "permanent", "nor a secret the master key cannot open");
});

test("five failures: nak with each delay in turn, then failed_permanent and term", async (t) => {
  let r = fresh();
  let now = T0;
  const actions = [];
  for (let i = 0; i < 5; i++) {
    const step = recordAttempt(r, { startedMs: now, endedMs: now + 12, result: response(503, "busy"), retryDelaysMs: DELAYS, jobSeq: 7 });
    r = step.record;
    actions.push(step.action);
    now = now + 12 + (step.action.kind === "nak" ? step.action.delayMs : 0);
  }
  t.same(actions.slice(0, 4), DELAYS.map((d) => ({ kind: "nak", delayMs: d })));
  t.equal(actions[4]?.kind, "term");
  t.equal(r.status, "failed_permanent");
  t.equal(r.attempt_count, 5);
  t.equal(r.next_attempt_at, null);
  t.equal(r.last_response_code, 503);
  t.equal(r.last_error, "http_503");
  t.equal(r.internal.job_seq, 7);
  t.same(r.attempts.map((a) => a.attempt), [1, 2, 3, 4, 5]);
});

test("a pending retry records when it is due; delivered and permanent end at once", async (t) => {
  const retry = recordAttempt(fresh(), { startedMs: T0, endedMs: T0 + 100, result: { kind: "error", error: "timeout", durationMs: 100 }, retryDelaysMs: DELAYS, jobSeq: 1 });
  t.equal(retry.record.status, "pending");
  t.equal(retry.record.next_attempt_at, new Date(T0 + 100 + 30_000).toISOString(), "due = end of the attempt + first delay");
  t.equal(retry.record.last_response_code, null, "no HTTP answer");
  t.equal(retry.record.last_response_body, null);
  t.same(retry.record.attempts[0], { attempt: 1, at: new Date(T0).toISOString(), response_code: null, duration_ms: 100, error: "timeout" });

  const ok = recordAttempt(retry.record, { startedMs: T0 + 40_000, endedMs: T0 + 40_005, result: response(200, "fine"), retryDelaysMs: DELAYS, jobSeq: 1 });
  t.same(ok.action, { kind: "ack" });
  t.equal(ok.record.status, "delivered");
  t.equal(ok.record.last_error, null);
  t.equal(ok.record.last_response_body, "fine");
  t.equal(ok.record.next_attempt_at, null);

  const gone = recordAttempt(fresh(), { startedMs: T0, endedMs: T0, result: response(410), retryDelaysMs: DELAYS, jobSeq: 1 });
  t.equal(gone.action.kind, "term");
  t.equal(gone.record.status, "failed_permanent");
  t.equal(gone.record.attempt_count, 1, "remaining budget unused");
});

test("the stored response body is the first 4096 bytes", async (t) => {
  t.equal(Buffer.byteLength(truncateBody("a".repeat(10_000))), 4096);
  t.equal(truncateBody("short"), "short");
  t.ok(Buffer.byteLength(truncateBody("é".repeat(3000))) <= 4098, "a multi-byte character cut in two stays bounded");
});

test("precheck: gone, done, owned elsewhere, early, due", async (t) => {
  t.same(precheck(null, 1, T0), { kind: "gone" });
  const r = fresh();
  t.same(precheck(r, 1, T0), { kind: "attempt" }, "a new delivery is due at once");
  t.same(precheck({ ...r, status: "delivered" }, 1, T0), { kind: "done" });
  const owned = { ...r, attempt_count: 1, internal: { job_seq: 5 }, next_attempt_at: new Date(T0 + 1000).toISOString() };
  t.same(precheck(owned, 6, T0 + 5000), { kind: "done" }, "another job owns it");
  t.same(precheck(owned, 5, T0), { kind: "wait", delayMs: 1000 });
  t.same(precheck(owned, 5, T0 + 1000), { kind: "attempt" });
});

test("Retry-After: delay-seconds or an HTTP-date; anything else is no answer", async (t) => {
  t.equal(parseRetryAfter("120", T0), 120_000);
  t.equal(parseRetryAfter(" 0 ", T0), 0);
  t.equal(parseRetryAfter(new Date(T0 + 90_000).toUTCString(), T0), 90_000, "an HTTP-date, counted from now");
  t.equal(parseRetryAfter(new Date(T0 - 90_000).toUTCString(), T0), 0, "a date gone by is now");
  for (const bad of [undefined, "", "-5", "1.5", "soon", "12345678901", "Monday", "2026-13-45"]) t.equal(parseRetryAfter(bad, T0), null, JSON.stringify(bad));
});

test("Retry-After on 429 and 503 pushes the next attempt later, never sooner than the schedule, never past its longest step", async (t) => {
  const asked = (status: number, ms: number): AttemptResult => ({ kind: "response", status, body: "", durationMs: 5, retryAfterMs: ms });
  t.equal(retryDelay(asked(503, 300_000), 30_000, DELAYS), 300_000, "later, as asked");
  t.equal(retryDelay(asked(429, 5_000), 30_000, DELAYS), 30_000, "not sooner than the schedule");
  t.equal(retryDelay(asked(503, 86_400_000), 30_000, DELAYS), 3_600_000, "capped by the longest step");
  t.equal(retryDelay(asked(500, 300_000), 30_000, DELAYS), 30_000, "only 429 and 503 are read");
  t.equal(retryDelay(response(503), 30_000, DELAYS), 30_000, "no header: the schedule");
  const step = recordAttempt(fresh(), { startedMs: T0, endedMs: T0 + 5, result: asked(429, 600_000), retryDelaysMs: DELAYS, jobSeq: 1 });
  t.same(step.action, { kind: "nak", delayMs: 600_000 });
  t.equal(step.record.next_attempt_at, new Date(T0 + 5 + 600_000).toISOString(), "the record says when, too");
  t.equal(step.record.status, "pending");
});
