// An engine worker whose evaluations take at least `workerData.spinMs` to finish, spent busy on the worker's thread the way
// a heavy evaluation is (not a timer): tests use it to make evaluations slower than the work queue's ack_wait.
// With `workerData.crash` the worker dies on its first finish; `workerData.added` (a SharedArrayBuffer) counts the
// hosts its evaluations were given; with `workerData.stallHost` adding the host of that name never ends (a value
// built to make a detection's pattern backtrack).
import { parentPort, workerData } from "node:worker_threads";
import { InvestigationRun } from "../../shared/engine/index.js";
import { serveEvaluations } from "../../services/runner/engine-protocol.js";

const options = (workerData ?? {}) as { spinMs?: number; crash?: boolean; added?: SharedArrayBuffer; stallHost?: string };
/** Hosts this worker's evaluations were given, counted where the test can read them (workerData.added). */
const added = options.added ? new Int32Array(options.added) : null;
const spinMs = options.spinMs ?? 0;

if (!parentPort) throw new Error("runs as a worker thread");
serveEvaluations(parentPort, {
  start(plan) {
    const run = new InvestigationRun(plan);
    return {
      add(host) {
        while (host.hostname === options.stallHost) {
          // stalled on this host's rows
        }
        run.add(host);
        if (added) Atomics.add(added, 0, 1);
      },
      finish(coverage, depth) {
        if (options.crash) process.exit(3); // a worker that dies mid-evaluation
        const until = Date.now() + spinMs;
        while (Date.now() < until) {
          // busy, as a long synchronous evaluation is
        }
        return run.finish(coverage, depth);
      },
    };
  },
});
