// The local LMDB environment that read models share (shared/readmodel.ts), with the file's mapped pages bounded.
//
// LMDB reads through a memory map of its file, and a page a read or a write's tree walk touches stays mapped, and
// counted in the process's RSS, until the environment is closed. A read model's file grows with what it indexes,
// so without a bound the pages mapped grow with the data too (392 MiB of a gateway's 481 MiB in one long run).
// The store measures them every `checkEveryMs` (/proc/self/smaps) and, past `mappedBudgetBytes`, reopens the
// environment:
// - new writes are held (`write`), the ones under way are committed and flushed;
// - the close and the open then run back to back within one turn of the event loop (lmdb's close settles in a few
//   microtasks once nothing is left to commit or flush), and every model opens its databases again (`bind`);
// - a read that would land inside those few microtasks is refused with LocalStoreUnavailableError (the gateway
//   answers 503 with Retry-After) rather than reaching a closed environment.
// The file's pages stay in the kernel's page cache, which keeps the ones in use and can reclaim the rest; the next
// reads map them again with minor faults.
//
// Commits are not flushed to disk (no fsync): what the store holds is rebuilt from the buckets, and a file left by an
// earlier boot of the machine is discarded before it is opened (boot-guard.ts). Where the kernel gives no boot id,
// every commit is flushed as LMDB does by default.
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { open, type RootDatabase } from "lmdb";
import { currentBootId, discardAfterRestart } from "./boot-guard.js";
import { LocalStoreUnavailableError } from "./errors.js";
import type { Logger } from "./log.js";
import { mappedBytes } from "./mapped-bytes.js";
import { startPeriodic, type Periodic } from "./periodic.js";

export interface LocalStoreOptions {
  /** Mapped bytes of the file past which it is reopened; 0 = no bound (never reopened). */
  mappedBudgetBytes: number;
  /** How often the mapped bytes are measured. */
  checkEveryMs?: number;
  /** How long a reopen waits for the writes under way to be flushed before it gives up (and tries again later). */
  flushWaitMs?: number;
  /** Told once when the environment could not be opened again: reads and writes are refused from then on. */
  onBroken?(err: unknown): void;
  /** How the file's mapped bytes are measured (tests); default /proc/self/smaps (mapped-bytes.ts). */
  measure?(file: string): Promise<number | null>;
  /** This boot's id (tests); default the kernel's. null: commits are flushed and files are kept across boots. */
  bootId?: string | null;
  log: Logger;
}

export interface LocalStoreStats {
  /** The file's mapped bytes at the last measure (null: not measured yet, or unknown on this OS). */
  mappedBytes: number | null;
  reopens: number;
  /** Whether commits are flushed to disk (only where there is no boot id to discard the file by). */
  flushed: boolean;
  /** Whether the file was discarded at start (written in an earlier boot of the machine). */
  discarded: boolean;
}

type State = "open" | "closing" | "broken" | "closed";

/** Attempts at opening the environment again after a close, 100 ms apart. */
const OPEN_ATTEMPTS = 3;

export class LocalStore {
  private current: RootDatabase;
  private state: State = "open";
  private readonly binders: Array<(root: RootDatabase) => void> = [];
  private readonly reopenListeners: Array<() => void> = [];
  /** Set while a reopen holds new writes back; resolves when they may go. */
  private hold: Promise<void> | null = null;
  private reopening: Promise<boolean> | null = null;
  private writing = 0;
  private idleWaiters: Array<() => void> = [];
  private checker: Periodic | null = null;
  /** Set when a reopen left the pages mapped (another handle on the file keeps them): no more reopens. */
  private futile = false;
  private readonly file: string;
  private readonly stats: LocalStoreStats;

  constructor(
    private readonly path: string,
    private readonly opts: LocalStoreOptions,
  ) {
    const boot = opts.bootId === undefined ? currentBootId() : opts.bootId;
    const discarded = boot !== null && discardAfterRestart(path, boot, LMDB_FILES, opts.log);
    this.stats = { mappedBytes: null, reopens: 0, flushed: boot === null, discarded };
    guardOrphanCommitRejections();
    this.current = openRoot(path, this.stats.flushed);
    // /proc names the file by its real path (a symlinked data directory would otherwise never match).
    this.file = join(realpathSync(resolve(path)), "data.mdb");
  }

  /**
   * The environment as it is now, for reading: never keep it past a synchronous stretch of code. Throws
   * LocalStoreUnavailableError in the instant of a reopen, or once the environment could not be opened again.
   */
  get root(): RootDatabase {
    this.assertReadable();
    return this.current;
  }

  /** Throws LocalStoreUnavailableError unless the environment can be read now. */
  assertReadable(): void {
    if (this.state !== "open") throw new LocalStoreUnavailableError(`the local store at ${this.path} is ${this.state === "closing" ? "reopening" : this.state}`);
  }

  /** Calls `bind` with the environment now and again after every reopen (to open its databases again). */
  bind(bind: (root: RootDatabase) => void): void {
    this.binders.push(bind);
    bind(this.current);
  }

  /**
   * Runs a write (whatever LMDB write `fn` starts, and the promise it returns): at once, or after a reopen under
   * way. Writes that waited run in the order they came.
   */
  write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.hold) return this.hold.then(() => this.write(fn));
    if (this.state !== "open") return Promise.reject(new LocalStoreUnavailableError(`the local store at ${this.path} is ${this.state}`));
    this.writing++;
    let done: Promise<T>;
    try {
      done = fn();
    } catch (err) {
      this.settled();
      return Promise.reject(err);
    }
    done.catch(commitFailed); // the caller gets the error; its commitError would go unhandled
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
    const measure = this.opts.measure ?? mappedBytes;
    const bytes = await measure(this.file);
    this.stats.mappedBytes = bytes;
    if (bytes === null || this.futile || this.opts.mappedBudgetBytes <= 0 || bytes <= this.opts.mappedBudgetBytes) return false;
    if (!(await this.reopen())) return false;
    const after = await measure(this.file);
    this.stats.mappedBytes = after;
    // Futile only when the reopen freed (almost) nothing. Reads and writes go on while the file is measured again,
    // so under load the pages they use are mapped again at once: over the budget after a reopen that did free
    // most pages is the working set, not another handle (and giving up then let the pages grow for good).
    if (after !== null && after > this.opts.mappedBudgetBytes && after >= bytes * 0.9) {
      this.futile = true;
      this.opts.log.warn({ path: this.path, before: bytes, after }, "local store: a reopen left the file mapped (another handle holds it open); no more reopens");
    }
    return true;
  }

  /**
   * Closes the environment and opens it again (which unmaps every page), holding writes meanwhile; resolves to
   * whether it did (false: the writes under way were not flushed within `flushWaitMs`). One at a time: a call
   * during a reopen gets that reopen's outcome.
   */
  reopen(): Promise<boolean> {
    this.reopening ??= this.reopenOnce().finally(() => (this.reopening = null));
    return this.reopening;
  }

  /** Calls `listener` after every reopen. */
  onReopen(listener: () => void): void {
    this.reopenListeners.push(listener);
  }

  snapshot(): LocalStoreStats {
    return { ...this.stats };
  }

  /** Stops measuring and closes the environment (after a reopen and the writes under way). */
  async close(): Promise<void> {
    await this.checker?.stop();
    this.checker = null;
    await this.reopening;
    await this.idle();
    if (this.state === "open") await this.current.close();
    this.state = "closed";
  }

  private async reopenOnce(): Promise<boolean> {
    if (this.state !== "open") return false;
    let release!: () => void;
    this.hold = new Promise<void>((r) => (release = r));
    try {
      await this.idle();
      // A commit that failed never settles lmdb's flush: then the environment is left as it is (the failed write
      // pinned the model's checkpoint; it is replayed at the next start) and the next check tries again.
      if (!(await settlesWithin(this.current.flushed, this.opts.flushWaitMs ?? 10_000))) {
        this.opts.log.warn({ path: this.path }, "local store: writes not flushed in time; reopen skipped");
        return false;
      }
      this.state = "closing";
      let turned = false;
      const turn = setImmediate(() => (turned = true));
      await this.current.close();
      clearImmediate(turn);
      if (turned) this.opts.log.warn({ path: this.path }, "local store: a turn of the event loop ran while it was closed");
      this.current = await this.openAgain();
      for (const bind of this.binders) bind(this.current);
      this.state = "open";
      this.stats.reopens++;
      for (const listener of this.reopenListeners) listener();
      return true;
    } catch (err) {
      this.state = "broken";
      this.opts.log.fatal({ err, path: this.path }, "local store could not be opened again");
      this.opts.onBroken?.(err);
      return false;
    } finally {
      this.hold = null;
      release();
    }
  }

  /** Opens the closed environment; a failure is tried again twice, 100 ms apart (reads are refused meanwhile). */
  private async openAgain(): Promise<RootDatabase> {
    for (let attempt = 1; ; attempt++) {
      try {
        return openRoot(this.path, this.stats.flushed);
      } catch (err) {
        if (attempt >= OPEN_ATTEMPTS) throw err;
        this.opts.log.warn({ err, path: this.path, attempt }, "local store: opening again failed; retrying");
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private idle(): Promise<void> {
    return this.writing === 0 ? Promise.resolve() : new Promise<void>((r) => this.idleWaiters.push(r));
  }

  private settled(): void {
    if (--this.writing > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What LMDB keeps in the store's directory. */
const LMDB_FILES = ["data.mdb", "lock.mdb"] as const;

/**
 * A write made inside a transaction callback (`db.put`, `db.remove`): its promise settles with the commit, whose
 * failure (a full disk, an I/O error) the transaction's own promise reports to the caller. This one, and the
 * `commitError` promise lmdb hangs on the error, are marked handled: unhandled, Node exits on the rejection, and a
 * full disk took the whole gateway down instead of failing the write it is designed to fail and replay.
 */
export function inTransaction(write: Promise<unknown>): void {
  write.catch(commitFailed);
}

/** Marks a failed commit's error, and its `commitError`, handled (the caller has the error). */
export function commitFailed(err: unknown): void {
  const commitError = (err as { commitError?: unknown } | null)?.commitError;
  if (commitError instanceof Promise) commitError.catch(() => {});
}

let guarded = false;

/**
 * lmdb's promise for an event turn's batch (write.js, made when a batch starts) rejects when the commit fails, and
 * no caller can hold it: Node exits on it. The writer hears of the failure through its own transaction's promise
 * (a read model logs it and replays at next start), so this drops lmdb's orphan ("Commit failed", with a
 * `commitError`) and leaves every other unhandled rejection as fatal as Node's default makes it (unless something
 * else, a test runner, listens too).
 */
function guardOrphanCommitRejections(): void {
  if (guarded) return;
  guarded = true;
  process.on("unhandledRejection", (reason) => {
    if (reason instanceof Error && reason.message.startsWith("Commit failed") && "commitError" in reason) return commitFailed(reason);
    if (process.listenerCount("unhandledRejection") === 1) throw reason;
  });
}

function openRoot(path: string, flushed: boolean): RootDatabase {
  // lmdb opens at most 12 named databases by default; each read model takes three, and one per index.
  return open({ path, compression: false, maxDbs: 256, noSync: !flushed });
}
