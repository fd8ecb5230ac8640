// Following a KV bucket: the current value of every key, then every change, until stopped.
// `ready` resolves once the initial values have been delivered, or at once when the watch has none to deliver. If
// the watch ends or fails (a server restart, a consumer lost), it is opened again from the revision after the last
// one seen, so a local copy never silently stops updating; an entry that is not JSON, or that `onEntry` throws on, is
// skipped with a warning (and still counts as delivered).
import type { KV } from "@nats-io/kv";
import type { Logger } from "../log.js";
import { AppliedRevision } from "./applied.js";
import { decodeJson } from "./kvjson.js";
import { patiently } from "./provision.js";

export interface Follower {
  ready: Promise<void>;
  stop(): Promise<void>;
}

const REWATCH_DELAY_MS = 500;

/**
 * Whether a watch has no initial values to deliver, so `ready` cannot wait for the last of them: an empty bucket (a
 * watch from the start), or nothing stored from `first` on (a resumed watch). A bucket with a TTL may have dropped
 * every entry after a checkpoint while its follower was down: its head is past the checkpoint, yet nothing comes.
 */
export function nothingToReplay(state: { messages: number; first_seq: number; last_seq: number }, values: number, first: number): boolean {
  if (first <= 0) return values === 0;
  return state.messages === 0 || state.last_seq < Math.max(first, state.first_seq);
}

export async function followBucket<T>(
  kv: KV,
  log: Logger,
  onEntry: (key: string, revision: number, value: T | null) => void,
  opts: { resumeFromRevision?: number } = {},
): Promise<Follower> {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  const first = opts.resumeFromRevision ?? 0;
  // A service (re)started while JetStream is unavailable (an election, a node restarting) waits for it here.
  const status = await patiently(() => kv.status());
  if (nothingToReplay(status.streamInfo.state, status.values, first)) markReady();
  let stopped = false;
  let lastRevision = first > 0 ? first - 1 : 0;
  let iter = await patiently(() => kv.watch(first > 0 ? { resumeFromRevision: first } : {}));

  const drain = async (): Promise<void> => {
    for await (const e of iter) {
      lastRevision = e.revision;
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
        await drain();
      } catch (err) {
        if (!stopped) log.warn({ err, bucket: status.bucket }, "bucket watch failed; reopening it");
      }
      if (stopped) break;
      await new Promise<void>((r) => {
        wakeEarly = r; // stop() ends the wait
        setTimeout(r, REWATCH_DELAY_MS);
      });
      if (stopped) break;
      try {
        // Everything up to lastRevision was applied; an empty bucket starts over with the current values.
        const reopened = await kv.watch(lastRevision > 0 ? { resumeFromRevision: lastRevision + 1 } : {});
        // Stopped while it opened: nobody would stop it (its consumer would live, queueing every change).
        if (stopped) reopened.stop();
        iter = reopened;
      } catch (err) {
        log.warn({ err, bucket: status.bucket }, "cannot reopen the bucket watch yet");
      }
    }
  })();

  return {
    ready,
    async stop() {
      stopped = true;
      wakeEarly();
      iter.stop();
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
    return this.applied.catchUp(timeoutMs, true);
  }
}
