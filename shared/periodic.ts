// A task run every `intervalMs` that never overlaps itself: a tick that comes while the previous run is still
// going is skipped (not queued), so a task slower than its interval costs one run at a time instead of a chain of
// promises that grows for as long as it stays slow. `stop()` waits for the run in flight, if any.

export interface Periodic {
  /** Runs the task now unless a run is in flight (then resolves when that one ends). */
  runNow(): Promise<void>;
  /** Whether a run is in flight. */
  readonly busy: boolean;
  stop(): Promise<void>;
}

export function startPeriodic(intervalMs: number, task: () => Promise<void>, onError: (err: unknown) => void): Periodic {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (running) return running;
    if (stopped) return Promise.resolve();
    running = Promise.resolve()
      .then(task)
      .catch(onError)
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void run(), intervalMs);
  return {
    runNow: run,
    get busy() {
      return running !== null;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
