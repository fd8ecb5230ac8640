// Why a run that kept being handed back is given up (docs/nats.md#investigations). A runner shutting down hands its
// runs back too, and those count toward the same limit; a message saying the run "stopped on an error 20 times"
// after rolling restarts sent people looking for errors that never happened.
import type { InvestigationRecord } from "../../shared/investigations/record.js";

type Counters = Pick<InvestigationRecord["internal"], "run_attempts" | "handed_back" | "shutdowns">;

/** The `run_failed` message of a run handed back `maxErrors` times, naming how many of them were shutdowns. */
export function handedBackMessage(internal: Counters, maxErrors: number): string {
  const handedBack = internal.handed_back ?? maxErrors;
  const shutdowns = Math.min(internal.shutdowns ?? 0, handedBack);
  if (shutdowns === 0) return `the run stopped on an error ${maxErrors} times (each is in the runner's log); giving up`;
  return (
    `the run was handed back ${handedBack} times in ${internal.run_attempts} attempts (at most ${maxErrors}): ` +
    `${handedBack - shutdowns} on an error (each is in the runner's log), ${shutdowns} by a runner shutting down; giving up`
  );
}
