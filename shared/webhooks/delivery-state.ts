// The delivery state table (docs/api.md#deliveries) as pure functions: an attempt's result in, the next record and
// what to do with the job out. The dispatcher maps `JobAction` to ack / nak(delay) / term in one place.
import { iso } from "../clock.js";
import type { DeliveryRecord } from "./delivery-record.js";

/** What one POST came to. Only the status code of an answer is inspected. */
export type AttemptResult =
  /** `retryAfterMs`: what a `Retry-After` header asked for, read by `parseRetryAfter` (absent: none or unreadable). */
  | { kind: "response"; status: number; body: string; durationMs: number; retryAfterMs?: number; headers?: Record<string, string> }
  | { kind: "error"; error: SendError; durationMs: number };

export type SendError =
  | "timeout"
  | "connection_refused"
  | "connection_reset"
  | "dns_failure"
  | "tls_error"
  | "network_error"
  /** The host resolved to a loopback/private/link-local/metadata address at send time: nothing was sent. */
  | "private_target"
  | "invalid_url"
  /** The subscription's stored secret cannot be opened with this master key: nothing was sent, and nothing can be. */
  | "secret_unreadable";

/** Errors no later attempt can change. */
const PERMANENT_ERRORS: ReadonlySet<SendError> = new Set<SendError>(["private_target", "invalid_url", "secret_unreadable"]);

export type Verdict = "delivered" | "retry" | "permanent";

/** 2xx delivered; 4xx other than 408 and 429 permanent; 408, 429, 5xx, other answers and network errors retried. */
export function classify(result: AttemptResult): Verdict {
  if (result.kind === "error") return PERMANENT_ERRORS.has(result.error) ? "permanent" : "retry";
  const s = result.status;
  if (s >= 200 && s <= 299) return "delivered";
  if (s >= 400 && s <= 499 && s !== 408 && s !== 429) return "permanent";
  return "retry";
}

/**
 * The wait before the next attempt: the schedule's step, pushed later when a 429 or 503 says `Retry-After`, but
 * never past the schedule's longest step (a receiver cannot park a delivery for days, nor make it retry sooner
 * than the schedule and spend its attempts in a burst).
 */
export function retryDelay(result: AttemptResult, scheduledMs: number, retryDelaysMs: readonly number[]): number {
  if (result.kind !== "response" || (result.status !== 429 && result.status !== 503) || result.retryAfterMs === undefined) return scheduledMs;
  const longest = Math.max(scheduledMs, ...retryDelaysMs);
  return Math.min(longest, Math.max(scheduledMs, result.retryAfterMs));
}

export type JobAction = { kind: "ack" } | { kind: "nak"; delayMs: number } | { kind: "term"; reason: string };

export const RESPONSE_BODY_LIMIT = 4096;

/** The response headers kept with an attempt; the rest is not stored. */
export const KEPT_RESPONSE_HEADERS = ["content-type", "content-length", "retry-after", "date", "server", "x-request-id", "location"] as const;
const HEADER_VALUE_LIMIT = 256;

/** The kept headers of an answer (the receiver's, so untrusted: only these names, each value cut short). */
export function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_RESPONSE_HEADERS) {
    const v = headers[name];
    const text = Array.isArray(v) ? v.join(", ") : v;
    if (text !== undefined) out[name] = text.slice(0, HEADER_VALUE_LIMIT);
  }
  return out;
}

/** The first 4096 bytes of a body as text (a cut multi-byte character becomes U+FFFD). */
export function truncateBody(body: Buffer | string): string {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return bytes.subarray(0, RESPONSE_BODY_LIMIT).toString("utf8");
}

export interface AttemptInput {
  /** When the attempt started (ms). */
  startedMs: number;
  /** When it ended (ms): the retry delay counts from here. */
  endedMs: number;
  result: AttemptResult;
  /** The four delays before attempts 2..5 (INQUEST_RETRY_DELAYS); attempts allowed = delays + 1. */
  retryDelaysMs: readonly number[];
  /** The job making the attempt (it owns the delivery from then on); null for the fan-out's first attempt, made before any job exists. */
  jobSeq: number | null;
}

/** Applies one attempt to a pending delivery. */
export function recordAttempt(current: DeliveryRecord, input: AttemptInput): { record: DeliveryRecord; action: JobAction } {
  const { result, endedMs } = input;
  const attempt = current.attempt_count + 1;
  const verdict = classify(result);
  const responseCode = result.kind === "response" ? result.status : null;
  const error = result.kind === "error" ? result.error : verdict === "delivered" ? null : `http_${result.status}`;
  const maxAttempts = input.retryDelaysMs.length + 1;
  const retry = verdict === "retry" && attempt < maxAttempts;
  const delayMs = retry ? retryDelay(result, input.retryDelaysMs[attempt - 1] ?? 0, input.retryDelaysMs) : 0;
  const status = verdict === "delivered" ? "delivered" : retry ? "pending" : "failed_permanent";
  const record: DeliveryRecord = {
    ...current,
    status,
    attempt_count: attempt,
    last_response_code: responseCode,
    last_response_body: result.kind === "response" ? truncateBody(result.body) : null,
    last_error: error,
    next_attempt_at: retry ? iso(endedMs + delayMs) : null,
    updated_at: iso(endedMs),
    attempts: [
      ...current.attempts,
      { attempt, at: iso(input.startedMs), response_code: responseCode, duration_ms: Math.max(0, Math.round(result.durationMs)), error },
    ],
    internal: {
      ...current.internal,
      job_seq: input.jobSeq,
      answers: [
        ...(current.internal.answers ?? current.attempts.map(() => ({ response_headers: null, response_body: null }))),
        result.kind === "response" ? { response_headers: result.headers ?? {}, response_body: truncateBody(result.body) } : { response_headers: null, response_body: null },
      ],
    },
  };
  const action: JobAction =
    status === "delivered" ? { kind: "ack" } : status === "pending" ? { kind: "nak", delayMs } : { kind: "term", reason: `delivery failed permanently (${error ?? "error"})` };
  return { record, action };
}

/** A delivery whose subscription is gone ends failed_permanent without another attempt. */
export function abandonDelivery(current: DeliveryRecord, nowMs: number, reason: "subscription_deleted"): DeliveryRecord {
  return { ...current, status: "failed_permanent", last_error: reason, next_attempt_at: null, updated_at: iso(nowMs) };
}

/** What a job should do before it sends anything. */
export type Precheck =
  | { kind: "gone" } // the record expired or never existed
  | { kind: "done" } // already terminal, or owned by another job
  | { kind: "wait"; delayMs: number } // redelivered before its retry time (after a crash)
  | { kind: "attempt" };

/** Early redeliveries within this margin are sent at once (timer jitter). */
const EARLY_MARGIN_MS = 20;

export function precheck(record: DeliveryRecord | null, jobSeq: number, nowMs: number): Precheck {
  if (!record) return { kind: "gone" };
  if (record.status !== "pending") return { kind: "done" };
  if (record.internal.job_seq !== null && record.internal.job_seq !== jobSeq) return { kind: "done" };
  const due = record.next_attempt_at === null ? nowMs : Date.parse(record.next_attempt_at);
  if (record.attempt_count > 0 && due - nowMs > EARLY_MARGIN_MS) return { kind: "wait", delayMs: due - nowMs };
  return { kind: "attempt" };
}
