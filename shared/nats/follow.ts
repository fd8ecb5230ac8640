// Following a KV bucket: the current value of every key, then every change, until stopped.
// `ready` resolves once the initial values have been delivered, or at once when the watch has none to deliver. If
// the watch ends or fails (a server restart, a consumer lost), it is opened again from the revision after the last
// one seen, so a local copy never silently stops updating; an entry that is not JSON, or that `onEntry` throws on, is
// skipped with a warning (and still counts as delivered).
// A watch can also stall without ending: in a cluster, the node holding its ordered consumer dies while the
// connection (to another node) stays up, and the library notices only after missed idle heartbeats (~90 s). So a
// watchdog reads the bucket's head every `watchdogMs` and reopens a watch that was behind it at two checks in a row
// and delivered nothing meanwhile; a catch-up that waited its time out asks the same at once (`settled`).
// Every watch opened is a generation: once it is stopped (reopened), what it still delivers from its buffer is
// dropped, so nothing of a replaced watch reaches the copy after its replacement was decided.
// A bucket deleted and created again (or a new NATS store) is another bucket: the watchdog and every reopen compare
// its identity (shared/nats/bucket-identity.ts) and its head with what the copy follows, and when it is not the same
// bucket the copy is told to forget everything (`onReset`) and the watch starts over from the first entry.
import type { StreamInfo } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Logger } from "../log.js";
import { AppliedRevision, type WatchProbe } from "./applied.js";
import { identityOf } from "./bucket-identity.js";
import { decodeJson } from "./kvjson.js";
import { patiently } from "./provision.js";
import { startPeriodic } from "../periodic.js";

export interface Follower extends WatchProbe {
  ready: Promise<void>;
  stop(): Promise<void>;
}

const REWATCH_DELAY_MS = 500;
/** How often the watchdog reads the bucket's head (one stream info a period per follower, never per request). */
export const WATCHDOG_MS = 2_000;
/** Checks in a row that must find the watch behind the head, with nothing delivered since the one before. */
const STUCK_CHECKS = 2;

/**
 * Whether a watch has no initial values to deliver, so `ready` cannot wait for the last of them: an empty bucket (a
 * watch from the start), or nothing stored from `first` on (a resumed watch). A bucket with a TTL may have dropped
 * every entry after a checkpoint while its follower was down: its head is past the checkpoint, yet nothing comes.
 */
export function nothingToReplay(state: { messages: number; first_seq: number; last_seq: number }, values: number, first: number): boolean {
  if (first <= 0) return values === 0;
  return state.messages === 0 || state.last_seq < Math.max(first, state.first_seq);
}

export interface FollowOptions {
  resumeFromRevision?: number;
  /** How often the watchdog looks for a stalled watch (default WATCHDOG_MS; shorter in tests). */
  watchdogMs?: number;
  /** The identity of the bucket the copy was made from (a read model's, from its checkpoint); default: the bucket's now. */
  identity?: number | null;
  /**
   * The bucket is not the one the copy follows (another identity, or a head below what was delivered: recreated, a
   * new NATS store): the copy must forget every entry at once; the watch starts over from the first entry, and
   * nothing the old watch still had is delivered after this. `identity` is the new bucket's.
   */
  onReset?: (identity: number | null) => void;
}

export async function followBucket<T>(
  kv: KV,
  log: Logger,
  onEntry: (key: string, revision: number, value: T | null) => void,
  opts: FollowOptions = {},
): Promise<Follower> {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  // A service (re)started while JetStream is unavailable (an election, a node restarting) waits for it here.
  const status = await patiently(() => kv.status());
  let identity = identityOf(status.streamInfo.config);
  let first = opts.resumeFromRevision ?? 0;
  if (first > 0 && opts.identity !== undefined && opts.identity !== identity) {
    // Created again between the copy's own look and this one: it starts over.
    first = 0;
    opts.onReset?.(identity);
  }
  if (nothingToReplay(status.streamInfo.state, status.values, first)) markReady();
  let stopped = false;
  let lastRevision = first > 0 ? first - 1 : 0;
  /** Entries delivered so far, by every generation (whether anything came between two looks). */
  let deliveries = 0;
  type Watch = Awaited<ReturnType<KV["watch"]>>;
  /** The current watch's generation: bumped whenever a watch is given up, so its leftovers are dropped. */
  let generation = 0;
  // The open watch; null between its end and a reopen that succeeded (a stopped iterator cannot be iterated again).
  let iter: Watch | null = await patiently(() => kv.watch(first > 0 ? { resumeFromRevision: first } : {}));

  /** Gives the current watch up: the loop below opens the next from lastRevision + 1. */
  const reopen = (why: string): void => {
    if (stopped || !iter) return; // being reopened already
    log.warn({ bucket: status.bucket, revision: lastRevision }, `bucket watch stalled (${why}); reopening it`);
    generation++;
    iter.stop();
  };

  /** Whether `info` is of another bucket than the one whose entries were delivered up to `delivered`. */
  const recreated = (info: StreamInfo, delivered: number): boolean => {
    const now = identityOf(info.config);
    if (info.state.last_seq < delivered) return true;
    // A bucket made before identities given one by a newer version: the same bucket.
    if (identity === null && now !== null) identity = now;
    return now !== identity;
  };
  let hurry = false;
  /** Drops the copy and the watch: the loop below opens the next from the first entry, without the usual delay. */
  const reset = (info: StreamInfo): void => {
    log.warn({ bucket: status.bucket, revision: lastRevision, head: info.state.last_seq }, "the bucket was created again (another identity, or a head below the copy's); its copy starts over");
    identity = identityOf(info.config);
    generation++;
    lastRevision = 0;
    hurry = true;
    opts.onReset?.(identity);
    // An empty bucket: its watch delivers nothing to be ready by (a copy still loading the old one would never be).
    if (nothingToReplay(info.state, info.state.messages, 0)) markReady();
    iter?.stop();
  };

  // The watchdog. Each check notes what was delivered *before* it reads the head: a revision delivered while the
  // head is read must not make a watch that keeps up look behind.
  let previous: { generation: number; deliveries: number } | null = null;
  let stuckChecks = 0;
  const watchdog = startPeriodic(
    opts.watchdogMs ?? WATCHDOG_MS,
    async () => {
      const seen = { generation, deliveries, revision: lastRevision, open: iter !== null };
      const info = (await kv.status()).streamInfo;
      // Reopening, or reopened while the head was read, or another bucket: counting starts again with the next watch.
      const current = !stopped && seen.open && seen.generation === generation;
      if (current && recreated(info, seen.revision)) reset(info);
      if (!current || seen.generation !== generation) {
        previous = null;
        stuckChecks = 0;
        return;
      }
      const behind = !nothingToReplay(info.state, 1, seen.revision + 1);
      const idle = previous !== null && previous.generation === seen.generation && previous.deliveries === seen.deliveries;
      stuckChecks = behind && idle ? stuckChecks + 1 : 0;
      previous = { generation: seen.generation, deliveries: seen.deliveries };
      if (stuckChecks >= STUCK_CHECKS) {
        stuckChecks = 0;
        previous = null;
        reopen(`behind the head at revision ${seen.revision} with nothing delivered at ${STUCK_CHECKS} checks in a row`);
      }
    },
    (err) => log.debug({ err, bucket: status.bucket }, "bucket watchdog cannot read the head yet"),
  );

  const drain = async (watch: Watch, gen: number): Promise<void> => {
    for await (const e of watch) {
      // Left in a given-up watch's buffer: its replacement delivers it again (or, after a reset, not at all).
      if (gen !== generation) break;
      lastRevision = e.revision;
      deliveries++;
      let value: T | null = null;
      try {
        if (e.operation === "PUT" && e.value.length > 0) value = decodeJson<T>(e.value);
        onEntry(e.key, e.revision, value);
      } catch (err) {
        log.warn({ err, bucket: status.bucket, key: e.key, revision: e.revision }, "skipped an entry that could not be applied (not JSON, or not what this copy expects)");
      }
      // The last initial value (or a later one): delivered, whether it could be applied or not.
      if (e.isUpdate) markReady();
    }
  };

  let wakeEarly: () => void = () => {};
  const done = (async () => {
    while (!stopped) {
      try {
        if (iter) await drain(iter, generation);
      } catch (err) {
        if (!stopped) log.warn({ err, bucket: status.bucket }, "bucket watch failed; reopening it");
      }
      iter?.stop();
      iter = null;
      if (stopped) break;
      if (!hurry) {
        await new Promise<void>((r) => {
          wakeEarly = r; // stop() ends the wait
          setTimeout(r, REWATCH_DELAY_MS);
        });
      }
      hurry = false;
      if (stopped) break;
      try {
        // Not the bucket the copy follows (recreated while the watch was gone): it starts over.
        const info = (await kv.status()).streamInfo;
        if (stopped) break;
        if (recreated(info, lastRevision)) reset(info);
        hurry = false;
        generation++;
        const gen = generation;
        // Everything up to lastRevision was applied; an empty bucket starts over with the current values.
        const reopened = await kv.watch(lastRevision > 0 ? { resumeFromRevision: lastRevision + 1 } : {});
        // Stopped while it opened: nobody would stop it (its consumer would live, queueing every change).
        if (stopped || gen !== generation) reopened.stop();
        else iter = reopened;
      } catch (err) {
        log.warn({ err, bucket: status.bucket }, "cannot reopen the bucket watch yet");
      }
    }
  })();

  return {
    ready,
    get deliveries() {
      return deliveries;
    },
    async settled(head: number, deliveriesBefore: number) {
      if (lastRevision >= head) return true;
      const state = (await kv.status()).streamInfo.state;
      // Nothing left in the bucket up to `head` (expired, or removed): the watch will not deliver it.
      if (state.messages === 0 || state.first_seq > head) return true;
      if (lastRevision >= head) return true;
      if (deliveries === deliveriesBefore) reopen(`a catch-up to revision ${head} waited with nothing delivered`);
      return false;
    },
    async stop() {
      stopped = true;
      await watchdog.stop();
      wakeEarly();
      iter?.stop();
      markReady();
      await done;
    },
  };
}

/**
 * A live in-memory copy of a whole bucket (key → value), for small buckets read on every request or pass.
 * `catchUp()` waits until the copy holds every write the bucket had when it was called (read-your-writes).
 */
export class BucketMirror<T> {
  private readonly entries = new Map<string, T>();
  private readonly revisions = new Map<string, number>();
  private follower: Follower | null = null;
  private readonly applied: AppliedRevision;

  constructor(
    private readonly kv: KV,
    private readonly log: Logger,
    /** Told after each change is applied. */
    private readonly onChange: (key: string, value: T | null) => void = () => {},
    /**
     * What of each decoded value to keep (the ticker keeps the scheduling fields of 100,000 items, not all); null:
     * nothing, the key reads as absent (a value not of the shape this copy serves).
     */
    private readonly keep: (decoded: T, key: string) => T | null = (v) => v,
    private readonly followOptions: Pick<FollowOptions, "watchdogMs"> = {},
  ) {
    this.applied = new AppliedRevision(kv);
  }

  /** Resolves once the bucket's current values are loaded. */
  async start(): Promise<void> {
    this.follower = await followBucket<T>(this.kv, this.log, (key, revision, decoded) => {
      const value = decoded === null ? null : this.keep(decoded, key);
      if (value) {
        this.entries.set(key, value);
        this.revisions.set(key, revision);
      } else {
        this.entries.delete(key);
        this.revisions.delete(key);
      }
      this.applied.advance(revision);
      this.onChange(key, value);
    }, {
      ...this.followOptions,
      onReset: () => {
        // Another bucket (a wiped store): no key this copy holds exists any more (a revoked key must not stay accepted).
        const keys = [...this.entries.keys()];
        this.entries.clear();
        this.revisions.clear();
        this.applied.reset(0);
        for (const key of keys) this.onChange(key, null);
      },
    });
    await this.follower.ready;
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
    this.applied.release();
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** The value with the revision it was written at, for a compare-and-set without a read (may be stale). */
  versioned(key: string): { value: T; revision: number } | undefined {
    const value = this.entries.get(key);
    const revision = this.revisions.get(key);
    return value === undefined || revision === undefined ? undefined : { value, revision };
  }

  values(): IterableIterator<T> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  all(): IterableIterator<[string, T]> {
    return this.entries.entries();
  }

  /** Waits until every write the bucket held at call time is applied here (see AppliedRevision.catchUp). */
  catchUp(timeoutMs = 2_000): Promise<boolean> {
    return this.applied.catchUp(timeoutMs, this.follower ?? undefined);
  }
}
