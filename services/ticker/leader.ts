// Leader election on a KV bucket with a TTL (docs/nats.md#leader-election): `create()` acquires the lease, `update(revision)`
// every ttl/3 holds it, and the key expires ttl after the holder's last renewal. nats-server 2.9 sends no watch
// event when a key expires, so followers poll `create()`; they also watch the key, so a leader that stops and
// deletes it hands over at once. A leader that cannot renew within the ttl (lost CAS,
// NATS unreachable, a stalled event loop) stops leading at once. Leading is an optimisation, not the safety net:
// the compare-and-set on each item and the idempotent trigger keep two overlapping leaders from firing a run twice.
// A write of this holder's stored with its answer lost (a timeout) moves the key's revision on without this process
// knowing it: the next write's compare-and-set then conflicts with its own lease. A conflict is therefore checked
// against the key: while it names this holder, the lease is this process's and is renewed from the key's revision.
import { KvWatchInclude, type KV, type KvWatchEntry } from "@nats-io/kv";
import type { QueuedIterator } from "@nats-io/transport-node";
import { sleep } from "../../shared/clock.js";
import { LEADER_KEY } from "../../shared/curiosity/catalog.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { decodeJson, encodeJson, isCasConflict } from "../../shared/nats/kvjson.js";
import { logRetriedFailure } from "../../shared/nats/errors.js";

export interface LeaseHolder {
  holder: string;
  pid: number;
  acquired_at: string;
}

export interface LeaderLeaseOptions {
  kv: KV;
  /** The bucket's ttl in milliseconds. */
  ttlMs: number;
  holder: string;
  log: Logger;
  onChange?(leading: boolean): void;
}

export class LeaderLease implements Component {
  readonly name = "leader-lease";
  private revision: number | null = null;
  /** Monotonic time (performance.now) when the last successful acquire or renewal was sent. */
  private heldSince = 0;
  private acquiredAt = "";
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  private watching: Promise<void> | null = null;
  private watcher: QueuedIterator<KvWatchEntry> | null = null;
  /** Attempts run one after another: a renewal racing an acquire would read its own create as a lost lease. */
  private attempts: Promise<void> = Promise.resolve();

  constructor(private readonly opts: LeaderLeaseOptions) {}

  /** Whether this process holds the lease now, with a margin before it could have expired. */
  isLeader(): boolean {
    return this.revision !== null && performance.now() - this.heldSince < this.opts.ttlMs * 0.8;
  }

  async start(): Promise<void> {
    await this.attempt();
    this.loop = this.run();
    this.watching = this.watchHandover();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.watcher?.stop();
    await Promise.all([this.loop, this.watching, this.attempts]);
    const revision = this.revision;
    if (revision !== null) {
      this.lose("stopping");
      // Hand over at once instead of letting the key expire.
      await this.opts.kv.delete(LEADER_KEY, { previousSeq: revision }).catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await sleep(Math.max(50, Math.floor(this.opts.ttlMs / 3)), this.abort.signal);
      if (!this.stopped) await this.serially();
    }
  }

  /** A deleted key (a leader that stopped) is taken at once rather than at the next poll. */
  private async watchHandover(): Promise<void> {
    while (!this.stopped) {
      try {
        const watcher = await this.opts.kv.watch({ key: LEADER_KEY, include: KvWatchInclude.UpdatesOnly });
        this.watcher = watcher;
        // A stop() that came while the watch was opening found nothing to stop, and waits for this loop to end.
        if (this.stopped) watcher.stop();
        for await (const entry of watcher) {
          if (entry.operation !== "PUT" && this.revision === null && !this.stopped) void this.serially();
        }
      } catch (err) {
        this.opts.log.debug({ err }, "lease watch ended; polling alone until it is back");
      }
      await sleep(1_000, this.abort.signal);
    }
  }

  private serially(): Promise<void> {
    this.attempts = this.attempts.then(() => this.attempt());
    return this.attempts;
  }

  private async attempt(): Promise<void> {
    const { kv, log } = this.opts;
    // The key expires ttl after the server stored the write, which is after the request left, not after its
    // answer came back: counted from the answer, a late one (a stalled event loop) had this process lead past
    // the key's expiry, beside the ticker that took the lease then.
    const sent = performance.now();
    try {
      if (this.revision === null) {
        this.acquiredAt = new Date().toISOString();
        this.acquired(await this.orOwn(kv.create(LEADER_KEY, this.value())), sent);
      } else {
        if (!this.isLeader()) return this.lose("renewal overdue");
        this.revision = await this.orOwn(kv.update(LEADER_KEY, this.value(), this.revision));
        this.heldSince = sent;
      }
    } catch (err) {
      if (this.revision === null) {
        if (!isCasConflict(err)) logRetriedFailure(log, err, "could not try to acquire ticker leadership");
      } else if (isCasConflict(err)) {
        this.lose("another ticker holds the lease");
      } else {
        logRetriedFailure(log, err, "could not renew ticker leadership");
        if (!this.isLeader()) this.lose("renewal overdue");
      }
    }
  }

  private acquired(revision: number, sent: number): void {
    this.revision = revision;
    this.heldSince = sent;
    this.opts.log.info({ holder: this.opts.holder }, "ticker leadership acquired");
    this.opts.onChange?.(true);
  }

  /**
   * The revision of a lease write (`write`); when it conflicts and the key names this holder, the lease was written by
   * this process with the answer lost, so it is written again at the key's revision. Any other conflict (another
   * ticker holds the lease, or the key is gone) and any other error are thrown on.
   */
  private async orOwn(write: Promise<number>): Promise<number> {
    try {
      return await write;
    } catch (conflict) {
      if (!isCasConflict(conflict)) throw conflict;
      const entry = await this.opts.kv.get(LEADER_KEY);
      if (entry?.operation !== "PUT" || holderOf(entry.value) !== this.opts.holder) throw conflict;
      return this.opts.kv.update(LEADER_KEY, this.value(), entry.revision);
    }
  }

  private lose(reason: string): void {
    if (this.revision === null) return;
    this.revision = null;
    const level = reason === "stopping" ? "info" : "warn";
    this.opts.log[level]({ holder: this.opts.holder, reason }, reason === "stopping" ? "ticker leadership released" : "ticker leadership lost");
    this.opts.onChange?.(false);
  }

  private value(): Uint8Array {
    const v: LeaseHolder = { holder: this.opts.holder, pid: process.pid, acquired_at: this.acquiredAt };
    return encodeJson(v);
  }
}

/** The holder a lease value names (null when it is not a lease value). */
function holderOf(value: Uint8Array): string | null {
  try {
    const v = decodeJson<Partial<LeaseHolder> | null>(value);
    return typeof v?.holder === "string" ? v.holder : null;
  } catch {
    return null;
  }
}
