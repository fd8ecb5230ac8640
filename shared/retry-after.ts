// Reading a `Retry-After` header, for every client of ours that honours one: the dispatcher (a receiver's 429 or
// 503) and the CLI (the gateway's 429 or 503).

/**
 * A `Retry-After` value (RFC 9110: delay-seconds or an HTTP-date) as milliseconds from `nowMs`; null when it is
 * missing or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^[0-9]{1,10}$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null; // a date always names its day and month
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
