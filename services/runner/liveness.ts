// Marks agents offline after three missed heartbeats and announces agent.disconnected. Any number of
// runners may do this at once: the state change and its event are one compare-and-set on the agent's record
// (only one runner wins), and the event leaves through the record's outbox, so a crash never loses it.
import type { JetStreamClient } from "@nats-io/jetstream";
import { flushOutbox } from "../../shared/agents/outbox.js";
import { lastSeenMs, withPresence, type PresenceFollower } from "../../shared/agents/presence.js";
import { isAgentRecord, type AgentRecord } from "../../shared/agents/record.js";
import type { Clock } from "../../shared/clock.js";
import { departed } from "./registry.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { startPeriodic, type Periodic } from "../../shared/periodic.js";
import { logRetriedFailure } from "../../shared/nats/errors.js";

/**
 * How late a heartbeat may show, on top of three intervals: a beat that changes nothing is seen once the presence
 * writer's batch is flushed and read back (DEFAULT_PRESENCE_WRITER.flushMs, 200 ms, and two round trips), and an agent
 * sends its next beat only once the last is acknowledged. Without it, an agent beating every 100-150 ms (the protocol
 * allows 100) was marked offline and back every few seconds while it beat steadily.
 */
export const PRESENCE_GRACE_MS = 1_000;

/** Online, and nothing heard for three heartbeat intervals and the presence grace (the record's last_seen_at or a later presence time). */
export function isOverdue(a: AgentRecord, nowMs: number, presenceMs?: number): boolean {
  if (a.status !== "online") return false;
  const seen = lastSeenMs(a, presenceMs);
  return seen !== null && nowMs - seen > 3 * a.heartbeat_interval_ms + PRESENCE_GRACE_MS;
}

/**
 * Whether a sweep has anything to do for this value: it looks overdue, or has events waiting in its outbox. Read
 * from any value as it comes (the bucket may hold one not of the record's shape); the sweep checks the shape of
 * those it acts on.
 */
function needsSweep(a: AgentRecord, nowMs: number, presenceMs: number | undefined): boolean {
  if (a === null || typeof a !== "object") return true;
  return isOverdue(a, nowMs, presenceMs) || (a.outbox !== undefined && (!Array.isArray(a.outbox) || a.outbox.length > 0));
}

export class LivenessMonitor implements Component {
  readonly name = "agent-liveness";
  private sweeps: Periodic | null = null;

  constructor(
    private readonly deps: {
      agents: JsonKv<AgentRecord>;
      listAgents(): AgentRecord[];
      /** Heartbeats that only went to presence; a sweep marks nobody offline unless it is up to date. */
      presence?: Pick<PresenceFollower, "lastSeen" | "upToDate">;
      js: JetStreamClient;
      clock: Clock;
      log: Logger;
    },
    private readonly intervalMs: number,
  ) {}

  async start(): Promise<void> {
    // A sweep slower than the interval (a slow bucket) skips the ticks that come meanwhile.
    this.sweeps = startPeriodic(this.intervalMs, () => this.sweep(), (err) => logRetriedFailure(this.deps.log, err, "liveness sweep failed"));
  }

  async stop(): Promise<void> {
    await this.sweeps?.stop();
  }

  async sweep(): Promise<void> {
    const presence = this.deps.presence;
    // Before presence has read what the stream holds, a silent-looking agent may have beaten a moment ago.
    if (presence && !(await presence.upToDate())) {
      this.deps.log.warn("liveness sweep skipped: presence has not read the latest heartbeats yet");
      return;
    }
    const now = this.deps.clock.now();
    // One agent that cannot be swept (NATS failing mid-sweep, a value in the bucket not of the record's shape) does
    // not keep the others online: each is swept on its own, and the failures are logged once per sweep.
    let failed = 0;
    let first: unknown;
    for (const a of this.deps.listAgents()) {
      // Most agents need nothing: online and heard from lately, or offline, with no events waiting. They are passed
      // over without a check of their shape or an await: a sweep every 2 s over 10,000 agents did both for each,
      // a fifth of the runner's garbage under a large fleet (docs/architecture.md#runner-memory).
      const presenceMs = presence?.lastSeen(a.agent_id);
      if (!needsSweep(a, now, presenceMs)) continue;
      try {
        await this.sweepOne(a, now, presenceMs);
      } catch (err) {
        failed++;
        first ??= err;
      }
    }
    if (failed > 0) this.deps.log.warn({ err: first, failed }, "liveness sweep: some agents could not be swept; the next sweep tries them again");
  }

  private async sweepOne(a: AgentRecord, now: number, presenceMs: number | undefined): Promise<void> {
    if (!isAgentRecord(a)) throw new Error("not an agent record");
    const overdue = (r: AgentRecord): boolean => isAgentRecord(r) && isOverdue(r, now, presenceMs);
    const late = overdue(a);
    if (late) {
      // The record and its event show the last heartbeat presence saw, not the last one written to the record.
      const result = await this.deps.agents.update(a.agent_id, (cur) => (overdue(cur) ? departed(withPresence(cur, presenceMs), now) : null));
      if (result?.changed) this.deps.log.info({ agent_id: a.agent_id }, "agent missed its heartbeats; marked offline");
    }
    // Also publishes events a crashed agent or runner left behind in the record.
    if (late || (a.outbox?.length ?? 0) > 0) await flushOutbox(this.deps.agents, this.deps.js, a.agent_id);
  }
}
