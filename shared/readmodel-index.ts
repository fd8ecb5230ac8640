// A read model's index entries (shared/readmodel.ts), one LMDB sub-database per index: an entry's first key
// element names its index ("all", "status", "status+sub", ...) and the rest is its key in that index's database.
//
// Why not one database for every index: entries of one index are added at its end (its keys run by time), but in a
// shared database that end is in the middle of the tree, so pages split in half and stay half full; and every entry
// would carry its index's name. Measured on the deliveries model (5 entries per delivery, a status change per
// delivery): 113 -> 79 bytes of pages per entry.
//
// An entry whose key ends with its document's key (as `ReadModelSpec.indexKeys` asks) stores a one-byte marker as
// its value, not that key again.
import type { Database, Key, RootDatabase } from "lmdb";
import type { IndexKey } from "./readmodel.js";
import { inTransaction } from "./local-store.js";

type EntryValue = string | typeof ENDS_WITH_KEY;

const ENDS_WITH_KEY = 0;

/** A walk's bounds within one index: entries from `prefix`, exclusive of `after`, newest last key first when `reverse`. */
export interface IndexWalk {
  prefix: IndexKey;
  after: IndexKey | null;
  reverse: boolean;
}

export class IndexStore {
  private readonly dbs = new Map<string, Database<EntryValue, Key>>();

  /** Opens the model's index databases that exist (their names start with `${model}:index:`). */
  constructor(
    private readonly root: RootDatabase,
    private readonly model: string,
  ) {
    const start = this.dbName("");
    for (const name of root.getKeys({ start, end: `${start}\uffff` })) this.db(String(name).slice(start.length));
  }

  /** Opens the databases these entries go to, ahead of the transaction that writes them. */
  prepare(entries: readonly IndexKey[]): void {
    for (const k of entries) this.db(indexName(k));
  }

  put(entry: IndexKey, docKey: string): void {
    inTransaction(this.db(indexName(entry)).put(entry.slice(1), entry[entry.length - 1] === docKey ? ENDS_WITH_KEY : docKey));
  }

  remove(entry: IndexKey): void {
    inTransaction(this.db(indexName(entry)).remove(entry.slice(1)));
  }

  /** Empties every index (inside the caller's synchronous transaction). */
  clearSync(): void {
    for (const db of this.dbs.values()) db.clearSync();
  }

  /** The entries of a walk in order: each one's whole key (index name first) and its document's key. */
  *walk(w: IndexWalk): Generator<{ entry: IndexKey; docKey: string }> {
    const [name, ...rest] = w.prefix;
    const db = this.dbs.get(String(name));
    if (!db) return;
    const after = w.after?.slice(1) ?? null;
    // The lowest key of the prefix is the prefix itself; an empty one (the whole index) is no LMDB key: no bound.
    const lo: Key | undefined = rest.length > 0 ? rest : undefined;
    const hi: Key = [...rest, "\uffff"];
    const start = w.reverse ? (after ?? hi) : (after ?? lo);
    const end = w.reverse ? lo : hi;
    const range = db.getRange({ ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }), reverse: w.reverse, exclusiveStart: after !== null });
    for (const { key, value } of range) {
      // A one-element key reads back as its element.
      const entry = [name, ...(Array.isArray(key) ? key : [key])] as IndexKey;
      yield { entry, docKey: typeof value === "string" ? value : String(entry[entry.length - 1]) };
    }
  }

  private db(index: string): Database<EntryValue, Key> {
    let db = this.dbs.get(index);
    if (!db) {
      db = this.root.openDB<EntryValue, Key>({ name: this.dbName(index) });
      this.dbs.set(index, db);
    }
    return db;
  }

  private dbName(index: string): string {
    return `${this.model}:index:${index}`;
  }
}

function indexName(entry: IndexKey): string {
  return String(entry[0]);
}
