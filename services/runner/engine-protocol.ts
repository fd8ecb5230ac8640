// What crosses between the runner and its engine worker threads: plain JSON in; out, the report without its
// findings and each finding already serialized, most severe first. A worker answers each request with the same
// `id`, in order; a throw inside the engine comes back as `{ id, error }`.
//
// Serializing the findings on the worker keeps them off the runner's main thread: a run over 10,000 hosts has
// 10,000 findings (about 10 MB of JSON), which the main thread used to receive as objects (a structured clone),
// then serialize for the findings chunks and again for the events. Now it receives strings and only adds ids.
import type { MessagePort } from "node:worker_threads";
import { markNewFindings } from "../../shared/engine/index.js";
import type { CoverageInput, Depth, EngineFinding, HostData, Report, RoutePlan } from "../../shared/engine/types.js";
import { bySeverity } from "../../shared/investigations/findings.js";

export interface EvaluationInput {
  plan: RoutePlan;
  hosts: HostData[];
  coverage: CoverageInput;
  depth: Depth;
  /** Findings of the same curiosity item's previous run: each finding then carries `new_since_last_run`. */
  previous?: EngineFinding[] | null;
}

/** The engine's report, with its findings serialized: JSON of each (every field but `finding_id`), most severe first. */
export interface Evaluation {
  report: Omit<Report, "findings">;
  findings: string[];
}

export interface EvaluationRequest {
  id: number;
  input: EvaluationInput;
}

export type EvaluationReply = { id: number; evaluation: Evaluation } | { id: number; error: string };

/** The report as it leaves the worker: findings marked new (against `previous`), ordered, serialized. */
export function serializeEvaluation(report: Report, previous: readonly EngineFinding[] | null | undefined): Evaluation {
  const { findings, ...rest } = report;
  const isNew = previous ? markNewFindings(previous, findings) : null;
  const marked = isNew ? findings.map((f, i) => ({ ...f, new_since_last_run: isNew[i] ?? true })) : findings;
  return { report: rest, findings: bySeverity(marked).map((f) => JSON.stringify(f)) };
}

/** Worker side: answers every request on `port` with `evaluate` (synchronous: it owns the worker's thread). */
export function serveEvaluations(port: Pick<MessagePort, "on" | "postMessage">, evaluate: (input: EvaluationInput) => Report): void {
  port.on("message", (req: EvaluationRequest) => {
    let reply: EvaluationReply;
    try {
      reply = { id: req.id, evaluation: serializeEvaluation(evaluate(req.input), req.input.previous) };
    } catch (err) {
      reply = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply);
  });
}
