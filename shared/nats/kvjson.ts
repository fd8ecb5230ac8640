// JSON documents in a KV bucket, with compare-and-set updates.
import type { KV } from "@nats-io/kv";
import { ConflictError } from "../errors.js";
import { isCasConflict } from "./errors.js";

/** Kept here too for callers that import it with the JSON helpers. */
export { isCasConflict };

export interface Versioned<T> {
  value: T;
  revision: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(value));
}

/** UTF-8 text of a message (kept as text where the JSON itself is kept, e.g. an agent's answer). */
export function decodeText(bytes: Uint8Array): string {
  return dec.decode(bytes);
}

export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(decodeText(bytes)) as T;
}

/** The JSON in a message, or null when it is not JSON (validated by the caller's schema next). */
export function tryDecodeJson(bytes: Uint8Array): unknown {
  try {
    return decodeJson<unknown>(bytes);
  } catch {
    return null;
  }
}

export class JsonKv<T> {
  constructor(readonly kv: KV) {}

  async get(key: string): Promise<Versioned<T> | null> {
    const e = await this.kv.get(key);
    if (!e || e.operation !== "PUT" || e.value.length === 0) return null;
    return { value: decodeJson<T>(e.value), revision: e.revision };
  }

  /** Creates the key; returns null when it already exists. */
  create(key: string, value: T): Promise<number | null> {
    return this.createEncoded(key, encodeJson(value));
  }

  /** As `create`, with the value already encoded (`encodeJson`), for a caller that sends the same bytes elsewhere too. */
  async createEncoded(key: string, bytes: Uint8Array): Promise<number | null> {
    try {
      return await this.kv.create(key, bytes);
    } catch (err) {
      if (isCasConflict(err)) return null;
      throw err;
    }
  }

  /** Writes `value` if the key is still at `revision` (a compare-and-set); null when it was written since. */
  async replace(key: string, value: T, revision: number): Promise<number | null> {
    try {
      return await this.kv.update(key, encodeJson(value), revision);
    } catch (err) {
      if (isCasConflict(err)) return null;
      throw err;
    }
  }

  async put(key: string, value: T): Promise<number> {
    return this.kv.put(key, encodeJson(value));
  }

  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }

  /**
   * Read-modify-write with compare-and-set, retried on conflict. `mutate` returns the new value, or null to
   * leave the document as it is. Returns the document as it stands afterwards and whether this call wrote it.
   */
  async update(
    key: string,
    mutate: (current: T) => T | null,
    attempts = 20,
    /** A copy believed current (a live mirror's): the first attempt writes against it without a read. */
    known?: Versioned<T>,
  ): Promise<{ value: T; revision: number; changed: boolean } | null> {
    for (let i = 0; i < attempts; i++) {
      // A stale copy only costs a conflict, after which the document is read as usual.
      const fromCopy = i === 0 && known !== undefined;
      const current = fromCopy ? known : await this.get(key);
      if (!current) return null;
      const next = mutate(current.value);
      // Only a write checks the copy against the bucket: "no change" decided on it (perhaps stale, or of a deleted
      // key) is decided again on the document, which is what the caller is answered with.
      if (next === null) return fromCopy ? this.update(key, mutate, attempts) : { ...current, changed: false };
      try {
        const revision = await this.kv.update(key, encodeJson(next), current.revision);
        return { value: next, revision, changed: true };
      } catch (err) {
        if (!isCasConflict(err)) throw err;
      }
    }
    throw new ConflictError(`too many concurrent writers on ${key}`);
  }

  async keys(filter?: string): Promise<string[]> {
    const out: string[] = [];
    const it = await this.kv.keys(filter);
    for await (const k of it) out.push(k);
    return out;
  }

  async values(filter?: string): Promise<T[]> {
    const out: T[] = [];
    for (const k of await this.keys(filter)) {
      const v = await this.get(k);
      if (v) out.push(v.value);
    }
    return out;
  }
}

/**
 * The same bucket, with this holder's `update`s run one after another (docs/nats.md#cas-race). On a clustered
 * nats-server 2.9, two updates of one key sent at once with the same expected revision were both accepted (the
 * check ran against the applied state, not the one in flight), so a lease renewal sent beside the run's final write
 * stored the older "running" record over "completed". Writers of one process never race themselves this way.
 */
export function oneWriterAtATime<T>(kv: JsonKv<T>): JsonKv<T> {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = Object.create(kv) as JsonKv<T>;
  serial.update = (key, mutate, attempts) => {
    const next = chain.then(() => kv.update(key, mutate, attempts));
    chain = next.catch(() => undefined);
    return next;
  };
  return serial;
}
