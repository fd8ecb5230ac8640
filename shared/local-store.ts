// The local LMDB environment that read models share (shared/readmodel.ts), with the file's mapped pages bounded.
//
// LMDB reads through a memory map of its file, and a page a read or a write's tree walk touches stays mapped, and
// counted in the process's RSS, until the environment is closed. A read model's file grows with what it indexes,
// so without a bound the pages mapped grow with the data too (392 MiB of a gateway's 481 MiB in one long run).
// The store measures them every `checkEveryMs` (/proc/self/smaps) and, past `mappedBudgetBytes`, reopens the
// environment: new writes are held, the ones under way are committed and flushed, then the close and the open run
// back to back in one turn of the event loop, so no read ever meets a closed database. The file's pages stay in
// the kernel's page cache, which keeps the ones in use and can reclaim the rest; the next reads map them again
// with minor faults.
import { join, resolve } from "node:path";
import { open, type RootDatabase } from "lmdb";
import type { Logger } from "./log.js";
import { mappedBytes } from "./mapped-bytes.js";
import { startPeriodic, type Periodic } from "./periodic.js";

export interface LocalStoreOptions {
  /** Mapped bytes of the file past which it is reopened; 0 = no bound (never reopened). */
  mappedBudgetBytes: number;
  /** How often the mapped bytes are measured. */
  checkEveryMs?: number;
  log: Logger;
}

export interface LocalStoreStats {
  /** The file's mapped bytes at the last measure (null: not measured, or unknown on this OS). */
  mappedBytes: number | null;
  reopens: number;
}

export class LocalStore {
  private current: RootDatabase;
  private readonly binders: Array<(root: RootDatabase) => void> = [];
  private readonly reopenListeners: Array<() => void> = [];
  /** Set while a reopen holds new writes back; resolves when they may go. */
  private hold: Promise<void> | null = null;
  private writing = 0;
  private idle: (() => void) | null = null;
  private checker: Periodic | null = null;
  private readonly file: string;
  private readonly stats: LocalStoreStats = { mappedBytes: null, reopens: 0 };

  constructor(
    private readonly path: string,
    private readonly opts: LocalStoreOptions,
  ) {
    this.file = join(resolve(path), "data.mdb");
    this.current = openRoot(path);
  }

  /** The environment as it is now: read through it synchronously, never keep it past a turn of the event loop. */
  get root(): RootDatabase {
    return this.current;
  }

  /** Calls `bind` with the environment now and again after every reopen (to open its databases again). */
  bind(bind: (root: RootDatabase) => void): void {
    this.binders.push(bind);
    bind(this.current);
  }

  /**
   * Runs a write (whatever LMDB write `fn` starts and the promise it returns): at once, or after a reopen under way.
   * Writes that waited run in the order they came.
   */
  write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.hold) return this.hold.then(() => this.write(fn));
    this.writing++;
    let done: Promise<T>;
    try {
      done = fn();
    } catch (err) {
      this.settled();
      return Promise.reject(err);
    }
    return done.finally(() => this.settled());
  }

  /** Starts measuring the mapped bytes (no-op without a budget). */
  start(): void {
    if (this.opts.mappedBudgetBytes <= 0 || this.checker) return;
    this.checker = startPeriodic(
      this.opts.checkEveryMs ?? 2_000,
      async () => void (await this.check()),
      (err) => this.opts.log.error({ err, path: this.path }, "local store check failed"),
    );
  }

  /** Measures the mapped bytes and reopens past the budget; resolves to whether it reopened. */
  async check(): Promise<boolean> {
    const bytes = await mappedBytes(this.file);
    this.stats.mappedBytes = bytes;
    if (bytes === null || this.opts.mappedBudgetBytes <= 0 || bytes <= this.opts.mappedBudgetBytes) return false;
    await this.reopen();
    this.opts.log.debug({ path: this.path, mappedBytes: bytes }, "local store reopened to unmap its pages");
    return true;
  }

  /** Closes the environment and opens it again (which unmaps every page), holding writes meanwhile. */
  async reopen(): Promise<void> {
    let release!: () => void;
    this.hold = new Promise<void>((r) => (release = r));
    try {
      if (this.writing > 0) await new Promise<void>((r) => (this.idle = r));
      await this.current.flushed;
      // With nothing left to commit or flush, lmdb's close settles in microtasks: no request, message or timer
      // runs between it and the open below. Checked, in case a write slipped past the hold.
      let turned = false;
      const turn = setImmediate(() => (turned = true));
      await this.current.close();
      clearImmediate(turn);
      if (turned) this.opts.log.warn({ path: this.path }, "local store: a turn of the event loop ran while it was closed");
      this.current = openRoot(this.path);
      for (const bind of this.binders) bind(this.current);
      this.stats.reopens++;
      this.stats.mappedBytes = null;
      for (const listener of this.reopenListeners) listener();
    } finally {
      this.hold = null;
      release();
    }
  }

  /** Calls `listener` after every reopen. */
  onReopen(listener: () => void): void {
    this.reopenListeners.push(listener);
  }

  snapshot(): LocalStoreStats {
    return { ...this.stats };
  }

  /** Stops measuring and closes the environment (after the writes under way). */
  async close(): Promise<void> {
    await this.checker?.stop();
    this.checker = null;
    while (this.hold) await this.hold;
    if (this.writing > 0) await new Promise<void>((r) => (this.idle = r));
    await this.current.close();
  }

  private settled(): void {
    if (--this.writing === 0 && this.idle) {
      const idle = this.idle;
      this.idle = null;
      idle();
    }
  }
}

function openRoot(path: string): RootDatabase {
  // lmdb opens at most 12 named databases by default; each read model takes three, and one per index.
  return open({ path, compression: false, maxDbs: 256 });
}
