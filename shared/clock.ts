// Time is a parameter wherever it matters (ticker, retries, idempotency window, signatures).
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

let lastMs = Number.NaN;
let lastIso = "";

/** RFC 3339 UTC with milliseconds, e.g. 2026-11-22T10:00:00.000Z. The last one is kept: under load most calls share a millisecond. */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
