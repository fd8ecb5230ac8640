// What crosses between the runner and its engine worker threads: plain JSON in, plain JSON out. A worker answers
// each request with the same `id`, in order; a throw inside the engine comes back as `{ id, error }`.
import type { MessagePort } from "node:worker_threads";
import type { CoverageInput, Depth, HostData, Report, RoutePlan } from "../../shared/engine/types.js";

export interface EvaluationInput {
  plan: RoutePlan;
  hosts: HostData[];
  coverage: CoverageInput;
  depth: Depth;
}

export interface EvaluationRequest {
  id: number;
  input: EvaluationInput;
}

export type EvaluationReply = { id: number; report: Report } | { id: number; error: string };

/** Worker side: answers every request on `port` with `evaluate` (synchronous: it owns the worker's thread). */
export function serveEvaluations(port: Pick<MessagePort, "on" | "postMessage">, evaluate: (input: EvaluationInput) => Report): void {
  port.on("message", (req: EvaluationRequest) => {
    let reply: EvaluationReply;
    try {
      reply = { id: req.id, report: evaluate(req.input) };
    } catch (err) {
      reply = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply);
  });
}
