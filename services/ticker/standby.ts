// What a ticker that does not hold the lease may do (docs/nats.md#leader-election). The lease is an optimisation:
// the leader normally does every step at once. A standby steps in only for work the leader is visibly late with,
// by `graceMs`: a due run nobody claimed, a claimed run nobody triggered, or a run whose end was announced and
// nobody re-queued. So a leader killed with SIGKILL costs runs `graceMs` of lateness, not the lease's ttl; and
// because every step is a compare-and-set and the trigger is idempotent, a standby that steps in beside a live
// but slow leader only repeats a step, never fires a run twice.
import type { ItemAction, ScheduleView } from "../../shared/curiosity/schedule.js";

/** Whether a standby should take this step now; `announcedAt` is when its run's end was announced, if it was. */
export function standbyOwes(record: ScheduleView, action: ItemAction, now: number, graceMs: number, announcedAt: number | undefined): boolean {
  switch (action.kind) {
    case "none":
      return false;
    case "claim":
      return now - Date.parse(record.next_run_at) >= graceMs;
    case "trigger":
      return now - Date.parse(action.run.claimed_at) >= graceMs;
    case "watch":
      return announcedAt !== undefined && now - announcedAt >= graceMs;
  }
}
