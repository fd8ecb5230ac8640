// Stopping a child process: SIGTERM, then SIGKILL if it has not exited within the grace period.
import type { ChildProcess } from "node:child_process";

/** Resolves once `child` has exited (at once if it already has). */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      res();
    });
    child.kill("SIGTERM");
  });
}
