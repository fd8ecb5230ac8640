// One HTTP call of the CLI to the gateway, failing in words an operator can act on: which URL could not be reached and
// why (fetch alone says "fetch failed"), and an answer that is not JSON (a proxy's error page) named as such instead
// of surfacing as a JSON parse error.

import { parseRetryAfter } from "../shared/retry-after.js";

/** Longest the CLI waits for one answer: a gateway that accepts the connection and never answers is not waited on forever. */
const CALL_TIMEOUT_MS = 30_000;

export interface Answer {
  status: number;
  /** The wait a 429 or 503 asks for (Retry-After, seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  /** Why `body` is undefined: the answer described for the error message. */
  notJson: string | null;
}

/** The gateway was not reached, or did not answer in time: nothing came back. */
export class UnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreachableError";
  }
}

export async function callGateway(method: "GET" | "POST", url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    text = await res.text();
  } catch (err) {
    throw new UnreachableError(`cannot reach the gateway at ${new URL(url).origin} (${method} ${url}): ${reason(err)}`);
  }
  let parsed: unknown;
  let notJson: string | null = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type") ?? "no content type";
    notJson = `${method} ${url} answered ${res.status} with a body that is not JSON (${type}): ${text.slice(0, 200).replace(/\s+/g, " ").trim() || "(empty)"}`;
  }
  return { status: res.status, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), Date.now()), body: parsed, notJson };
}

/** The answer's JSON body, or an Error saying what came instead. */
export function jsonBody<T>(answer: Answer): T {
  if (answer.notJson !== null) throw new Error(answer.notJson);
  return answer.body as T;
}

/** What undici hides under "fetch failed": the system error (ECONNREFUSED 127.0.0.1:8080, ENOTFOUND) or the timeout. */
function reason(err: unknown): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${CALL_TIMEOUT_MS / 1000}s`;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    // A connection that tried several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError of each.
    const inner = cause instanceof AggregateError && cause.errors.length > 0 ? (cause.errors as Error[]) : [cause];
    return [...new Set(inner.map((e) => e.message || (e as NodeJS.ErrnoException).code || String(e)))].join("; ");
  }
  return err instanceof Error ? err.message : String(err);
}

