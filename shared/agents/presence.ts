// Agents' last-seen times, kept apart from their records (docs/architecture.md#presence). Ten thousand agents
// beating every 5 s made 2,000 compare-and-set writes of whole records a second, each one decoded again by every
// service that mirrors the agents bucket. Now a heartbeat that changes nothing but the time (the agent is online,
// its record is recent) goes into a presence batch instead: the registry collects the beats it hears for a moment
// and publishes them as one message on INQ_PRESENCE, which every reader follows. The record itself is still
// written on every change of state and at least every RECORD_REFRESH_MS, so the stream only needs to cover that
// gap: it keeps PRESENCE_WINDOW_MS. An agent's last-seen time is the later of its record's and its presence's.
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Type } from "typebox";
import { iso } from "../clock.js";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { STREAMS, SUBJECTS } from "../nats/catalog.js";
import { tryDecodeJson } from "../nats/kvjson.js";
import { isUnavailable, logRetriedFailure } from "../nats/errors.js";
import { patiently } from "../nats/provision.js";
import { checker } from "../validate.js";
import type { AgentRecord } from "./record.js";

/** How long the presence stream keeps a batch (its max_age). */
export const PRESENCE_WINDOW_MS = STREAMS.presence.max_age / 1_000_000;
/** A heartbeat writes the record (its last_seen_at) when the record's time is older than this: well inside the window. */
export const RECORD_REFRESH_MS = PRESENCE_WINDOW_MS / 3;

/** One presence message: agent id -> when its heartbeat arrived (ms since the epoch). */
export const PresenceBatch = Type.Object({ beats: Type.Record(Type.String({ maxLength: 128 }), Type.Integer({ minimum: 0 })) });
const presenceBatch = checker(PresenceBatch);

/** The later of the record's last_seen_at and the presence time, in ms (null: never seen). */
export function lastSeenMs(record: Pick<AgentRecord, "last_seen_at">, presenceMs: number | undefined): number | null {
  const recorded = record.last_seen_at ? Date.parse(record.last_seen_at) : NaN;
  const best = Math.max(Number.isNaN(recorded) ? -Infinity : recorded, presenceMs ?? -Infinity);
  return Number.isFinite(best) ? best : null;
}

/** The record as readers should show it: last_seen_at from presence when that is later. */
export function withPresence(record: AgentRecord, presenceMs: number | undefined): AgentRecord {
  const recorded = lastSeenMs(record, undefined);
  return presenceMs !== undefined && (recorded === null || presenceMs > recorded) ? { ...record, last_seen_at: iso(presenceMs) } : record;
}

/**
 * A heartbeat that only says "still here": the record shows the agent online with the same snapshot, has no
 * events waiting, and was written within RECORD_REFRESH_MS. Anything else is a compare-and-set on the record.
 */
export function onlyPresence(record: AgentRecord, snapshotCollectedAt: string | null, nowMs: number): boolean {
  if (record.status !== "online" || (record.outbox?.length ?? 0) > 0 || !record.last_seen_at) return false;
  if (snapshotCollectedAt !== null && snapshotCollectedAt !== record.snapshot_collected_at) return false;
  return nowMs - Date.parse(record.last_seen_at) < RECORD_REFRESH_MS;
}

export interface PresenceWriterOptions {
  /** How long beats are collected before they are published together. */
  flushMs: number;
  /** A batch is published at once when it holds this many agents (keeps each message far below max_payload). */
  maxBeats: number;
}

export const DEFAULT_PRESENCE_WRITER: PresenceWriterOptions = { flushMs: 200, maxBeats: 4_000 };

/**
 * Told once the batch holding a beat was stored (no argument), or could not be (the publish's error, which the
 * writer has logged once for the whole batch). It must not throw: the other beats of its batch are told after it.
 */
export type BeatStored = (err?: unknown) => void;

/**
 * The registry's side: `record` tells `stored` once a batch holding the beat is stored (the agent then hears "ok").
 * A beat waits here with nothing but its callback, which holds only what its answer needs: at 10,000 agents a few
 * thousand wait at once, and each holding its message and an async frame was ~4,000 Msg objects in a busy runner.
 */
export class PresenceWriter implements Component {
  readonly name = "presence-writer";
  private beats = new Map<string, number>();
  private waiters: BeatStored[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly opts: PresenceWriterOptions = DEFAULT_PRESENCE_WRITER,
    /** Told once per batch that was not stored (its beats are each answered, not logged). */
    private readonly log?: Logger,
  ) {}

  async start(): Promise<void> {}

  /** Publishes what it holds; resolves once every beat it held was told. */
  async stop(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inFlight]);
  }

  record(agentId: string, atMs: number, stored: BeatStored): void {
    this.beats.set(agentId, Math.max(atMs, this.beats.get(agentId) ?? 0));
    this.waiters.push(stored);
    if (this.beats.size >= this.opts.maxBeats) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.opts.flushMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.beats.size === 0) return;
    const batch = encodeBeats(this.beats);
    const waiters = this.waiters;
    this.beats = new Map();
    this.waiters = [];
    const publish = this.js.publish(SUBJECTS.presence, batch).then(
      () => tell(waiters),
      (err: unknown) => {
        // One line for the batch: a line per beat was up to maxBeats lines for one failed publish.
        const count = waiters.length;
        if (isUnavailable(err)) this.log?.warn({ err, beats: count }, `presence: NATS unavailable; a batch of ${count} heartbeats was not stored, each agent sends it again`);
        else this.log?.error({ err, beats: count }, `presence: a batch of ${count} heartbeats could not be stored; each agent sends it again`);
        tell(waiters, err ?? new Error("the presence batch was not stored"));
      },
    );
    const tracked = publish.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}

/**
 * The batch as JSON, `{"beats":{"<agent id>":<ms>,...}}`, written from the map: building an object of a few thousand
 * keys first (Object.fromEntries) grew it as a dictionary, rehashing as it went, on every flush.
 */
export function encodeBeats(beats: ReadonlyMap<string, number>): Uint8Array {
  const parts: string[] = [];
  for (const [agentId, atMs] of beats) parts.push(`${JSON.stringify(agentId)}:${JSON.stringify(atMs)}`);
  return new TextEncoder().encode(`{"beats":{${parts.join(",")}}}`);
}

function tell(waiters: BeatStored[], err?: unknown): void {
  for (const stored of waiters) {
    try {
      stored(err);
    } catch {
      // Not ours to handle: the others of the batch are told all the same.
    }
  }
}

const REREAD_DELAY_MS = 500;

/** Every reader's side: the latest presence time of each agent, from the stream's last PRESENCE_WINDOW_MS on. */
export class PresenceFollower implements Component {
  readonly name = "presence-follower";
  private readonly seen = new Map<string, number>();
  private messages: ConsumerMessages | null = null;
  private done: Promise<void> | null = null;
  private lastSeq = 0;
  /** The stream's last sequence when upToDate was last asked, and how many answers in a row were false. */
  private askedSeq = 0;
  private behind = 0;
  private caughtUp = false;
  private stopped = false;

  constructor(private readonly deps: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager; log: Logger; clock: { now(): number } }) {}

  /** When the agent's heartbeat last arrived, as far as presence knows. */
  lastSeen(agentId: string): number | undefined {
    return this.seen.get(agentId);
  }

  /**
   * True once every batch stored before the follower started has been read: until then a reader must not
   * conclude an agent is silent.
   */
  get ready(): boolean {
    return this.caughtUp;
  }

  /**
   * Whether the follower has caught up and read every batch the stream held when this was last asked (the
   * liveness sweep asks once per sweep and marks nobody offline otherwise: after a NATS restart a consumer can
   * sit silent until its heartbeats are missed). Asked twice in a row without being up to date, it reads the
   * stream again from the batch after its last.
   */
  async upToDate(): Promise<boolean> {
    const previous = this.askedSeq;
    this.askedSeq = (await this.deps.jsm.streams.info(STREAMS.presence.name)).state.last_seq;
    const current = this.caughtUp && this.lastSeq >= previous;
    this.behind = current ? 0 : this.behind + 1;
    if (this.behind >= 2 && this.caughtUp) {
      this.deps.log.warn({ read: this.lastSeq, stored: previous }, "presence: the follower fell behind the stream; reading it again");
      this.behind = 0;
      this.messages?.stop();
    }
    return current;
  }

  async start(): Promise<void> {
    const since = new Date(this.deps.clock.now() - PRESENCE_WINDOW_MS).toISOString();
    const state = (await patiently(() => this.deps.jsm.streams.info(STREAMS.presence.name))).state;
    const target = state.last_seq;
    if (state.messages === 0 || Date.parse(state.last_ts) < Date.parse(since)) this.caughtUp = true;
    this.done = this.follow(since, target);
    // After a reconnect the consumer may sit silent until it misses its heartbeats: read again at once instead.
    // (The loop ends with the connection, or at the first status after stop.)
    void (async () => {
      for await (const status of this.deps.nc.status()) {
        if (this.stopped) break;
        if (status.type === "reconnect") this.messages?.stop();
      }
    })();
    // Batches older than the window may all have expired before the consumer read them: then nothing comes.
    if (!this.caughtUp) void this.untilNothingOlderIsLeft(target);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.messages?.stop();
    await this.done;
  }

  /** Reads the stream from `since`, and again from the batch after the last one read whenever reading stops. */
  private async follow(since: string, target: number): Promise<void> {
    while (!this.stopped) {
      try {
        const from = this.lastSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.lastSeq + 1 } : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since };
        const consumer = await this.deps.js.consumers.get(STREAMS.presence.name, from);
        this.messages = await consumer.consume();
        if (this.stopped) this.messages.stop();
        for await (const msg of this.messages) {
          this.lastSeq = msg.seq;
          this.apply(msg.data);
          if (!this.caughtUp && (msg.seq >= target || msg.info.pending === 0)) this.caughtUp = true;
        }
      } catch (err) {
        if (!this.stopped) logRetriedFailure(this.deps.log, err, "presence: reading the stream failed; reading it again");
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, REREAD_DELAY_MS));
    }
  }

  private apply(data: Uint8Array): void {
    const batch = presenceBatch.check(tryDecodeJson(data));
    if (!batch.ok) {
      this.deps.log.warn("presence: skipped a batch that does not match its schema");
      return;
    }
    for (const [agentId, at] of Object.entries(batch.value.beats)) {
      if (at > (this.seen.get(agentId) ?? 0)) this.seen.set(agentId, at);
    }
  }

  /** Caught up once the stream holds nothing at or below `target` that has not been read. */
  private async untilNothingOlderIsLeft(target: number): Promise<void> {
    while (!this.caughtUp && !this.stopped) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        const state = (await this.deps.jsm.streams.info(STREAMS.presence.name)).state;
        if (state.messages === 0 || state.first_seq > target || this.lastSeq >= target) this.caughtUp = true;
      } catch (err) {
        logRetriedFailure(this.deps.log, err, "presence: stream info failed; asking again");
      }
    }
  }
}
