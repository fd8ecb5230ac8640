// The agent registry: the one writer of the agents bucket and its outbox. Agents sit outside the trust
// boundary (they run on the hosts being investigated), so they only send protocol messages on subjects that
// carry their own id (shared/agents/protocol.ts); the registry checks each against its schema and that the
// agent id in the message is the one in the subject, then turns it into a compare-and-set on that agent's
// record alone, its lifecycle event in the same write (shared/agents/outbox.ts). Every runner runs one, in one
// queue group: each message is handled once, and concurrent writes to one record settle by compare-and-set.
// A message is acknowledged only once its write is done, so an agent that heard "ok" is registered, and only in
// the agent's own inbox: the reply subject is the agent's to choose, the registry's user may publish anywhere. An
// agent may flood its own subjects, so how much of the registry it takes is bounded (registry-limits.ts).
import type { JetStreamClient } from "@nats-io/jetstream";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { flushOutbox, withEvent } from "../../shared/agents/outbox.js";
import {
  AGENT_SUBJECTS,
  byeChecker,
  heartbeatChecker,
  helloChecker,
  REGISTRY_QUEUE,
  REGISTRY_SUBJECTS,
  subjectAgentId,
  type Ack,
  type Heartbeat,
  type Hello,
  type RegistryErrorCode,
  type RegistryMessageKind,
} from "../../shared/agents/protocol.js";
import { onlyPresence, type PresenceWriter } from "../../shared/agents/presence.js";
import { isAgentRecord, type AgentRecord } from "../../shared/agents/record.js";
import { iso, type Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { isUnavailable, logRetriedFailure } from "../../shared/nats/errors.js";
import { decodeJson, encodeJson, type JsonKv, type Versioned } from "../../shared/nats/kvjson.js";
import { isAgentInbox } from "../../shared/nats/permissions.js";
import type { Counter } from "../../shared/ops/metrics.js";
import { SparseWarning } from "../../shared/sparse-warning.js";
import type { Checked } from "../../shared/validate.js";
import { assertNever } from "../../shared/never.js";
import { DEFAULT_REGISTRY_LIMITS, OverLimit, RegistryLimits, type RegistryLimitOptions } from "./registry-limits.js";

export interface RegistryDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  agents: JsonKv<AgentRecord>;
  /**
   * The record as a live copy of the bucket last saw it (the runner's AgentDirectory), if any: a heartbeat, the
   * message a large fleet sends most, then costs one compare-and-set instead of a read and a write; a stale copy
   * costs a conflict and the usual read.
   */
  known?: (agentId: string) => Versioned<AgentRecord> | undefined;
  /**
   * Where a heartbeat that only says "still here" goes instead of the record (shared/agents/presence.ts);
   * without it every heartbeat writes the record.
   */
  presence?: Pick<PresenceWriter, "record">;
  /** Counts the answers not sent because their reply subject was not the agent's own inbox (metrics.ts). */
  droppedReplies?: Pick<Counter, "inc">;
  /** How much of the registry one agent may take (registry-limits.ts); DEFAULT_REGISTRY_LIMITS when absent. */
  limits?: RegistryLimitOptions;
  /** Counts the messages refused by those limits, by `reason` (metrics.ts). */
  refused?: Pick<Counter, "inc">;
  clock: Clock;
  log: Logger;
}

// ---- what each message does to a record (pure) ----------------------------------------------------

/** A new record (offline until its first heartbeat) with `agent.registered` queued. */
export function registered(hello: Hello, nowMs: number): AgentRecord {
  const fresh: AgentRecord = { ...identity(hello), status: "offline", registered_at: iso(nowMs), last_seen_at: null, snapshot_collected_at: null };
  return withEvent(fresh, "agent.registered", nowMs);
}

/** A known agent says hello again: identity refreshed (tags may have changed), history kept; null = no change. */
export function reintroduced(current: AgentRecord, hello: Hello): AgentRecord | null {
  const next = { ...current, ...identity(hello) };
  return sameIdentity(current, next) ? null : next;
}

/**
 * How long an agent that went offline (a bye, or missed heartbeats) stays offline before a heartbeat brings it back.
 * Each return is an `agent.disconnected`/`agent.connected` pair on EVENTS and to every webhook subscriber, so an agent
 * looping bye/heartbeat made a pair per loop; now at most one per dwell. A heartbeat within the dwell is answered
 * `unavailable` (send it again): a restarting agent retries and is ready once the registry holds it online, not
 * before (its ready line means that).
 */
export const MIN_OFFLINE_DWELL_MS = 5_000;

/** Offline for less than the dwell at `nowMs`. */
function dwelling(current: AgentRecord, nowMs: number): boolean {
  const since = current.offline_since === undefined ? NaN : Date.parse(current.offline_since);
  return !Number.isNaN(since) && nowMs - since < MIN_OFFLINE_DWELL_MS;
}

/**
 * Online and seen at `nowMs` (when the heartbeat arrived); `agent.connected` when it was not online (first beat,
 * or back after being marked offline). A heartbeat applied more than one interval after it arrived (a slow
 * registry, or a compare-and-set lost to the liveness sweep) does not bring an offline agent back: it says
 * nothing about now, and the agent's next heartbeat will; nor does one within the dwell after the agent went
 * offline (null = no change).
 */
export function beaten(current: AgentRecord, beat: Heartbeat, nowMs: number, appliedMs = nowMs): AgentRecord | null {
  if (current.status !== "online" && (appliedMs - nowMs > current.heartbeat_interval_ms || dwelling(current, nowMs))) return null;
  const next: AgentRecord = {
    ...current,
    status: "online",
    last_seen_at: iso(nowMs),
    snapshot_collected_at: beat.snapshot_collected_at ?? current.snapshot_collected_at,
  };
  return current.status === "online" ? next : withEvent(next, "agent.connected", nowMs);
}

/** How far ahead of the registry's clock a snapshot time may be and still be taken: clocks of hosts drift a little. */
export const SNAPSHOT_CLOCK_SKEW_MS = 30_000;

/**
 * The snapshot time a heartbeat claims, as the record keeps it (UTC, milliseconds), or null (no news) when it is
 * more than the skew ahead of `receivedMs` or names no instant (23:59:60). A time ahead is not refused: an honest
 * agent on a fast clock would be refused every beat (its start-up stops on a refused beat) and go offline. Nor is it
 * cut to the receipt time: the agent would send it again with the next beat, cut to that beat's time, and its data
 * would look fresh for ever, which is what a lying agent wants. Without it the agent is asked live in `auto` mode.
 */
export function claimedSnapshotTime(claimed: string | null, receivedMs: number): string | null {
  const at = claimed === null ? NaN : Date.parse(claimed);
  return Number.isNaN(at) || at > receivedMs + SNAPSHOT_CLOCK_SKEW_MS ? null : iso(at);
}

/** Offline at once with `agent.disconnected` (a bye, or missed heartbeats: liveness.ts); null when it was not online. */
export function departed(current: AgentRecord, nowMs: number): AgentRecord | null {
  return current.status === "online" ? withEvent({ ...current, status: "offline", offline_since: iso(nowMs) }, "agent.disconnected", nowMs) : null;
}

function identity(hello: Hello): Pick<AgentRecord, "agent_id" | "hostname" | "tags" | "edr_device_id" | "heartbeat_interval_ms"> {
  return { agent_id: hello.agent_id, hostname: hello.hostname, tags: { ...hello.tags }, edr_device_id: hello.edr_device_id, heartbeat_interval_ms: hello.heartbeat_interval_ms };
}

function sameIdentity(a: AgentRecord, b: AgentRecord): boolean {
  return (
    a.hostname === b.hostname &&
    a.edr_device_id === b.edr_device_id &&
    a.heartbeat_interval_ms === b.heartbeat_interval_ms &&
    JSON.stringify(Object.entries(a.tags).sort()) === JSON.stringify(Object.entries(b.tags).sort())
  );
}

// ---- the component --------------------------------------------------------------------------------

const OK: Ack = { ok: true };
/** A message the registry could not record (NATS failing, a presence batch not stored): the agent sends it again. */
const NOT_RECORDED: Ack = { ok: false, error: { code: "unavailable", message: "the registry could not record this; send it again" } };

/** A message checked against its schema: how to apply it, and for a beat that only says "still here" when it came. */
interface Received {
  apply(): Promise<void>;
  /** When it came, if it may go to presence instead. */
  presenceAt?: number;
}

class Refused extends Error {
  constructor(readonly code: RegistryErrorCode, message: string) {
    super(message);
  }
}

export class AgentRegistry implements Component {
  readonly name = "agent-registry";
  private subs: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly misdirected: SparseWarning;
  private readonly misshapen: SparseWarning;
  private readonly ahead: SparseWarning;
  private readonly overLimit: SparseWarning;
  private readonly limits: RegistryLimits;

  constructor(private readonly deps: RegistryDeps) {
    this.limits = new RegistryLimits(deps.limits ?? DEFAULT_REGISTRY_LIMITS);
    this.overLimit = new SparseWarning(deps.log, "agent registry: an agent sent more than its share (registry-limits.ts); answered unavailable");
    this.misdirected = new SparseWarning(deps.log, "agent registry: an agent asked for its answer outside its own inbox; not answered (the message itself was handled)");
    this.misshapen = new SparseWarning(deps.log, "agent registry: the agent's key holds a value that is not an agent record; its hello replaces it");
    this.ahead = new SparseWarning(deps.log, `agent registry: a heartbeat's snapshot time is more than ${SNAPSHOT_CLOCK_SKEW_MS / 1000} s ahead of this clock; not recorded (the host's clock is off, or the agent is lying)`);
  }

  async start(): Promise<void> {
    for (const kind of Object.keys(REGISTRY_SUBJECTS) as RegistryMessageKind[]) {
      this.subs.push(
        this.deps.nc.subscribe(REGISTRY_SUBJECTS[kind], {
          queue: REGISTRY_QUEUE,
          callback: (err, msg) => {
            if (err) {
              this.deps.log.error({ err }, "agent registry: subscription error");
              return;
            }
            try {
              this.receive(kind, msg);
            } catch (err) {
              // Not expected: receive answers every failure itself. Nothing thrown may reach the client's reader.
              this.deps.log.error({ err, subject: msg.subject }, "agent registry: could not take a message");
            }
          },
        }),
      );
    }
    await this.deps.nc.flush(); // the server knows the subscriptions before the runner says it is ready
  }

  /** Heartbeats waiting for their presence batch are answered when it is stored: the writer stops after the registry. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.subs.map((s) => s.drain()));
    this.subs = [];
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * One message, taken apart at once: past here only its contents and where to answer are kept, not the message. A
   * heartbeat that goes to presence then waits for its batch with its reply subject alone, no handler of its own.
   */
  private receive(kind: RegistryMessageKind, msg: Msg): void {
    const subject = msg.subject;
    const agentId = subjectAgentId(subject);
    const reply = this.replyTo(msg, agentId);
    if (agentId === null) return this.answer(reply, this.failure(new Refused("invalid_message", "the subject carries no valid agent id"), subject));
    if (!this.limits.enter(agentId)) return this.answer(reply, this.failure(new OverLimit("agent_busy"), subject));
    const done = (ack: Ack): void => {
      this.limits.leave(agentId);
      this.answer(reply, ack);
    };
    let message: Received;
    try {
      message = this.parsed(kind, msg, agentId);
    } catch (err) {
      return done(this.failure(err, subject));
    }
    if (message.presenceAt !== undefined && this.deps.presence) {
      // A batch that was not stored is logged once by the writer, not here once per beat.
      this.deps.presence.record(agentId, message.presenceAt, (err) => done(err === undefined ? OK : NOT_RECORDED));
      return;
    }
    if (this.inFlight.size >= this.limits.opts.handlers) return done(this.failure(new OverLimit("busy"), subject));
    const work = message
      .apply()
      .then(() => OK, (err: unknown) => this.failure(err, subject))
      .then(done)
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /** The message checked (else refused). */
  private parsed(kind: RegistryMessageKind, msg: Msg, agentId: string): Received {
    switch (kind) {
      case "hello": {
        const hello = this.checked(helloChecker, msg, agentId);
        return { apply: () => this.hello(hello) };
      }
      case "heartbeat":
        return this.received(this.checked(heartbeatChecker, msg, agentId));
      case "bye":
        this.checked(byeChecker, msg, agentId);
        return { apply: () => this.bye(agentId) };
      default:
        return assertNever(kind, "message kind");
    }
  }

  /** The answer to a message that could not be applied: refused, or `unavailable` (the agent sends it again). */
  private failure(err: unknown, subject: string): Ack {
    if (err instanceof OverLimit) {
      this.limited(err, subject);
      return { ok: false, error: { code: "unavailable", message: err.message } };
    }
    if (err instanceof Refused) {
      // Neither is the agent's fault: a registry that lost its record, a heartbeat within the offline dwell.
      if (err.code !== "unknown_agent" && err.code !== "unavailable") this.deps.log.warn({ subject, code: err.code }, `agent registry refused a message: ${err.message}`);
      return { ok: false, error: { code: err.code, message: err.message } };
    }
    if (isUnavailable(err)) logRetriedFailure(this.deps.log, err, "agent registry: NATS unavailable; the agent sends it again", { subject });
    else this.deps.log.error({ err, subject }, "agent registry: could not apply a message");
    return NOT_RECORDED;
  }

  private limited(err: OverLimit, subject: string): void {
    this.deps.refused?.inc({ reason: err.reason });
    this.overLimit.note({ subject, reason: err.reason }, this.deps.clock.now());
  }

  /**
   * Where the answer goes: the message's reply subject when that is the agent's own inbox, else nowhere. Anywhere else
   * it would be a publish the agent chose and the registry made: an ack written over another agent's record in the
   * agents bucket, a cancel on ctl.investigations.<id>.cancel. The agent's message is handled all the same, as one
   * sent without a reply subject is.
   */
  private replyTo(msg: Msg, agentId: string | null): string | null {
    const reply = msg.reply;
    if (!reply) return null;
    if (agentId !== null && isAgentInbox(agentId, reply)) return reply;
    this.deps.droppedReplies?.inc();
    this.misdirected.note({ subject: msg.subject, reply: reply.slice(0, 200) }, this.deps.clock.now());
    return null;
  }

  private answer(reply: string | null, ack: Ack): void {
    if (reply === null) return;
    try {
      this.deps.nc.publish(reply, encodeJson(ack));
    } catch (err) {
      this.deps.log.warn({ err }, "agent registry: could not answer an agent (the connection is closing); it sends its message again");
    }
  }

  /** The message, valid against its schema, from the agent its subject names (else refused). */
  private checked<T extends { agent_id: string }>(check: { check(value: unknown): Checked<T> }, msg: Msg, agentId: string): T {
    let decoded: unknown;
    try {
      decoded = decodeJson<unknown>(msg.data);
    } catch {
      throw new Refused("invalid_message", "not JSON");
    }
    const result = check.check(decoded);
    if (!result.ok) throw new Refused("invalid_message", `does not match the protocol: ${JSON.stringify(result.details).slice(0, 300)}`);
    if (result.value.agent_id !== agentId) throw new Refused("agent_mismatch", `agent ${agentId} may only speak for itself`);
    return result.value;
  }

  // A value under the agent's key that is not an agent record (isAgentRecord) is never built on: hello replaces it
  // with a new record, heartbeat and bye leave it and answer as for no record.

  private async hello(hello: Hello): Promise<void> {
    const now = this.deps.clock.now();
    const fresh = registered(hello, now);
    if ((await this.deps.agents.create(hello.agent_id, fresh)) !== null) return this.flush(fresh);
    const paid = this.charged(hello.agent_id);
    return this.flush((await this.deps.agents.update(hello.agent_id, (r) => paid(this.wellShaped(r, hello.agent_id) ? reintroduced(r, hello) : fresh)))?.value);
  }

  /** A heartbeat as the record would take it, and when it came if it may go to presence instead. */
  private received(claimed: Heartbeat): Received {
    const now = this.deps.clock.now();
    const beat: Heartbeat = { ...claimed, snapshot_collected_at: claimedSnapshotTime(claimed.snapshot_collected_at, now) };
    if (beat.snapshot_collected_at === null && claimed.snapshot_collected_at !== null) this.ahead.note({ agent_id: beat.agent_id, snapshot_collected_at: claimed.snapshot_collected_at }, now);
    const known = this.deps.known?.(beat.agent_id);
    return { apply: () => this.heartbeat(beat, now, known), presenceAt: this.toPresence(beat, known, now) ? now : undefined };
  }

  /**
   * Whether the beat goes to presence: it only says "still here". A new snapshot time is the one record write a beat
   * makes at the agent's will (coming online waits out the dwell, the refresh comes once a minute), so it draws on the
   * agent's writes; past them the beat counts as presence only, and the time is recorded from a later beat, which
   * carries it again.
   */
  private toPresence(beat: Heartbeat, known: Versioned<AgentRecord> | undefined, now: number): boolean {
    if (known === undefined) return false;
    if (onlyPresence(known.value, beat.snapshot_collected_at, now)) return true;
    if (!this.deps.presence || !onlyPresence(known.value, known.value.snapshot_collected_at, now)) return false;
    if (this.limits.takeWrite(beat.agent_id, now)) return false;
    this.limited(new OverLimit("writes"), AGENT_SUBJECTS.heartbeat(beat.agent_id));
    return true;
  }

  private async heartbeat(beat: Heartbeat, now: number, known: Versioned<AgentRecord> | undefined): Promise<void> {
    const result = await this.deps.agents.update(beat.agent_id, (r) => (this.wellShaped(r, beat.agent_id) ? beaten(r, beat, now, this.deps.clock.now()) : null), undefined, known);
    if (result === null || !isAgentRecord(result.value)) throw new Refused("unknown_agent", "no such agent: say hello first");
    if (!result.changed && result.value.status !== "online" && dwelling(result.value, now)) {
      throw new Refused("unavailable", `went offline less than ${MIN_OFFLINE_DWELL_MS / 1000} s ago; send the heartbeat again`);
    }
    await this.flush(result.value);
  }

  private async bye(agentId: string): Promise<void> {
    const paid = this.charged(agentId);
    // The goodbye is the agent's last word: it was seen now (its record may hold an older beat; presence the rest).
    const now = this.deps.clock.now();
    await this.flush((await this.deps.agents.update(agentId, (r) => paid(this.wellShaped(r, agentId) ? departed({ ...r, last_seen_at: iso(now) }, now) : null)))?.value);
  }

  /**
   * For a compare-and-set's `mutate`: a write the agent causes at will draws on its writes, once per message however
   * often the compare-and-set is tried again; with none left the message is refused (OverLimit) and nothing written.
   */
  private charged(agentId: string): <T>(next: T | null) => T | null {
    let paid = false;
    return (next) => {
      if (next === null || paid) return next;
      if (!this.limits.takeWrite(agentId, this.deps.clock.now())) throw new OverLimit("writes");
      paid = true;
      return next;
    };
  }

  private wellShaped(value: AgentRecord, agentId: string): boolean {
    if (isAgentRecord(value)) return true;
    this.misshapen.note({ agent_id: agentId }, this.deps.clock.now());
    return false;
  }

  /** Publishes the record's outbox when it holds events (most heartbeats write none: no extra read). */
  private async flush(written: AgentRecord | undefined): Promise<void> {
    if (written !== undefined && isAgentRecord(written) && (written.outbox?.length ?? 0) > 0) await flushOutbox(this.deps.agents, this.deps.js, written.agent_id);
  }
}

