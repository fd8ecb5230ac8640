// How an evaluation on the engine pool (engine-pool.ts) ends without a report: stopped by its run, stalled past the
// time limit, or lost with its worker. The run tells them apart (execute.ts): a timeout fails it (the same answers
// would stall the engine again), a failure hands it back to be retried, an abort ends it as the abort's reason says.

/** An evaluation stopped by its signal (a cancel, or the run lost its lease) before it ended. */
export class EvaluationAbortedError extends Error {
  readonly code = "evaluation_aborted";
  constructor() {
    super("the evaluation was aborted");
    this.name = "EvaluationAbortedError";
  }
}

/** An evaluation's work (a batch of its hosts, or its finish) ran past the pool's time limit; its worker was stopped. */
export class EvaluationTimeoutError extends Error {
  readonly code = "evaluation_timeout";
  constructor(readonly limitMs: number) {
    super(`the engine's evaluation ran over its limit of ${Math.round(limitMs / 1000)} s and was stopped`);
    this.name = "EvaluationTimeoutError";
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
