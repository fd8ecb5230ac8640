// Writes that outlast a NATS leader election. When the node that led a replicated stream dies, the stream answers
// nothing (no responders) or 503 until its followers elect a new leader, a few seconds on a loaded cluster. An
// idempotent write (a put of a fixed key and value) is simply sent again for a while, instead of failing the work
// that made it (a whole investigation run, restarted from collection) over a transient gap.
import { isUnavailable } from "./errors.js";

/** How long an idempotent write keeps trying through an election before its error is thrown. */
export const ELECTION_PATIENCE_MS = 10_000;

export async function throughElections<T>(write: () => Promise<T>, patienceMs = ELECTION_PATIENCE_MS): Promise<T> {
  const deadline = Date.now() + patienceMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      return await write();
    } catch (err) {
      if (!isUnavailable(err) || Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
