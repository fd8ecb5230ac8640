// A local, rebuildable read model: follows a KV bucket (the source of truth) into LMDB with secondary
// indexes, so lists are served locally with stable cursor pagination. Delete the LMDB directory and it is
// rebuilt from the bucket at next start. `catchUp()` gives read-your-writes across replicas: it waits until
// everything the bucket held when the read began has been applied here.
import type { KV } from "@nats-io/kv";
import { open, type Database, type Key, type RootDatabase } from "lmdb";
import type { Logger } from "./log.js";
import { followBucket, type Follower } from "./nats/follow.js";

export type IndexKey = Array<string | number>;

export interface ReadModelSpec<T> {
  /** LMDB sub-database prefix; bump the version suffix when the index layout changes. */
  name: string;
  /** The index entries of a document; each must end with the document key so entries are unique. */
  indexKeys(doc: T): IndexKey[];
}

interface StoredDoc<T> {
  revision: number;
  doc: T;
}

export interface Page<T> {
  items: T[];
  next: IndexKey | null;
}

export class ReadModel<T> {
  private docs: Database<StoredDoc<T>, string>;
  private index: Database<string, Key>;
  private meta: Database<number, string>;
  private applied = 0;
  private waiters: Array<{ revision: number; resolve: () => void }> = [];
  private follower: Follower | null = null;

  constructor(
    root: RootDatabase,
    private readonly kv: KV,
    private readonly spec: ReadModelSpec<T>,
    private readonly log: Logger,
  ) {
    this.docs = root.openDB<StoredDoc<T>, string>({ name: `${spec.name}:docs` });
    this.index = root.openDB<string, Key>({ name: `${spec.name}:index` });
    this.meta = root.openDB<number, string>({ name: `${spec.name}:meta` });
  }

  async start(): Promise<void> {
    this.applied = this.meta.get("checkpoint") ?? 0;
    const head = (await this.kv.status()).streamInfo.state.last_seq;
    if (this.applied > head) {
      // The bucket is younger than our copy (a new NATS store): rebuild from scratch.
      this.log.warn({ model: this.spec.name, checkpoint: this.applied, head }, "read model ahead of its bucket; rebuilding");
      this.clear();
    }
    this.follower = await followBucket<T>(this.kv, this.log, (key, revision, value) => void this.apply(key, revision, value), {
      resumeFromRevision: this.applied > 0 ? this.applied + 1 : 0,
    });
    await this.follower.ready;
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private clear(): void {
    this.docs.transactionSync(() => {
      this.docs.clearSync();
      this.index.clearSync();
      this.meta.clearSync();
    });
    this.applied = 0;
  }

  /**
   * Applies one bucket entry; an older revision than the stored one is ignored (replicas may race).
   * Entries are written in asynchronous LMDB transactions, which lmdb batches into one commit per turn of the
   * event loop, in order; the entry counts as applied (for `catchUp`) once its commit is done.
   */
  apply(key: string, revision: number, value: T | null): Promise<void> {
    const committed = this.docs.transaction(() => {
      const old = this.docs.get(key);
      if (!old || old.revision < revision) {
        if (old) for (const k of this.spec.indexKeys(old.doc)) void this.index.remove(k);
        if (value === null) {
          void this.docs.remove(key);
        } else {
          void this.docs.put(key, { revision, doc: value });
          for (const k of this.spec.indexKeys(value)) void this.index.put(k, key);
        }
      }
      if (revision > (this.meta.get("checkpoint") ?? 0)) void this.meta.put("checkpoint", revision);
    });
    return committed.then(
      () => this.markApplied(revision),
      (err: unknown) => this.log.error({ err, model: this.spec.name, key, revision }, "read model write failed"),
    );
  }

  private markApplied(revision: number): void {
    if (revision > this.applied) this.applied = revision;
    this.waiters = this.waiters.filter((w) => {
      if (w.revision > this.applied) return true;
      w.resolve();
      return false;
    });
  }

  /** Waits until every write the bucket held at call time is applied (bounded by `timeoutMs`). */
  async catchUp(timeoutMs = 2_000): Promise<void> {
    const status = await this.kv.status();
    const head = status.streamInfo.state.last_seq;
    if (head <= this.applied) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push({
        revision: head,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  get(key: string): T | null {
    return this.docs.get(key)?.doc ?? null;
  }

  /** Walks an index from `prefix` (exclusive of `after`), newest last key first when `reverse`. */
  page(prefix: IndexKey, opts: { after: IndexKey | null; limit: number; reverse: boolean }): Page<T> {
    const lo: Key = [...prefix];
    const hi: Key = [...prefix, "\uffff"];
    const range = opts.reverse
      ? this.index.getRange({ start: opts.after ?? hi, end: lo, reverse: true, exclusiveStart: opts.after !== null })
      : this.index.getRange({ start: opts.after ?? lo, end: hi, exclusiveStart: opts.after !== null });
    const items: T[] = [];
    let last: IndexKey | null = null;
    let more = false;
    for (const { key, value } of range) {
      if (items.length === opts.limit) {
        more = true;
        break;
      }
      const doc = this.docs.get(value)?.doc;
      if (!doc) continue;
      items.push(doc);
      last = key as IndexKey;
    }
    return { items, next: more ? last : null };
  }
}

export function openLmdb(path: string): RootDatabase {
  // lmdb opens at most 12 named databases by default; each read model takes three.
  return open({ path, compression: false, maxDbs: 64 });
}
