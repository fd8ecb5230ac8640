// Coalesced progress writes: answers arrive one by one, the record is written at most once per interval, and a
// write slower than the interval makes the next ticks wait for it (one write at a time; never a queue of them).
import type { Logger } from "../../shared/log.js";
import { startPeriodic } from "../../shared/periodic.js";
import { logRetriedFailure } from "../../shared/nats/errors.js";

export interface ProgressFlusher {
  /** Something changed: write it on the next tick. */
  dirty(): void;
  /** Stops the ticks and writes the last state once. */
  stop(): Promise<void>;
}

export function startProgressFlusher(write: () => Promise<unknown>, log: Logger, intervalMs = 200): ProgressFlusher {
  let pending = false;
  const ticks = startPeriodic(
    intervalMs,
    async () => {
      if (!pending) return;
      pending = false;
      await write();
    },
    (err) => logRetriedFailure(log, err, "progress write failed"),
  );
  return {
    dirty: () => {
      pending = true;
    },
    async stop() {
      await ticks.stop();
      await write();
    },
  };
}
