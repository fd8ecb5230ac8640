// A pool of engine worker threads. Each evaluation is a session on one worker (engine-protocol.ts): opened when the
// run starts collecting, fed the hosts' answers in batches as they arrive, finished once collection ends. The main
// thread only posts and waits, so a slow evaluation never blocks the runner's heartbeats. One worker is kept ready;
// a session that would share a busy worker starts another, up to `size`, and extra workers stop once idle (each
// costs 15-20 MiB at rest and its heap while it evaluates); beyond `size`, sessions share workers.
//
// Each batch of hosts and each finish sent to a worker is timed on its own while the worker runs it (engine-work.ts):
// past the time limit the worker is stopped, the evaluation that sent that work fails as a timeout and the others on
// that worker fail as retryable (their work went with it).
//
// Aborting a finishing evaluation that has its worker to itself terminates the worker (the only way to stop
// synchronous code); one that shares its worker is dropped and its result ignored. A worker that dies fails every
// evaluation it held (their answers are not kept to replay: the run fails and its message is retried). Either way a
// fresh worker takes its place when one is needed.
import { Worker } from "node:worker_threads";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import type { RoutePlan } from "../../shared/engine/types.js";
import type { FindingsChunk } from "../../shared/investigations/findings.js";
import { EvaluationAbortedError, EvaluationFailedError, EvaluationTimeoutError } from "./engine-errors.js";
import { WorkQueue, type WorkUnit } from "./engine-work.js";
import { packHosts, type CollectedHost, type EngineReply, type EngineRequest, type Evaluation, type FinishInput, type WorkerReady } from "./engine-protocol.js";

export interface EnginePoolOptions {
  /** Worker threads (evaluations run at once). */
  size: number;
  /** The worker's module: the compiled engine-worker.js (tests may pass a wrapper around it). */
  workerUrl: URL;
  /** Handed to each worker as `workerData`. */
  workerData?: unknown;
  /** A worker beyond the first that has had nothing to do for this long is stopped (default IDLE_WORKER_MS). */
  idleMs?: number;
  /**
   * How long one unit of work (a batch of hosts, a finish) may hold its worker at most (none when absent). The engine
   * runs on what agents sent, and a value built to make a pattern backtrack can hold a worker for minutes: past this,
   * the worker is stopped, the evaluation whose unit it was fails with EvaluationTimeoutError and any other
   * evaluation it held fails with EvaluationFailedError (their runs are retried).
   */
  timeLimitMs?: number;
  log: Logger;
}

/** How long an extra worker may sit idle before it is stopped. */
export const IDLE_WORKER_MS = 60_000;

/**
 * Each worker's young generation at most, in MiB. A worker's objects either die within the evaluation or are its
 * result; V8's default young generation (up to 48 MiB per thread) only held garbage longer. Measured over 10,000
 * hosts (make bench-fleet): the working worker's heap 106 -> 77 MB, evaluation time unchanged.
 */
export const ENGINE_YOUNG_GENERATION_MB = 8;

/** Hosts' answers sent to a worker in one message while collecting (the main thread keeps no more than these). */
export const HOST_BATCH = 256;

/** One evaluation, as the main thread drives it. */
export interface EngineSession {
  /** One host's checked answer, for the engine (sent to the worker in batches). */
  add(host: CollectedHost): void;
  /** The evaluation of every host added; rejects with EvaluationAbortedError once `signal` aborts. Once only. */
  finish(input: FinishInput, signal?: AbortSignal): Promise<Evaluation>;
  /** Frees the worker of a session that will not be finished (a run given up); nothing once it has finished. */
  close(): void;
  /**
   * Aborts, its reason the error `finish` rejects with, once the session can no longer be finished (its worker was
   * stopped past the time limit or died, the pool stopped): the run stops collecting for it then.
   */
  readonly failed: AbortSignal;
}

interface Session {
  id: number;
  plan: RoutePlan;
  /** The worker it lives on; null while no worker can be started (it then keeps its hosts here until one can). */
  slot: Slot | null;
  /** Answers not yet sent. */
  pending: CollectedHost[];
  state: "open" | "finishing" | "ended";
  /** Why an open session can no longer be finished (its worker died, the pool stopped), told through `failed`. */
  failure: Error | null;
  failed: AbortController;
  /** The finish asked for before the session had a worker. */
  finishInput: FinishInput | null;
  /** The chunks of findings received so far for its finish. */
  chunks: FindingsChunk[];
  resolve(evaluation: Evaluation): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  sessions: Map<number, Session>;
  online: boolean;
  /** The units of work sent to it and not yet done, the running one timed. */
  work: WorkQueue;
  /** Stops this worker once it has been idle for `idleMs` (extra workers only). */
  idleTimer: NodeJS.Timeout | null;
}

/** A worker that dies before it is up (a broken build) is started again after this pause, not in a tight loop. */
const RESPAWN_AFTER_EARLY_DEATH_MS = 1_000;

export class EnginePool implements Component {
  readonly name = "engine-pool";
  private readonly slots = new Set<Slot>();
  /** Sessions opened while no worker could be started. */
  private readonly waiting: Session[] = [];
  private nextId = 1;
  private stopped = false;
  /** No worker is started on demand before this time (a worker that died before it was up: a broken build). */
  private respawnAfter = 0;
  /** Evaluations whose worker was terminated by an abort (tests, metrics). */
  aborted = 0;

  constructor(private readonly opts: EnginePoolOptions) {}

  /** Worker threads running now (tests, metrics). */
  get workers(): number {
    return this.slots.size;
  }

  async start(): Promise<void> {
    this.spawn();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const slots = [...this.slots];
    this.slots.clear();
    for (const session of [...this.waiting.splice(0), ...slots.flatMap((s) => [...s.sessions.values()])]) this.fail(session, new EvaluationAbortedError());
    for (const slot of slots) {
      cancelIdleTimer(slot);
      slot.work.stop();
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Opens an evaluation of `plan` on a worker, to be fed hosts as they are collected. */
  open(plan: RoutePlan): EngineSession {
    const session: Session = { id: this.nextId++, plan, slot: null, pending: [], state: "open", failure: null, failed: new AbortController(), finishInput: null, chunks: [], resolve: () => {}, reject: () => {} };
    if (this.stopped) this.fail(session, new EvaluationAbortedError());
    else this.place(session);
    return {
      add: (host) => this.add(session, host),
      finish: (input, signal) => this.finish(session, input, signal),
      close: () => this.close(session),
      failed: session.failed.signal,
    };
  }

  private add(session: Session, host: CollectedHost): void {
    if (session.state !== "open" || session.failure) return;
    session.pending.push(host);
    if (session.slot && session.pending.length >= HOST_BATCH) this.sendHosts(session.slot, session);
  }

  private finish(session: Session, input: FinishInput, signal?: AbortSignal): Promise<Evaluation> {
    if (session.failure) return Promise.reject(session.failure);
    if (session.state !== "open") return Promise.reject(new EvaluationAbortedError());
    if (signal?.aborted) {
      this.close(session);
      return Promise.reject(new EvaluationAbortedError());
    }
    return new Promise<Evaluation>((resolve, reject) => {
      const onAbort = (): void => this.abort(session);
      const settle = (): void => signal?.removeEventListener("abort", onAbort);
      session.state = "finishing";
      session.resolve = (evaluation) => {
        settle();
        resolve(evaluation);
      };
      session.reject = (err) => {
        settle();
        reject(err);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (session.slot) this.sendFinish(session.slot, session, input);
      else session.finishInput = input;
    });
  }

  private close(session: Session): void {
    if (session.state === "ended") return;
    const finishing = session.state === "finishing";
    this.detach(session);
    session.state = "ended";
    if (finishing) session.reject(new EvaluationAbortedError());
  }

  /** A finishing session aborted: its worker is terminated if it holds no other session, else the session is dropped. */
  private abort(session: Session): void {
    if (session.state !== "finishing") return;
    const slot = session.slot;
    if (slot && slot.sessions.size === 1) {
      this.aborted++;
      session.slot = null;
      this.retire(slot);
      this.keepOneReady();
      this.placeWaiting();
    }
    this.close(session);
  }

  /**
   * A unit of work past the time limit: its worker is stopped (synchronous code cannot be interrupted otherwise), the
   * evaluation that sent it fails as a timeout (not retried: the same answers would stall it again), every other one
   * on the worker fails as retryable, and a fresh worker takes its place.
   */
  private overrun(slot: Slot, unit: WorkUnit, limitMs: number): void {
    if (!this.slots.has(slot)) return;
    this.slots.delete(slot);
    this.opts.log.warn({ limit_ms: limitMs, work: unit.kind }, "an evaluation's work ran over its time limit; its engine worker was stopped");
    for (const session of slot.sessions.values()) {
      this.fail(session, session.id === unit.session ? new EvaluationTimeoutError(limitMs) : new EvaluationFailedError("the engine worker was stopped: another evaluation's work on it ran over its time limit"));
    }
    slot.sessions.clear();
    this.retire(slot);
    this.keepOneReady();
    this.placeWaiting();
  }

  /** The session leaves its worker (which is told to drop it) or the waiting list. */
  private detach(session: Session): void {
    const slot = session.slot;
    session.slot = null;
    session.pending = [];
    session.chunks = [];
    const waiting = this.waiting.indexOf(session);
    if (waiting >= 0) this.waiting.splice(waiting, 1);
    if (slot?.sessions.delete(session.id)) {
      this.post(slot, { kind: "drop", session: session.id });
      if (slot.sessions.size === 0) this.idle(slot);
    }
  }

  private fail(session: Session, err: Error): void {
    session.slot = null;
    session.pending = [];
    session.chunks = [];
    if (session.state === "finishing") {
      session.state = "ended";
      session.reject(err);
    } else if (session.state === "open") {
      session.failure = err;
      session.failed.abort(err);
    }
  }

  private spawn(): Slot | null {
    if (this.stopped) return null;
    const worker = new Worker(this.opts.workerUrl, { workerData: this.opts.workerData, resourceLimits: { maxYoungGenerationSizeMb: ENGINE_YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, sessions: new Map(), online: false, work: new WorkQueue(this.opts.timeLimitMs, (unit, limitMs) => this.overrun(slot, unit, limitMs)), idleTimer: null };
    worker.once("online", () => {
      slot.online = true;
    });
    worker.on("message", (reply: EngineReply | WorkerReady) => {
      if ("ready" in reply) return slot.work.start();
      // A batch of hosts answered, or a finish (its report or error; not its chunks): that unit of work is done.
      if (!("chunk" in reply)) slot.work.done();
      if ("added" in reply) return;
      const session = slot.sessions.get(reply.session);
      if (!session || session.state !== "finishing") return;
      if ("chunk" in reply) {
        session.chunks.push(reply.chunk);
        return;
      }
      slot.sessions.delete(reply.session);
      session.slot = null;
      session.state = "ended";
      const chunks = session.chunks;
      session.chunks = [];
      if ("error" in reply) session.reject(new EvaluationFailedError(`the engine failed: ${reply.error}`));
      else session.resolve({ report: reply.report, chunks });
      if (slot.sessions.size === 0) this.idle(slot);
    });
    worker.on("error", (err) => this.lost(slot, err));
    worker.on("exit", (code) => this.lost(slot, new Error(`engine worker exited with code ${code}`)));
    this.slots.add(slot);
    return slot;
  }

  /** A worker with nothing to do: stopped after `idleMs` unless it is the last one or gets work first. */
  private idle(slot: Slot): void {
    cancelIdleTimer(slot);
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      if (slot.sessions.size > 0 || !this.slots.has(slot) || this.slots.size <= 1) return;
      this.retire(slot);
    }, this.opts.idleMs ?? IDLE_WORKER_MS);
    slot.idleTimer.unref();
  }

  /** The pool keeps one worker ready whatever happened to the others. */
  private keepOneReady(): void {
    if (this.slots.size === 0) this.spawn();
  }

  /** A worker that died on its own: every evaluation it held fails; another starts if none is left or one waits. */
  private lost(slot: Slot, err: Error): void {
    if (!this.slots.has(slot)) return;
    this.slots.delete(slot);
    slot.work.stop();
    this.opts.log.error({ err, evaluations: slot.sessions.size }, "an engine worker died; its evaluations failed");
    for (const session of slot.sessions.values()) this.fail(session, new EvaluationFailedError("the engine worker died", { cause: err }));
    slot.sessions.clear();
    cancelIdleTimer(slot);
    if (slot.online) {
      this.keepOneReady();
      this.placeWaiting();
    } else {
      this.respawnAfter = Date.now() + RESPAWN_AFTER_EARLY_DEATH_MS;
      setTimeout(() => {
        this.keepOneReady();
        this.placeWaiting();
      }, RESPAWN_AFTER_EARLY_DEATH_MS).unref();
    }
  }

  private retire(slot: Slot): void {
    this.slots.delete(slot);
    cancelIdleTimer(slot);
    slot.work.stop();
    slot.worker.removeAllListeners("message");
    void slot.worker.terminate();
  }

  /** Puts a session on a worker: one with nothing to do, else a new one up to `size`, else the least busy. */
  private place(session: Session): void {
    const slot = this.pickSlot();
    if (!slot) {
      this.waiting.push(session);
      return;
    }
    cancelIdleTimer(slot);
    session.slot = slot;
    slot.sessions.set(session.id, session);
    this.post(slot, { kind: "open", session: session.id, plan: session.plan });
    if (session.pending.length > 0) this.sendHosts(slot, session);
    if (session.finishInput) this.sendFinish(slot, session, session.finishInput);
  }

  private placeWaiting(): void {
    while (this.waiting.length > 0 && this.pickSlot()) this.place(this.waiting.shift() as Session);
  }

  private pickSlot(): Slot | null {
    let least: Slot | null = null;
    for (const slot of this.slots) {
      if (slot.sessions.size === 0) return slot;
      if (!least || slot.sessions.size < least.sessions.size) least = slot;
    }
    if (this.slots.size < this.opts.size && Date.now() >= this.respawnAfter) return this.spawn() ?? least;
    return least;
  }

  private sendHosts(slot: Slot, session: Session): void {
    const hosts = session.pending;
    session.pending = [];
    for (let i = 0; i < hosts.length; i += HOST_BATCH) {
      this.post(slot, { kind: "hosts", session: session.id, hosts: packHosts(hosts.slice(i, i + HOST_BATCH)) });
      slot.work.sent({ session: session.id, kind: "hosts" });
    }
  }

  private sendFinish(slot: Slot, session: Session, input: FinishInput): void {
    session.finishInput = null;
    if (session.pending.length > 0) this.sendHosts(slot, session);
    this.post(slot, { kind: "finish", session: session.id, input });
    slot.work.sent({ session: session.id, kind: "finish" });
  }

  private post(slot: Slot, req: EngineRequest): void {
    slot.worker.postMessage(req);
  }
}

/** A worker that got work or is going away: its idle timer, if any, is cancelled. */
function cancelIdleTimer(slot: Slot): void {
  if (slot.idleTimer) clearTimeout(slot.idleTimer);
  slot.idleTimer = null;
}
