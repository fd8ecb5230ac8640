// What crosses between the runner and its engine worker threads: plain JSON in; out, the report without its
// findings and each finding already serialized, most severe first. A worker answers each request with the same
// `id`, in order; a throw inside the engine comes back as `{ id, error }`.
//
// Serializing the findings on the worker keeps them off the runner's main thread: a run over 10,000 hosts has
// 10,000 findings (about 10 MB of JSON), which the main thread used to receive as objects (a structured clone),
// then serialize for the findings chunks and again for the events. Now it receives strings and only adds ids.
//
// The rows go the other way as text: each host's answer (a plan reply or a snapshot) stays the JSON the agent
// sent, checked by the runner, and crosses to the worker inside one string that the worker parses once. 10,000
// answers are then one string to copy rather than a graph of some 300,000 objects for the main thread to keep and
// clone (and 10,000 byte arrays cost more to clone than that graph).
import type { MessagePort } from "node:worker_threads";
import { markNewFindings } from "../../shared/engine/index.js";
import type { CoverageInput, Depth, EngineFinding, HostData, Report, Row, RoutePlan } from "../../shared/engine/types.js";
import { bySeverity } from "../../shared/investigations/findings.js";

/**
 * One host's rows as collected: who it is (from the registry), when its rows were collected, and `answer`, JSON
 * of an object whose `tables` holds at most the tables the plan asked for (`collectedHost`).
 */
export interface CollectedHost {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  collected_at: string;
  answer: string;
}

type Tables = Record<string, Row[]>;

/**
 * A checked answer kept as text: the agent's own when it holds only wanted tables, else the wanted tables
 * serialized again, so an agent cannot make the runner keep tables nobody asked for.
 */
export function collectedHost(who: Omit<CollectedHost, "answer">, text: string, tables: Tables, wanted: readonly string[]): CollectedHost {
  const onlyWanted = Object.keys(tables).every((t) => wanted.includes(t));
  return { ...who, answer: onlyWanted ? text : JSON.stringify({ tables: pick(tables, wanted) }) };
}

/** The hosts as they cross to the worker: who each is, and every answer in one JSON array (in the same order). */
export interface PackedHosts {
  who: Array<Omit<CollectedHost, "answer">>;
  answers: string;
}

export function packHosts(hosts: readonly CollectedHost[]): PackedHosts {
  return { who: hosts.map(({ answer: _answer, ...who }) => who), answers: `[${hosts.map((h) => h.answer).join(",")}]` };
}

/** The engine's view of the hosts: each one's wanted tables, read from its answer. */
export function unpackHosts(packed: PackedHosts, wanted: readonly string[]): HostData[] {
  const answers = JSON.parse(packed.answers) as Array<{ tables: Tables }>;
  return packed.who.map((who, i) => ({ ...who, tables: pick(answers[i]?.tables ?? {}, wanted) }));
}

function pick(tables: Tables, wanted: readonly string[]): Tables {
  const out: Tables = {};
  for (const t of wanted) if (tables[t]) out[t] = tables[t] as Row[];
  return out;
}

export interface EvaluationInput {
  plan: RoutePlan;
  hosts: CollectedHost[];
  coverage: CoverageInput;
  depth: Depth;
  /** Findings of the same curiosity item's previous run: each finding then carries `new_since_last_run`. */
  previous?: EngineFinding[] | null;
}

/** What the engine itself is given, on the worker. */
export interface EngineInput {
  plan: RoutePlan;
  hosts: HostData[];
  coverage: CoverageInput;
  depth: Depth;
}

/** The engine's report, with its findings serialized: JSON of each (every field but `finding_id`), most severe first. */
export interface Evaluation {
  report: Omit<Report, "findings">;
  findings: string[];
}

/** EvaluationInput with its hosts packed (packHosts). */
export interface EvaluationRequest {
  id: number;
  input: Omit<EvaluationInput, "hosts"> & { hosts: PackedHosts };
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
export function serveEvaluations(port: Pick<MessagePort, "on" | "postMessage">, evaluate: (input: EngineInput) => Report): void {
  port.on("message", (req: EvaluationRequest) => {
    let reply: EvaluationReply;
    try {
      const { plan, coverage, depth, previous } = req.input;
      const hosts = unpackHosts(req.input.hosts, plan.tables);
      reply = { id: req.id, evaluation: serializeEvaluation(evaluate({ plan, hosts, coverage, depth }), previous) };
    } catch (err) {
      reply = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply);
  });
}
