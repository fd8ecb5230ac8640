// Work that outlasts a NATS leader election. When the node that led a replicated stream dies, the stream answers
// nothing (no responders) or 503 until its followers elect a new leader, a few seconds on a loaded cluster. An
// idempotent write (a put of a fixed key and value) is simply sent again for a while, instead of failing the work
// that made it (a whole investigation run, restarted from collection) over a transient gap.
import { isUnavailable } from "./errors.js";

/** How long an idempotent write keeps trying through an election before its error is thrown. */
export const ELECTION_PATIENCE_MS = 10_000;

export interface RetryOptions {
  /** Which errors are worth waiting out; any other is thrown at once. */
  retryable(err: unknown): boolean;
  /** Give up (throwing the last error) once the next wait would end past this long after the first try. */
  patienceMs: number;
  /** The first wait; each next one doubles, up to `maxWaitMs`. */
  firstWaitMs: number;
  maxWaitMs: number;
}

/** Runs `work` until it succeeds, an error is not `retryable`, or the patience is spent. */
export async function retryWhile<T>(work: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const deadline = Date.now() + opts.patienceMs;
  for (let wait = opts.firstWaitMs; ; wait = Math.min(wait * 2, opts.maxWaitMs)) {
    try {
      return await work();
    } catch (err) {
      if (!opts.retryable(err) || Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** An idempotent write, sent again while NATS is unavailable (no responders included: the stream is electing). */
export function throughElections<T>(write: () => Promise<T>, patienceMs = ELECTION_PATIENCE_MS): Promise<T> {
  return retryWhile(write, { retryable: isUnavailable, patienceMs, firstWaitMs: 100, maxWaitMs: 1_000 });
}
