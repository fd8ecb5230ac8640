// How far a service's heap may grow past what its last full garbage collection kept (docs/operations.md#memory).
//
// V8 sizes the old generation after each full collection as what survived times a growing factor, and picks a
// factor of up to 4 when collections look cheap. A service that allocates in bursts (the runner over 10,000 hosts:
// thousands of plan requests and event publishes in flight, each living just long enough to be promoted) then
// holds several times its live data: the runner's main heap reached 272 MB with 40-60 MB live. A fixed factor of
// 1 + percent/100 makes V8 collect sooner instead; unlike --max-old-space-size it sets no ceiling, so a larger
// fleet costs more collections, never an out-of-memory crash.
import { setFlagsFromString } from "node:v8";

/**
 * Fixes V8's heap growing factor at 1 + percent/100 for every isolate of this process, worker threads included;
 * 0 leaves V8's own choice. V8 reads the flag each time it sizes the heap after a full collection, so setting it
 * once the process runs takes effect (test/unit/heap.test.ts checks that it does).
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
