// A pool of engine worker threads. Evaluations queue for a free worker; the main thread only posts the rows and
// waits, so a slow evaluation never blocks the runner's heartbeats. One worker is kept ready; more are started when
// evaluations overlap, up to `size`, and stopped again once idle (each costs 15-20 MiB at rest and its heap while it
// evaluates). Aborting an evaluation that is running terminates its worker (the only way to stop synchronous code);
// a worker that crashes fails its evaluation. Either way a fresh worker takes its place when one is needed.
import { Worker } from "node:worker_threads";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { packHosts, type Evaluation, type EvaluationInput, type EvaluationReply, type EvaluationRequest } from "./engine-protocol.js";

export interface EnginePoolOptions {
  /** Worker threads (evaluations run at once). */
  size: number;
  /** The worker's module: the compiled engine-worker.js (tests may pass a wrapper around it). */
  workerUrl: URL;
  /** Handed to each worker as `workerData`. */
  workerData?: unknown;
  /** A worker beyond the first that has had nothing to do for this long is stopped (default IDLE_WORKER_MS). */
  idleMs?: number;
  log: Logger;
}

/** How long an extra worker may sit idle before it is stopped. */
export const IDLE_WORKER_MS = 60_000;

/** An evaluation stopped by its signal (a cancel, or the run lost its lease) before it ended. */
export class EvaluationAbortedError extends Error {
  readonly code = "evaluation_aborted";
  constructor() {
    super("the evaluation was aborted");
    this.name = "EvaluationAbortedError";
  }
}

/** The engine threw, or its worker died, while evaluating. */
export class EvaluationFailedError extends Error {
  readonly code = "evaluation_failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EvaluationFailedError";
  }
}

/**
 * Each worker's young generation at most, in MiB. A worker's objects either die within the evaluation or are its
 * result; V8's default young generation (up to 48 MiB per thread) only held garbage longer. Measured over 10,000
 * hosts (make bench-fleet): the working worker's heap 106 -> 77 MB, evaluation time unchanged.
 */
export const ENGINE_YOUNG_GENERATION_MB = 8;

interface Task {
  id: number;
  input: EvaluationInput;
  resolve(evaluation: Evaluation): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  online: boolean;
  /** Stops this worker once it has been idle for `idleMs` (extra workers only). */
  idleTimer: NodeJS.Timeout | null;
}

/** A worker that dies before it is up (a broken build) is started again after this pause, not in a tight loop. */
const RESPAWN_AFTER_EARLY_DEATH_MS = 1_000;

export class EnginePool implements Component {
  readonly name = "engine-pool";
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
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
    for (const task of this.queue.splice(0)) task.reject(new EvaluationAbortedError());
    const slots = [...this.slots];
    this.slots.clear();
    for (const slot of slots) {
      cancelIdleTimer(slot);
      slot.task?.reject(new EvaluationAbortedError());
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Runs one evaluation on a worker thread; rejects with EvaluationAbortedError once `signal` aborts. */
  evaluate(input: EvaluationInput, signal?: AbortSignal): Promise<Evaluation> {
    if (this.stopped) return Promise.reject(new EvaluationAbortedError());
    if (signal?.aborted) return Promise.reject(new EvaluationAbortedError());
    return new Promise<Evaluation>((resolve, reject) => {
      const onAbort = (): void => this.abort(task);
      const settle = (): void => signal?.removeEventListener("abort", onAbort);
      const task: Task = {
        id: this.nextId++,
        input,
        resolve: (evaluation) => {
          settle();
          resolve(evaluation);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(task);
      this.pump();
    });
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      task.reject(new EvaluationAbortedError());
      return;
    }
    for (const slot of this.slots) {
      if (slot.task !== task) continue;
      this.aborted++;
      this.retire(slot);
      task.reject(new EvaluationAbortedError());
      this.keepOneReady();
      this.pump();
      return;
    }
  }

  private spawn(): Slot | null {
    if (this.stopped) return null;
    const worker = new Worker(this.opts.workerUrl, { workerData: this.opts.workerData, resourceLimits: { maxYoungGenerationSizeMb: ENGINE_YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, task: null, online: false, idleTimer: null };
    worker.once("online", () => {
      slot.online = true;
    });
    worker.on("message", (reply: EvaluationReply) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = null;
      if ("error" in reply) task.reject(new EvaluationFailedError(`the engine failed: ${reply.error}`));
      else task.resolve(reply.evaluation);
      this.pump();
      if (!slot.task) this.idle(slot);
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
      if (slot.task || !this.slots.has(slot) || this.slots.size <= 1) return;
      this.retire(slot);
    }, this.opts.idleMs ?? IDLE_WORKER_MS);
    slot.idleTimer.unref();
  }

  /** The pool keeps one worker ready whatever happened to the others. */
  private keepOneReady(): void {
    if (this.slots.size === 0) this.spawn();
  }

  /** A worker that died on its own: fail its evaluation; another starts if the pool has none left or work waits. */
  private lost(slot: Slot, err: Error): void {
    if (!this.slots.has(slot)) return;
    this.slots.delete(slot);
    this.opts.log.error({ err }, "an engine worker died; its evaluation failed");
    slot.task?.reject(new EvaluationFailedError("the engine worker died", { cause: err }));
    slot.task = null;
    cancelIdleTimer(slot);
    if (slot.online) {
      this.keepOneReady();
      this.pump();
    } else {
      this.respawnAfter = Date.now() + RESPAWN_AFTER_EARLY_DEATH_MS;
      setTimeout(() => {
        this.keepOneReady();
        this.pump();
      }, RESPAWN_AFTER_EARLY_DEATH_MS).unref();
    }
  }

  private retire(slot: Slot): void {
    this.slots.delete(slot);
    cancelIdleTimer(slot);
    slot.task = null;
    slot.worker.removeAllListeners("message");
    void slot.worker.terminate();
  }

  /** Hands queued evaluations to idle workers, starting workers up to `size` while evaluations wait. */
  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.freeSlot();
      if (!slot) return;
      const task = this.queue.shift() as Task;
      cancelIdleTimer(slot);
      slot.task = task;
      const req: EvaluationRequest = { id: task.id, input: { ...task.input, hosts: packHosts(task.input.hosts) } };
      slot.worker.postMessage(req);
    }
  }

  private freeSlot(): Slot | null {
    for (const slot of this.slots) if (!slot.task) return slot;
    if (this.slots.size >= this.opts.size || Date.now() < this.respawnAfter) return null;
    return this.spawn();
  }
}

/** A worker that got work or is going away: its idle timer, if any, is cancelled. */
function cancelIdleTimer(slot: Slot): void {
  if (slot.idleTimer) clearTimeout(slot.idleTimer);
  slot.idleTimer = null;
}
