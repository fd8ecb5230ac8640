// What crosses between the runner and its engine worker threads. An evaluation is a session: the main thread opens
// it with the plan, sends the hosts' answers in batches while it is still collecting (the worker runs each host's
// detections as its batch arrives, so most of the engine's work overlaps the wait for slower agents), then finishes
// it. Each batch is answered once the worker is done with it (`{ session, added }`: the pool times each unit of work),
// and the finish with its chunks of findings, then `{ session, report }`, or with `{ session, error }`.
//
// Out come the findings as the chunks the findings bucket stores (each finding with its id, most severe first), one
// message per chunk, then the report without its findings. A run over 10,000 hosts has 10,000 findings (about 13 MB
// of JSON): the main thread receives each finding's text once, inside its chunk, writes the chunks as they are and
// cuts the events from the same text. (It used to receive 10,000 strings in one message, copy each to add its id,
// then copy them again into chunks: three copies, and a 13 MB message buffer, at the runner's peak.)
//
// The rows go in as text: each host's answer (a plan reply or a snapshot) stays the JSON the agent sent, checked by
// the runner, and a batch crosses to the worker inside one string that the worker parses once: one string to copy
// rather than a graph of objects to clone (and byte arrays cost more to clone than that graph). The main thread
// keeps no answer past its batch.
import type { MessagePort } from "node:worker_threads";
import { markNewFindings } from "../../shared/engine/diff.js";
import type { CoverageInput, Depth, EngineFinding, HostData, Report, Row, RoutePlan } from "../../shared/engine/types.js";
import { newId } from "../../shared/ids.js";
import { boundReport, DEFAULT_REPORT_BOUNDS, type Bounds } from "../../shared/investigations/bounded.js";
import { bySeverity, ChunkPacker, chunkOf, DEFAULT_FINDINGS_BOUNDS, encodeFinding, type FindingsChunk } from "../../shared/investigations/findings.js";

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
export function collectedHost(who: Omit<CollectedHost, "answer">, text: string, tables: Tables, wanted: readonly string[], truncated?: readonly string[]): CollectedHost {
  const onlyWanted = Object.keys(tables).every((t) => wanted.includes(t));
  if (onlyWanted) return { ...who, answer: text };
  const cut = cutTables(truncated, wanted);
  return { ...who, answer: JSON.stringify(cut.length > 0 ? { tables: pick(tables, wanted), truncated: cut } : { tables: pick(tables, wanted) }) };
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
  const answers = JSON.parse(packed.answers) as Array<{ tables: Tables; truncated?: unknown }>;
  return packed.who.map((who, i) => {
    const cut = cutTables(answers[i]?.truncated, wanted);
    return { ...who, tables: pick(answers[i]?.tables ?? {}, wanted), ...(cut.length > 0 ? { truncated: cut } : {}) };
  });
}

/** The wanted tables an answer says it cut short (`truncated`: the agent's word, checked as any of its text). */
function cutTables(truncated: unknown, wanted: readonly string[]): string[] {
  if (!Array.isArray(truncated)) return [];
  return wanted.filter((t) => truncated.includes(t));
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

/**
 * How the findings and the report leave the worker: the time the findings' ids carry, the findings bucket's chunk
 * bound, and the record's bounds on the report's lists and texts (boundReport).
 */
export interface FindingsEncoding {
  idTimeMs: number;
  chunkBytes: number;
  reportBounds: Bounds;
}

/** What an evaluation needs once every host is in (without `encoding`: ids of now, the default bounds). */
export type FinishInput = Omit<EvaluationInput, "plan" | "hosts"> & { encoding?: FindingsEncoding };

/**
 * The engine's report as the record keeps it: without its findings, every list and text bounded, and in
 * `truncated` the lists cut with their full lengths (shared/investigations/bounded.ts).
 */
export type BoundedReport = Omit<Report, "findings"> & { truncated?: Record<string, number> };

/** The engine's bounded report, its findings as stored chunks (each finding with its `finding_id`), most severe first. */
export interface Evaluation {
  report: BoundedReport;
  chunks: FindingsChunk[];
}

/**
 * The main thread's messages to a worker, about one evaluation (`session`): open it with the plan, add hosts in
 * batches as they are collected (each answered once added), then finish it (answered) or drop it (never answered).
 */
export type EngineRequest =
  | { kind: "open"; session: number; plan: RoutePlan }
  | { kind: "hosts"; session: number; hosts: PackedHosts }
  | { kind: "finish"; session: number; input: FinishInput }
  | { kind: "drop"; session: number };

/** A worker says so once it serves evaluations (its engine loaded), before it answers anything else. */
export interface WorkerReady {
  ready: true;
}

/**
 * A batch of hosts is answered with how many it held once they are added (even to an evaluation that failed); a
 * finish with its chunks, one message each, then its report; or with an error.
 */
export type EngineReply =
  | { session: number; added: number }
  | { session: number; chunk: FindingsChunk }
  | { session: number; report: Evaluation["report"] }
  | { session: number; error: string };

/** The engine as a worker runs it: an evaluation started per plan, fed hosts, finished into a report. */
export interface WorkerEngine {
  start(plan: RoutePlan): { add(host: HostData): void; finish(coverage: CoverageInput, depth: Depth): Report };
}

/**
 * The report as it leaves the worker: findings marked new (against `previous`), ordered, given ids, and handed to
 * `emit` a chunk at a time as each fills, so only one chunk's findings are held as text at once; returns the
 * report without its findings, bounded. Over 10,000 hosts the whole report is a 2.7 MB message (a severity input
 * per finding), bounded 75 KB: the main thread never receives what the record would cut.
 */
export function emitEvaluation(
  report: Report,
  previous: readonly EngineFinding[] | null | undefined,
  encoding: FindingsEncoding | undefined,
  emit: (chunk: FindingsChunk) => void,
): Evaluation["report"] {
  const { findings, ...rest } = report;
  const isNew = previous ? markNewFindings(previous, findings) : null;
  const marked = isNew ? findings.map((f, i) => ({ ...f, new_since_last_run: isNew[i] ?? true })) : findings;
  const at = encoding?.idTimeMs ?? Date.now();
  const packer = new ChunkPacker(encoding?.chunkBytes ?? DEFAULT_FINDINGS_BOUNDS.chunkBytes, (group) => emit(chunkOf(group)));
  for (const f of bySeverity(marked)) {
    const findingId = newId("fnd", at);
    packer.add(encodeFinding(findingId, JSON.stringify({ finding_id: findingId, ...f })));
  }
  packer.end();
  return boundReport(rest as unknown as Record<string, unknown>, encoding?.reportBounds ?? DEFAULT_REPORT_BOUNDS) as unknown as BoundedReport;
}

/** The whole evaluation at once, its chunks collected (emitEvaluation). */
export function serializeEvaluation(report: Report, previous: readonly EngineFinding[] | null | undefined, encoding?: FindingsEncoding): Evaluation {
  const chunks: FindingsChunk[] = [];
  const rest = emitEvaluation(report, previous, encoding, (chunk) => chunks.push(chunk));
  return { report: rest, chunks };
}

/** An evaluation a worker holds open: its plan, the engine's run, or the first error it hit. */
interface OpenEvaluation {
  plan: RoutePlan;
  run: ReturnType<WorkerEngine["start"]> | null;
  error: string | null;
}

/**
 * Worker side: keeps each open evaluation and answers its finish (synchronous: it owns the worker's thread). An error
 * while opening or adding hosts is kept and becomes the finish's answer, so the main thread hears of it once.
 */
export function serveEvaluations(port: Pick<MessagePort, "on" | "postMessage">, engine: WorkerEngine): void {
  const open = new Map<number, OpenEvaluation>();
  port.postMessage({ ready: true } satisfies WorkerReady);
  port.on("message", (req: EngineRequest) => {
    if (req.kind === "open") {
      const evaluation: OpenEvaluation = { plan: req.plan, run: null, error: null };
      attempt(evaluation, () => {
        evaluation.run = engine.start(req.plan);
      });
      open.set(req.session, evaluation);
      return;
    }
    const evaluation = open.get(req.session);
    if (req.kind === "hosts") {
      if (evaluation) {
        attempt(evaluation, (run) => {
          for (const host of unpackHosts(req.hosts, evaluation.plan.tables)) run.add(host);
        });
      }
      port.postMessage({ session: req.session, added: req.hosts.who.length } satisfies EngineReply);
      return;
    }
    open.delete(req.session);
    if (req.kind === "drop") return;
    if (!evaluation) {
      port.postMessage({ session: req.session, error: "the evaluation is not open" } satisfies EngineReply);
      return;
    }
    let done: Evaluation["report"] | null = null;
    attempt(evaluation, (run) => {
      const report = run.finish(req.input.coverage, req.input.depth);
      // A chunk per message, sent as it fills: each crosses as a small buffer, never one the size of every finding.
      // The chunk's buffer is handed over, not copied (FindingsChunk).
      done = emitEvaluation(report, req.input.previous, req.input.encoding, (chunk) => port.postMessage({ session: req.session, chunk } satisfies EngineReply, [chunk.bytes.buffer as ArrayBuffer]));
    });
    const report = done as Evaluation["report"] | null;
    // An error after some chunks went: the main thread drops them with the session when the error comes.
    port.postMessage(report ? ({ session: req.session, report } satisfies EngineReply) : { session: req.session, error: evaluation.error ?? "the evaluation never started" });
  });
}

/** Runs `step` on the evaluation's run unless it already failed; a throw becomes the evaluation's error. */
function attempt(evaluation: OpenEvaluation, step: (run: NonNullable<OpenEvaluation["run"]>) => void): void {
  if (evaluation.error !== null) return;
  try {
    step(evaluation.run as NonNullable<OpenEvaluation["run"]>);
  } catch (err) {
    evaluation.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
}
