// Which run attempt owns a running investigation. JetStream hands a work message to one runner at a time only
// while that runner keeps reporting progress; a runner that stalls past ack_wait (or loses NATS for that long) sees
// its message go to another. The record therefore names its owner: a token per attempt with an expiry, renewed
// while the attempt works. Another attempt starts only once the lease has expired (the owner crashed or
// stalled), and every write of an attempt checks that it still holds the lease, so an owner that comes back after
// losing it stops instead of writing over its successor.
import { randomBytes } from "node:crypto";
import { iso, type Clock } from "../../shared/clock.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { startPeriodic, type Periodic } from "../../shared/periodic.js";
import { logRetriedFailure } from "../../shared/nats/errors.js";

export type LeaseView = { kind: "free" } | { kind: "mine" } | { kind: "held"; untilMs: number };

export function newLeaseToken(): string {
  return randomBytes(12).toString("base64url");
}

/** Who may work `r` now: nobody holds it (not running, no lease, or expired), this attempt, or another one. */
export function leaseView(r: InvestigationRecord, token: string, nowMs: number): LeaseView {
  const lease = r.internal.lease;
  if (r.status !== "running" || !lease) return { kind: "free" };
  if (lease.token === token) return { kind: "mine" };
  const untilMs = Date.parse(lease.until);
  return untilMs > nowMs ? { kind: "held", untilMs } : { kind: "free" };
}

export function holdsLease(r: InvestigationRecord, token: string): boolean {
  return r.internal.lease?.token === token;
}

export function withLease(r: InvestigationRecord, token: string, nowMs: number, ttlMs: number): InvestigationRecord {
  return { ...r, internal: { ...r.internal, lease: { token, until: iso(nowMs + ttlMs) } } };
}

export interface LeaseKeeperDeps {
  investigations: JsonKv<InvestigationRecord>;
  clock: Clock;
  log: Logger;
}

/**
 * Renews the lease every third of its time while the run is `running` and still ours; calls `onLost` once when
 * another attempt holds it (or the record is gone). A cancelled or finished run is simply no longer renewed.
 */
export function keepLease(deps: LeaseKeeperDeps, id: string, token: string, ttlMs: number, onLost: () => void): Periodic {
  let lost = false;
  return startPeriodic(
    Math.max(100, Math.floor(ttlMs / 3)),
    async () => {
      if (lost) return;
      const now = deps.clock.now();
      const result = await deps.investigations.update(id, (r) => (r.status === "running" && holdsLease(r, token) ? withLease(r, token, now, ttlMs) : null));
      if (!result || (result.value.status === "running" && !holdsLease(result.value, token))) {
        lost = true;
        onLost();
      }
    },
    (err) => logRetriedFailure(deps.log, err, "renewing the run's lease failed; trying again", { investigation_id: id }),
  );
}
