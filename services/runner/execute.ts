// Running one investigation: queued -> running -> completed | failed (or cancelled from outside).
// Safe to repeat after a crash: state moves by compare-and-set, event ids are fixed in the record before
// they are published, and a terminal record only republishes its events. One run attempt at a time: the
// attempt that starts the run holds its lease (lease.ts) and every later write checks it still does.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AgentRecord } from "../../shared/agents/record.js";
import { resolveScope } from "../../shared/agents/record.js";
import { iso, type Clock } from "../../shared/clock.js";
import { envelope, publishEvent } from "../../shared/events.js";
import { newId } from "../../shared/ids.js";
import { publishQueuedEvent } from "../../shared/investigations/trigger.js";
import { chunkedCount, inlineFromChunks, type FindingsBounds, type FindingsChunk, type FindingsRef } from "../../shared/investigations/findings.js";
import type { FindingsStore } from "../../shared/investigations/findings-store.js";
import { eventData, type InvestigationRecord } from "../../shared/investigations/record.js";
import { oneWriterAtATime, type JsonKv } from "../../shared/nats/kvjson.js";
import type { Logger } from "../../shared/log.js";
import { isTerminal, type Finding, type Progress } from "../../shared/schemas/investigation.js";
import { republishTerminal } from "./announce.js";
import { collect } from "./collect.js";
import type { CoverageInput, EngineFinding, RoutePlan } from "../../shared/engine/types.js";
import type { Evaluation } from "./engine-protocol.js";
import { EvaluationAbortedError, EvaluationTimeoutError } from "./engine-errors.js";
import type { EngineSession } from "./engine-pool.js";
import { holdsLease, keepLease, leaseView, newLeaseToken, withLease, type LeaseView } from "./lease.js";
import { handedBackMessage } from "./give-up.js";
import { startProgressFlusher } from "./progress.js";
import { evaluationEncoding, withResults, type RunResults } from "./results.js";

export interface Engine {
  routeQuery(query: string, depth: "quick" | "standard" | "deep"): RoutePlan;
  /**
   * An evaluation of `plan` on a worker thread, fed each host's rows as they are collected; its finish rejects with
   * EvaluationAbortedError on abort (engine-pool.ts).
   */
  open(plan: RoutePlan): EngineSession;
}

export interface ExecuteDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  investigations: JsonKv<InvestigationRecord>;
  /** Where every finding goes; the record carries the most severe up to `findingsBounds` (docs/nats.md#findings). */
  findings: FindingsStore;
  findingsBounds: FindingsBounds;
  listAgents(): AgentRecord[];
  engine: Engine;
  clock: Clock;
  log: Logger;
  /** Live plan deadline per depth. */
  deadlines: Record<"quick" | "standard" | "deep", number>;
  /** How long a run attempt owns its investigation without renewing (the work queue's ack_wait). */
  leaseMs: number;
  /** A run started this many times (its runners crashed or stalled) is marked failed instead of started again. */
  maxAttempts: number;
  /** Attempts that stopped on an error and handed the run back (`handed_back`) before the run is failed. */
  maxErrors: number;
  /** Findings of the previous run of the same curiosity item, to mark what is new (null: not a curiosity run). */
  previousFindings?(record: InvestigationRecord): Promise<EngineFinding[] | null>;
  /** Told once per run this runner brought to an end (completed, failed, or the partial results of a cancel). */
  onSettled?(record: InvestigationRecord): void;
  /** Told once per run this attempt worked to its end: how long each phase took (metrics; see RunPhases). */
  onPhases?(phases: RunPhases): void;
}

/**
 * Milliseconds a run spent in each phase: asking the agents (collect), the engine (evaluate), writing the findings
 * and the terminal record (store), and publishing the finding and terminal events (announce). The record is
 * terminal, and a poller sees the result, after store; announce runs after it.
 */
export interface RunPhases {
  collect: number;
  evaluate: number;
  store: number;
  announce: number;
}

export type ExecuteOutcome =
  | { kind: "done" }
  | { kind: "not_found" }
  /** Another work message for a run a live attempt is working on (acknowledge it: the run has its own). */
  | { kind: "duplicate" }
  /** This message came back while a live attempt still works the run: look again once its lease may have expired. */
  | { kind: "busy"; retryInMs: number }
  /** This attempt lost its lease to another (it stalled past it): it stopped and leaves the message alone. */
  | { kind: "superseded" }
  /** This runner is stopping: the attempt stopped and handed the run back (lease released) for another runner now. */
  | { kind: "handed_back" };

export interface WorkMessage {
  /** The initial record the trigger queued with the work (written here if the trigger crashed before it). */
  carried: InvestigationRecord | null;
  /** First delivery of this message: a run already held by a live attempt then belongs to another message. */
  firstDelivery: boolean;
}

/** Why a run's controller was aborted: the investigation was cancelled, the attempt lost its lease, the runner stops. */
export const ABORT_CANCELLED = "cancelled";
export const ABORT_SUPERSEDED = "superseded";
export const ABORT_SHUTDOWN = "shutdown";

/** A busy message looks again this long after the holder's lease would expire. */
const BUSY_MARGIN_MS = 500;

/**
 * Runs investigation `id` once. `run` is this attempt's controller: abort it with ABORT_CANCELLED to stop the run
 * (what was collected is kept as a partial report, an evaluation in progress is stopped).
 */
export async function executeInvestigation(deps: ExecuteDeps, id: string, run: AbortController, work: WorkMessage): Promise<ExecuteOutcome> {
  let initial = await deps.investigations.get(id);
  if (!initial && work.carried?.investigation_id === id) {
    await deps.investigations.create(id, work.carried);
    initial = await deps.investigations.get(id);
  }
  if (!initial) return { kind: "not_found" };
  // What the run asks of whom (the question and scope never change after the trigger): known before it starts,
  // so the record never shows a running investigation with nothing targeted.
  const plan = deps.engine.routeQuery(initial.value.query, initial.value.depth);
  const agents = resolveScope(deps.listAgents(), initial.value.scope);
  const progress: Progress = { phase: "collecting", plans_total: agents.length, plans_completed: 0, agents_targeted: agents.length, agents_responded: 0, agents_unreachable: 0 };
  const token = newLeaseToken();
  const claimed = await claimRun(deps, id, token, work, progress);
  if (claimed.kind !== "claimed") return claimed;
  // From here this attempt writes the record from several places (lease, progress, the end): one at a time.
  const attempt: ExecuteDeps = { ...deps, investigations: oneWriterAtATime(deps.investigations) };
  const keeper = keepLease(attempt, id, token, deps.leaseMs, () => run.abort(ABORT_SUPERSEDED));
  try {
    const outcome = await workRun(attempt, { record: claimed.record, token, plan, agents, progress }, run);
    if (outcome.kind === "handed_back") {
      await keeper.stop();
      await releaseLease(attempt, id, token, "shutdown");
    }
    return outcome;
  } catch (err) {
    // The message goes back for a retry: hand the run over at once rather than when the lease would expire.
    await keeper.stop();
    await releaseLease(attempt, id, token, "error").catch(() => {});
    throw err;
  } finally {
    await keeper.stop();
  }
}

/** Hands the run back (an error, a shutdown): no lease, and one more attempt that stopped and handed it back (not a crash). */
async function releaseLease(deps: ExecuteDeps, id: string, token: string, why: "error" | "shutdown"): Promise<void> {
  await deps.investigations.update(id, (r) => {
    if (r.status !== "running" || !holdsLease(r, token)) return null;
    const internal = { ...r.internal, lease: null, handed_back: (r.internal.handed_back ?? 0) + 1 };
    return { ...r, internal: why === "shutdown" ? { ...internal, shutdowns: (r.internal.shutdowns ?? 0) + 1 } : internal };
  });
}

/** Starts the run for this attempt (queued or abandoned -> running, with our lease), or says why not. */
async function claimRun(deps: ExecuteDeps, id: string, token: string, work: WorkMessage, progress: Progress): Promise<{ kind: "claimed"; record: InvestigationRecord } | ExecuteOutcome> {
  const now = deps.clock.now();
  const seen: { view: LeaseView; exhausted: boolean; erred: boolean } = { view: { kind: "free" }, exhausted: false, erred: false };
  const started = await deps.investigations.update(id, (r) => {
    if (isTerminal(r.status)) return null;
    seen.view = leaseView(r, token, now);
    if (seen.view.kind === "held") return null;
    // Running without a live lease: the attempts before crashed or stalled, or stopped on an error and handed it back.
    const handedBack = r.internal.handed_back ?? 0;
    seen.exhausted = r.status === "running" && r.internal.run_attempts - handedBack >= deps.maxAttempts;
    seen.erred = r.status === "running" && handedBack >= deps.maxErrors;
    if (seen.exhausted || seen.erred) return null;
    return withLease(
      {
        ...r,
        status: "running",
        running_at: r.running_at ?? iso(now),
        progress: { ...progress },
        internal: { ...r.internal, run_attempts: r.internal.run_attempts + 1, events: { ...r.internal.events, started: r.internal.events.started ?? newId("evt", now) } },
      },
      token,
      now,
      deps.leaseMs,
    );
  });
  if (!started) return { kind: "not_found" };
  if (started.changed) return { kind: "claimed", record: started.value };
  if (isTerminal(started.value.status)) {
    await republishTerminal(deps, started.value);
    return { kind: "done" };
  }
  if (seen.exhausted) {
    await failInvestigation(deps, id, "runner_crashed", `the run was interrupted ${deps.maxAttempts} times; giving up`);
    return { kind: "done" };
  }
  if (seen.erred) {
    await failInvestigation(deps, id, "run_failed", handedBackMessage(started.value.internal, deps.maxErrors));
    return { kind: "done" };
  }
  // A live attempt works it. A second work message (a trigger replayed after the duplicate window) is done with;
  // this message coming back (its runner missed a heartbeat) waits for the lease: if that runner is gone, the
  // next delivery finds the lease expired and takes over.
  if (work.firstDelivery) return { kind: "duplicate" };
  const untilMs = seen.view.kind === "held" ? seen.view.untilMs : now + deps.leaseMs;
  return { kind: "busy", retryInMs: Math.max(0, untilMs - now) + BUSY_MARGIN_MS };
}

interface ClaimedRun {
  record: InvestigationRecord;
  token: string;
  plan: RoutePlan;
  agents: AgentRecord[];
  /** Written with the claim; updated here as answers arrive. */
  progress: Progress;
}

async function workRun(deps: ExecuteDeps, claimed: ClaimedRun, run: AbortController): Promise<ExecuteOutcome> {
  const { record, token, plan, agents, progress } = claimed;
  const id = record.investigation_id;
  // The trigger may have crashed after writing the record and before announcing it; repeats keep the event id.
  await publishQueuedEvent(deps, record);
  const startedEvent = record.internal.events.started as string;
  await publishEvent(deps.js, envelope(startedEvent, "investigation.started", Date.parse(record.running_at ?? record.started_at), eventData(record)));

  const timing = startPhaseClock();
  const flusher = startProgressFlusher(() => writeProgress(deps, id, token, progress), deps.log.child({ investigation_id: id }));
  // The engine gets each host's rows as they arrive, and runs its detections while the other agents answer.
  const engine = deps.engine.open(plan);
  try {
    // A session that fails while the run collects (its worker stalled on a batch past the time limit, or died) can
    // no longer be finished: the collection stops then rather than at its deadline, and the finish below fails the
    // run as it would have after it.
    const collecting = AbortSignal.any([run.signal, engine.failed]);
    const collected = await collect(
      { nc: deps.nc, jsm: deps.jsm },
      { investigationId: id, agents, tables: plan.tables, mode: record.mode, deadlineMs: deps.deadlines[record.depth], signal: collecting },
      {
        responded: (host) => {
          engine.add(host);
          progress.plans_completed += 1;
          progress.agents_responded += 1;
          flusher.dirty();
        },
        unreachable: () => {
          progress.plans_completed += 1;
          progress.agents_unreachable += 1;
          flusher.dirty();
        },
      },
    );
    await flusher.stop();
    if (run.signal.reason === ABORT_SUPERSEDED) return { kind: "superseded" };
    if (run.signal.reason === ABORT_SHUTDOWN) return { kind: "handed_back" };
    timing.phaseEnds("collect");

    progress.phase = "analysing";
    await writeProgress(deps, id, token, progress);
    const coverage: CoverageInput = { mode: record.mode, agents_targeted: agents.length, agents_responded: collected.responded, unreachable: collected.unreachable };
    const previous = deps.previousFindings ? await deps.previousFindings(record) : null;
    let evaluation: Evaluation;
    try {
      // A cancel that came while collecting still gets a partial report of what was collected; one that comes
      // during the evaluation stops it.
      const encoding = evaluationEncoding(deps.findingsBounds, deps.clock.now());
      evaluation = await engine.finish({ coverage, depth: record.depth, previous, encoding }, run.signal.reason === ABORT_CANCELLED ? undefined : run.signal);
    } catch (err) {
      if (err instanceof EvaluationTimeoutError) {
        // Not retried: the same answers would stall the engine again. The runner's log names the limit.
        const failed = await failInvestigation(deps, id, "evaluation_timeout", `${err.message}; the agents' answers may hold values built to stall it`, token);
        return failed ? { kind: "done" } : { kind: "superseded" };
      }
      if (!(err instanceof EvaluationAbortedError)) throw err;
      if (run.signal.reason === ABORT_SHUTDOWN) return { kind: "handed_back" };
      if (run.signal.reason === ABORT_SUPERSEDED) return { kind: "superseded" };
      // Not stopped by us (the engine pool stopped): handed back as an error.
      if (run.signal.reason !== ABORT_CANCELLED) throw err;
      // Cancelled: the gateway announced it, unless its publish failed after it wrote the record, and this is the
      // last attempt of the run (its message is acknowledged). Announced again from the record (the same event id).
      const current = await deps.investigations.get(id);
      if (current && isTerminal(current.value.status)) await republishTerminal(deps, current.value);
      return { kind: "done" };
    }
    timing.phaseEnds("evaluate");
    return await storeAndAnnounce(deps, claimed, evaluation, timing);
  } finally {
    engine.close();
  }
}

/** How long each phase of one run took: each phase ends where the next begins. */
interface PhaseClock {
  phases: RunPhases;
  phaseEnds(phase: keyof RunPhases): void;
}

function startPhaseClock(): PhaseClock {
  const phases: RunPhases = { collect: 0, evaluate: 0, store: 0, announce: 0 };
  let phaseStart = performance.now();
  return {
    phases,
    phaseEnds(phase) {
      const now = performance.now();
      phases[phase] = Math.round(now - phaseStart);
      phaseStart = now;
    },
  };
}

/**
 * Writes the evaluation's findings (most severe first, with their ids, in the chunks the worker made) to the findings
 * bucket under this attempt's keys; the record update commits them (a crash in between leaves chunks no record
 * names: the next attempt rewrites or prunes them). The chunks stay in `evaluation` for the announce, which lets
 * go of them one by one (republishTerminal).
 */
async function storeFindings(deps: ExecuteDeps, id: string, attempt: number, chunks: readonly FindingsChunk[]): Promise<{ ref: FindingsRef; stored: { findings: Finding[]; findings_total: number } }> {
  const ref = await deps.findings.write(id, attempt, chunks);
  return { ref, stored: { findings: inlineFromChunks(chunks, deps.findingsBounds), findings_total: chunkedCount(chunks) } };
}

/** Stores the evaluation's findings and the terminal record, then announces them. */
async function storeAndAnnounce(deps: ExecuteDeps, claimed: ClaimedRun, evaluation: Evaluation, timing: PhaseClock): Promise<ExecuteOutcome> {
  const { record, token, agents, progress } = claimed;
  const { phases, phaseEnds } = timing;
  const id = record.investigation_id;
  const endMs = deps.clock.now();
  const attempt = record.internal.run_attempts;
  const { ref, stored } = await storeFindings(deps, id, attempt, evaluation.chunks);
  const total = stored.findings_total;
  // The report comes bounded from the engine's thread (emitEvaluation), its narrative too.
  const results: RunResults = { stored, report: evaluation.report, ref, progress, endMs };

  const lost = { value: false };
  const final = await deps.investigations.update(id, (r) => {
    if (!holdsLease(r, token)) {
      lost.value = !isTerminal(r.status);
      return null;
    }
    // Cancelled while collecting: what was found is kept as partial results (once).
    if (r.status === "cancelled") return r.findings.length > 0 || r.report ? null : withResults(r, results);
    return isTerminal(r.status) ? null : withResults(r, results);
  });
  if (lost.value) return { kind: "superseded" };
  phaseEnds("store");
  if (final?.changed) deps.onSettled?.(final.value);
  if (final?.value.internal.findings_ref?.attempt === attempt) {
    await deps.findings.prune(id, attempt).catch((err: unknown) => deps.log.warn({ err, investigation_id: id }, "stale findings chunks not pruned"));
  }
  if (final) await republishTerminal(deps, final.value, final.value.internal.findings_ref?.attempt === attempt ? evaluation.chunks : undefined);
  phaseEnds("announce");
  deps.log.info({ investigation_id: id, status: final?.value.status, findings: total, agents: agents.length, phases_ms: phases }, "run ended");
  deps.onPhases?.(phases);
  return { kind: "done" };
}

/**
 * Marks a run failed (a bug, repeated crashes, an engine stalled by its answers), keeping whatever progress it had.
 * With `token`, the attempt failing it must still hold its lease, as for every other write of an attempt: false
 * when another attempt has taken the run over (it is that one's to end, and this one is superseded).
 */
export async function failInvestigation(deps: ExecuteDeps, id: string, code: string, message: string, token?: string): Promise<boolean> {
  const now = deps.clock.now();
  const lost = { value: false };
  const result = await deps.investigations.update(id, (r) => {
    lost.value = !isTerminal(r.status) && token !== undefined && !holdsLease(r, token);
    if (isTerminal(r.status) || lost.value) return null;
    return { ...r, status: "failed", completed_at: iso(now), error: { code, message }, internal: { ...r.internal, events: { ...r.internal.events, terminal: newId("evt", now) } } };
  });
  if (lost.value) return false;
  if (result?.changed) deps.onSettled?.(result.value);
  if (result) await republishTerminal(deps, result.value);
  return true;
}

async function writeProgress(deps: ExecuteDeps, id: string, token: string, progress: Progress): Promise<InvestigationRecord | null> {
  const snapshot = { ...progress };
  const result = await deps.investigations.update(id, (r) => (r.status === "running" && holdsLease(r, token) ? { ...r, progress: snapshot } : null));
  return result?.value ?? null;
}
