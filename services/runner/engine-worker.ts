// A worker thread of the runner's engine pool: runs the compiled engine on the rows the main thread collects, as
// they come in, so a long evaluation never holds up the main thread (its work-queue heartbeats, cancels and NATS traffic).
import { parentPort } from "node:worker_threads";
import { InvestigationRun } from "../../shared/engine/index.js";
import { serveEvaluations } from "./engine-protocol.js";

if (!parentPort) throw new Error("engine-worker.js runs as a worker thread of the runner");
serveEvaluations(parentPort, { start: (plan) => new InvestigationRun(plan) });
