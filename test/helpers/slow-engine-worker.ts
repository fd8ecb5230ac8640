// An engine worker whose evaluations take at least `workerData.spinMs`, spent busy on the worker's thread the way
// a heavy evaluation is (not a timer): tests use it to make evaluations slower than the work queue's ack_wait.
// With `workerData.crash` the worker dies on its first evaluation.
import { parentPort, workerData } from "node:worker_threads";
import { runInvestigation } from "../../shared/engine/index.js";
import { serveEvaluations } from "../../services/runner/engine-protocol.js";

const options = (workerData ?? {}) as { spinMs?: number; crash?: boolean };
const spinMs = options.spinMs ?? 0;

if (!parentPort) throw new Error("runs as a worker thread");
serveEvaluations(parentPort, (input) => {
  if (options.crash) process.exit(3); // a worker that dies mid-evaluation
  const until = Date.now() + spinMs;
  while (Date.now() < until) {
    // busy, as a long synchronous evaluation is
  }
  return runInvestigation(input.plan, input.hosts, input.coverage, input.depth);
});
