// A local, rebuildable read model: follows a KV bucket (the source of truth) into LMDB with secondary
// indexes, so lists are served locally with stable cursor pagination. Delete the LMDB directory and it is
// rebuilt from the bucket at next start. `catchUp()` gives read-your-writes across replicas: it waits until
// everything the bucket held when the read began has been applied here. A bucket deleted and created again (another
// identity, shared/nats/bucket-identity.ts) is rebuilt from: at start, and when its follower finds it while running.
import type { KV } from "@nats-io/kv";
import type { Database, Key } from "lmdb";
import { commitFailed, inTransaction, type LocalStore } from "./local-store.js";
import type { Logger } from "./log.js";
import { AppliedRevision } from "./nats/applied.js";
import { identityOf } from "./nats/bucket-identity.js";
import { IndexStore } from "./readmodel-index.js";
import { followBucket, type Follower } from "./nats/follow.js";
import { patiently } from "./nats/provision.js";
import { startPeriodic, type Periodic } from "./periodic.js";

export type IndexKey = Array<string | number>;

/**
 * How a bucket of `T` documents is kept: each stored as `S` (what lists need: `store` makes it, by default the
 * whole document), indexed by `indexKeys`.
 */
export interface ReadModelSpec<T, S = T> {
  /** LMDB sub-database prefix; bump the version suffix when the index layout changes. */
  name: string;
  /** The index entries of a stored document; each must end with the document key so entries are unique. */
  indexKeys(doc: S): IndexKey[];
  /**
   * What is kept of a document (default: all of it). The local copy grows with the bucket and its pages count
   * in the process's memory, so a model whose documents carry large parts no list shows keeps only the rest.
   * Must keep whatever `indexKeys` and `expiry` read.
   */
  store?(doc: T): S;
  /**
   * Documents the bucket forgets without telling its watchers (a TTL; nats-server 2.9 sends no event when an
   * entry expires): they are pruned at start and then every `everyMs`.
   */
  expiry?: { everyMs: number; expired(doc: S, nowMs: number): boolean };
}

/** An entry waiting for its batch's transaction. */
interface PendingEntry<S> {
  key: string;
  revision: number;
  stored: S | null;
  after: IndexKey[];
  failed: boolean;
}

interface Batch<S> {
  generation: number;
  entries: Array<PendingEntry<S>>;
  /** Settles once the batch's commit is handled (never rejects). */
  done: Promise<void>;
}

interface StoredDoc<T> {
  revision: number;
  doc: T;
}

export interface Page<T> {
  items: T[];
  next: IndexKey | null;
}

/** How long the prune at start waits for the bucket's contents to be applied. */
const PRUNE_CATCH_UP_MS = 60_000;

export class ReadModel<T, S = T> {
  // Opened again whenever the store reopens its environment (shared/local-store.ts).
  private docs!: Database<StoredDoc<S>, string>;
  private index!: IndexStore;
  private meta!: Database<number, string>;
  private readonly applied: AppliedRevision;
  private follower: Follower | null = null;
  /** The periodic prune of expired documents (one at a time: a slow prune makes the next tick skip). */
  private pruner: Periodic | null = null;
  /** The first prune, once the bucket's contents are applied; stop() waits for it. */
  private pruning: Promise<void> = Promise.resolve();
  private stopped = false;
  /**
   * The lowest revision whose LMDB write failed since start: the checkpoint never moves past it, so a restart
   * replays it (later entries replay too; applying an entry twice is a no-op).
   */
  private firstFailed: number | null = null;
  /** Bumped when the bucket was found created again: writes of entries of the old one are dropped. */
  private generation = 0;
  /** The entries applied since the last microtask checkpoint, written together (`apply`). */
  private open: Batch<S> | null = null;

  constructor(
    private readonly store: LocalStore,
    private readonly kv: KV,
    private readonly spec: ReadModelSpec<T, S>,
    private readonly log: Logger,
  ) {
    store.bind((root) => {
      this.docs = root.openDB<StoredDoc<S>, string>({ name: `${spec.name}:docs` });
      this.index = new IndexStore(root, spec.name);
      this.meta = root.openDB<number, string>({ name: `${spec.name}:meta` });
    });
    this.applied = new AppliedRevision(kv);
  }

  async start(): Promise<void> {
    if ((this.meta.get("layout") ?? 1) < LAYOUT && (this.meta.get("checkpoint") ?? 0) > 0) {
      // Written by an older version, with all its indexes in one database: that database goes, and the model is
      // rebuilt from the bucket.
      this.log.info({ model: this.spec.name }, "read model written in an older layout; rebuilding");
      this.store.root.openDB<string, Key>({ name: `${this.spec.name}:index` }).dropSync();
      this.clear();
    }
    this.applied.reset(this.meta.get("checkpoint") ?? 0);
    const info = (await patiently(() => this.kv.status())).streamInfo;
    const head = info.state.last_seq;
    const identity = identityOf(info.config);
    if (this.applied.current > head) {
      // The bucket is younger than our copy (a new NATS store): rebuild from scratch.
      this.log.warn({ model: this.spec.name, checkpoint: this.applied.current, head }, "read model ahead of its bucket; rebuilding");
      this.clear();
    } else if (this.applied.current > 0 && (this.meta.get("identity") ?? null) !== identity) {
      // Another bucket (deleted and created again, a new NATS store) whose head reached the checkpoint; or a model
      // written before identities, rebuilt once.
      this.log.warn({ model: this.spec.name, checkpoint: this.applied.current, head }, "read model of another bucket (created again); rebuilding");
      this.clear();
    }
    if (this.meta.get("layout") !== LAYOUT || (this.meta.get("identity") ?? null) !== identity) {
      await this.store.write(() => this.meta.transaction(() => this.identify(identity)));
    }
    this.follower = await followBucket<T>(this.kv, this.log, (key, revision, value) => void this.apply(key, revision, value), {
      resumeFromRevision: this.applied.current > 0 ? this.applied.current + 1 : 0,
      identity,
      onReset: (now) => this.startOver(now),
    });
    await this.follower.ready;
    const expiry = this.spec.expiry;
    if (expiry) {
      this.stopped = false;
      // Once at start, when what the bucket holds is applied (in the background: start-up does not wait),
      // then every `everyMs`.
      this.pruning = this.catchUp(PRUNE_CATCH_UP_MS)
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          if (this.stopped) return;
          this.pruner = startPeriodic(
            expiry.everyMs,
            async () => void (await this.prune((doc) => expiry.expired(doc, Date.now()))),
            (err) => this.log.error({ err, model: this.spec.name }, "read model prune failed"),
          );
          return this.pruner.runNow();
        });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.pruner?.stop();
    await this.follower?.stop();
    this.applied.release();
    await this.pruning;
  }

  private clear(): void {
    this.docs.transactionSync(() => {
      this.docs.clearSync();
      this.index.clearSync();
      this.meta.clearSync();
    });
    this.applied.reset(0);
  }

  /** Notes the layout and the identity of the bucket the model is of (in the caller's transaction). */
  private identify(identity: number | null): void {
    inTransaction(this.meta.put("layout", LAYOUT));
    if (identity === null) inTransaction(this.meta.remove("identity"));
    else inTransaction(this.meta.put("identity", identity));
  }

  /**
   * The bucket was created again under the running model: everything goes now (writes of the old bucket's entries
   * still queued become no-ops), and the follower delivers the new bucket from its first entry.
   */
  private startOver(identity: number | null): void {
    this.generation++;
    this.firstFailed = null;
    this.applied.reset(0);
    this.store
      .write(async () => {
        this.clear();
        this.docs.transactionSync(() => {
          this.meta.putSync("layout", LAYOUT);
          if (identity !== null) this.meta.putSync("identity", identity);
        });
      })
      .catch((err: unknown) => this.log.error({ err, model: this.spec.name }, "read model could not be emptied for its bucket created again; delete its directory"));
  }

  /**
   * Applies one bucket entry; an older revision than the stored one is ignored (replicas may race).
   * The entries applied in one synchronous stretch (a follower's batch of messages) are written by one LMDB
   * transaction callback, with the checkpoint once, rather than one callback and one checkpoint write each; lmdb
   * batches the callbacks of an event-loop turn into one commit, in order. An entry counts as applied (for `catchUp`)
   * once its commit is done. A write that fails pins the checkpoint below its revision (see `firstFailed`); an entry
   * whose write throws leaves the rest of its batch to be written.
   */
  apply(key: string, revision: number, value: T | null): Promise<void> {
    // Worked out before the write is queued: a document the spec cannot handle throws to the follower, which logs
    // it and goes on from the next entry.
    const stored = value === null ? null : this.spec.store ? this.spec.store(value) : (value as unknown as S);
    const after = stored === null ? [] : this.spec.indexKeys(stored);
    let batch = this.open;
    if (batch === null || batch.generation !== this.generation) {
      const opened: Batch<S> = { generation: this.generation, entries: [], done: Promise.resolve() };
      opened.done = Promise.resolve().then(() => {
        if (this.open === opened) this.open = null;
        return this.writeBatch(opened);
      });
      this.open = batch = opened;
    }
    batch.entries.push({ key, revision, stored, after, failed: false });
    return batch.done;
  }

  private writeBatch(batch: Batch<S>): Promise<void> {
    return this.store.write(() => this.write(batch)).catch((err: unknown) => {
      if (batch.generation !== this.generation) return;
      // The write never started (the store is broken, or opening an index's database failed): as a failed commit.
      for (const e of batch.entries) this.failed(e.revision);
      this.log.error({ err, model: this.spec.name, entries: batch.entries.length, revision: batch.entries[0]?.revision }, "read model write failed; it is replayed at next start");
    });
  }

  private failed(revision: number): void {
    this.firstFailed = this.firstFailed === null ? revision : Math.min(this.firstFailed, revision);
  }

  private write(batch: Batch<S>): Promise<void> {
    const { entries, generation } = batch;
    for (const e of entries) this.index.prepare(e.after);
    const committed = this.docs.transaction(() => {
      if (generation !== this.generation) return; // of the bucket before it was created again
      let top = 0;
      for (const e of entries) {
        try {
          this.writeEntry(e);
          top = Math.max(top, e.revision);
        } catch (err) {
          // lmdb keeps the writes the entry made before it threw; a replay rewrites it whole (see writeEntry).
          e.failed = true;
          this.failed(e.revision);
          this.log.error({ err, model: this.spec.name, key: e.key, revision: e.revision }, "read model write failed; it is replayed at next start");
        }
      }
      const checkpoint = this.firstFailed === null ? top : Math.min(top, this.firstFailed - 1);
      if (checkpoint > (this.meta.get("checkpoint") ?? 0)) inTransaction(this.meta.put("checkpoint", checkpoint));
    });
    return committed.then(
      () => {
        if (generation !== this.generation) return;
        for (const e of entries) if (!e.failed) this.applied.advance(e.revision);
      },
      (err: unknown) => {
        if (generation !== this.generation) return commitFailed(err);
        // A failed commit (e.g. a full disk) fails every write batched into it, and batches whose callbacks ran
        // before it was known may have moved the checkpoint on: set it back (lmdb commits in order, so this
        // write lands after them).
        for (const e of entries) this.failed(e.revision);
        commitFailed(err);
        this.log.error({ err, model: this.spec.name, entries: entries.length, revision: entries[0]?.revision }, "read model write failed; it is replayed at next start");
        const ceiling = (this.firstFailed ?? 1) - 1;
        return this.meta
          .transaction(() => {
            if ((this.meta.get("checkpoint") ?? 0) > ceiling) inTransaction(this.meta.put("checkpoint", ceiling));
          })
          .then(
            () => undefined,
            commitFailed,
          );
      },
    );
  }

  /** One entry, in the batch's transaction. */
  private writeEntry(e: PendingEntry<S>): void {
    const old = this.docs.get(e.key);
    if (old && old.revision >= e.revision) return;
    // The document is written last: lmdb keeps the writes a failing callback made before it threw, and a replay
    // skips a key whose stored revision is current, so the index must be complete first.
    // Only the entries that change: most updates (progress, a delivery's attempt) keep most of them.
    const before = old ? this.spec.indexKeys(old.doc) : [];
    for (const k of before) if (!e.after.some((a) => sameKey(a, k))) this.index.remove(k);
    for (const k of e.after) if (!before.some((b) => sameKey(b, k))) this.index.put(k, e.key);
    if (e.stored === null) inTransaction(this.docs.remove(e.key));
    else inTransaction(this.docs.put(e.key, { revision: e.revision, doc: e.stored }));
  }

  /** Waits until every write the bucket held at call time is applied (bounded by `timeoutMs`). */
  async catchUp(timeoutMs = 2_000): Promise<void> {
    // A head revision this copy never applies (expired by the bucket's TTL before it was read, or skipped as a
    // document the spec cannot take) counts as reached once waited out, so it cannot hold up every later list; a
    // watch that stalled is reopened, and waited for once more (AppliedRevision.catchUp).
    await this.applied.catchUp(timeoutMs, this.follower ?? undefined);
  }

  get(key: string): S | null {
    this.store.assertReadable();
    return this.docs.get(key)?.doc ?? null;
  }

  /**
   * Drops every document `predicate` holds for, with its index entries (the bucket keeps the truth: a later
   * write of the key brings it back). Scans `batch` documents at a time and yields between batches, so
   * neither readers nor writers are held up; returns how many went.
   */
  async prune(predicate: (doc: S) => boolean, batch = 1_000): Promise<number> {
    let removed = 0;
    let after: string | null = null;
    for (;;) {
      this.store.assertReadable(); // each batch starts after a turn of the event loop, maybe in a reopen's instant
      const keys: string[] = [];
      let last: string | null = null;
      let scanned = 0;
      for (const { key, value } of this.docs.getRange(after === null ? { limit: batch } : { start: after, exclusiveStart: true, limit: batch })) {
        last = key;
        scanned++;
        if (predicate(value.doc)) keys.push(key);
      }
      if (keys.length > 0) {
        removed += await this.store.write(() => this.docs.transaction(() => {
          let n = 0;
          for (const key of keys) {
            const current = this.docs.get(key);
            if (!current || !predicate(current.doc)) continue; // rewritten meanwhile
            for (const k of this.spec.indexKeys(current.doc)) this.index.remove(k);
            inTransaction(this.docs.remove(key));
            n++;
          }
          return n;
        }));
      }
      if (last === null || scanned < batch || this.stopped) break;
      after = last;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (removed > 0) this.log.info({ model: this.spec.name, removed }, "read model pruned");
    return removed;
  }

  /**
   * Walks an index from `prefix` (exclusive of `after`), newest last key first when `reverse`. With `accept`,
   * documents it refuses are skipped without counting: a page holds `limit` accepted documents whenever more
   * follow, and `next` is null when no accepted document follows.
   */
  page(prefix: IndexKey, opts: { after: IndexKey | null; limit: number; reverse: boolean; accept?: (doc: S) => boolean }): Page<S> {
    this.store.assertReadable();
    const items: S[] = [];
    let last: IndexKey | null = null;
    let more = false;
    for (const { entry, docKey } of this.index.walk({ prefix, after: opts.after, reverse: opts.reverse })) {
      const doc = this.docs.get(docKey)?.doc;
      if (!doc || (opts.accept && !opts.accept(doc))) continue;
      if (items.length === opts.limit) {
        more = true;
        break;
      }
      items.push(doc);
      last = entry;
    }
    return { items, next: more ? last : null };
  }
}

/** The layout of the model's LMDB databases: 2 since each index has a database of its own (readmodel-index.ts). */
const LAYOUT = 2;

/** Whether two index keys are the same entry (a document has a handful: comparing each pair is cheapest). */
function sameKey(a: IndexKey, b: IndexKey): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
