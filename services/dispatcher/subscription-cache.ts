// The dispatcher's copy of the subscriptions bucket, kept current by a watch. `fresh(since)` waits until the
// copy holds every write the bucket had when a check that started after `since` ran, so an event received
// after a subscription was created or changed is always fanned out against that change. Checks are shared by
// every caller they can serve, and overlap (freshness-checks.ts). Opened secrets are kept a short while (TTL), for a
// bounded number of subscriptions (least recently used go first), and dropped as soon as their subscription changes
// or is deleted.
import type { KV } from "@nats-io/kv";
import { systemClock, type Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { Lru } from "../../shared/lru.js";
import { decryptSecret } from "../../shared/secrets.js";
import { openHeaders } from "../../shared/webhooks/custom-headers.js";
import { previousSealed, type SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { FreshnessChecks } from "./freshness-checks.js";

/** How long a check waits for the watch to apply the bucket's head, twice at most (then the check fails). */
const CATCH_UP_TIMEOUT_MS = 2_000;

export interface SecretCacheOptions {
  /** How long an opened secret is kept. */
  ttlMs: number;
  /** Opened secrets kept at most (the least recently used is dropped first). */
  maxEntries: number;
  clock: Clock;
}

const DEFAULT_SECRET_CACHE: SecretCacheOptions = { ttlMs: 5 * 60_000, maxEntries: 1_000, clock: systemClock };

interface Opened<T> {
  sealed: string;
  value: T;
  expiresAt: number;
}

export class SubscriptionCache implements Component {
  readonly name = "subscription-cache";
  private readonly mirror: BucketMirror<SubscriptionRecord>;
  /** Opened secrets by subscription id. */
  private readonly secrets: Lru<string, Opened<string>>;
  /** Opened custom headers by subscription id, kept the same way. */
  private readonly headers: Lru<string, Opened<Record<string, string>>>;
  /** Secrets opened (decrypted) so far (tests, metrics). */
  opened = 0;
  private readonly checks = new FreshnessChecks(() => this.catchUp());
  /** Subscriptions the copy holds turned off (paused or disabled), for `whenResumed`. */
  private readonly off = new Set<string>();
  /** performance.now() at which the copy last saw each subscription turned on again (`resumedAt`). */
  private readonly resumedAtMs = new Map<string, number>();
  private resumed: (id: string) => void = () => {};

  constructor(
    kv: KV,
    private readonly store: JsonKv<SubscriptionRecord>,
    private readonly masterKey: Buffer,
    log: Logger,
    private readonly secretCache: SecretCacheOptions = DEFAULT_SECRET_CACHE,
  ) {
    this.secrets = new Lru(secretCache.maxEntries);
    this.headers = new Lru(secretCache.maxEntries);
    // A changed or deleted subscription's opened secret goes at once (a rotated secret is never served stale).
    this.mirror = new BucketMirror<SubscriptionRecord>(kv, log, (id, sub) => {
      this.secrets.delete(id);
      this.headers.delete(id);
      const wasOff = this.off.delete(id);
      if (sub && !sub.active) this.off.add(id);
      if (!sub) this.resumedAtMs.delete(id);
      // Noted in the same step as the copy takes the active record, so a job that finds it on sees the resume too.
      if (wasOff && sub?.active) {
        this.resumedAtMs.set(id, performance.now());
        this.resumed(id);
      }
    });
  }

  /** Calls `listener` with the id of each subscription the copy sees turned on again after being off (resume.ts). */
  whenResumed(listener: (id: string) => void): void {
    this.resumed = listener;
  }

  /**
   * performance.now() at which this copy last saw the subscription turned on again, -Infinity if never: a job whose
   * delivery may have been taken over by a resumed copy meanwhile reads its record again before its POST (deliver.ts).
   */
  resumedAt(id: string): number {
    return this.resumedAtMs.get(id) ?? -Infinity;
  }

  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
  }

  /** Every subscription, as of a moment after `since` (performance.now() of when the caller's input arrived). */
  async fresh(since: number): Promise<SubscriptionRecord[]> {
    await this.checks.after(since);
    return [...this.mirror.values()];
  }

  /**
   * Fails when the copy cannot catch up (the watch lags, e.g. while a NATS node restarts): fanned out against a stale
   * copy, an event would be acknowledged without a delivery to a subscription created or resumed just before it, or
   * with one to a subscription paused or deleted just before it. The fan-out naks it and tries again (it waits, it is
   * not lost); the watch is reopened meanwhile (shared/nats/follow.ts).
   */
  private async catchUp(): Promise<void> {
    if (!(await this.mirror.catchUp(CATCH_UP_TIMEOUT_MS))) {
      throw new Error("the subscription watch is lagging behind the bucket; the event is fanned out again once it has caught up");
    }
  }

  /** One subscription: the local copy, else the bucket (a subscription created a moment ago elsewhere). */
  async get(id: string): Promise<SubscriptionRecord | null> {
    return this.mirror.get(id) ?? (await this.store.get(id))?.value ?? null;
  }

  /** The plain secret of a subscription (opened again after the TTL, or when the sealed value changed). */
  secretOf(sub: SubscriptionRecord): string {
    return this.open(this.secrets, sub.id, sub.secret_sealed, (sealed) => decryptSecret(this.masterKey, sealed));
  }

  /** The custom headers to add to its POSTs (docs/api.md#subscription-options), opened and kept like the secret. */
  headersOf(sub: SubscriptionRecord): Record<string, string> {
    const sealed = sub.headers_sealed;
    if (!sealed) return {};
    return this.open(this.headers, sub.id, sealed, (s) => openHeaders(this.masterKey, s));
  }

  private open<T>(cache: Lru<string, Opened<T>>, id: string, sealed: string, open: (sealed: string) => T): T {
    const now = this.secretCache.clock.now();
    const kept = cache.get(id);
    if (kept && kept.sealed === sealed && kept.expiresAt > now) return kept.value;
    const value = open(sealed);
    this.opened++;
    cache.set(id, { sealed, value, expiresAt: now + this.secretCache.ttlMs });
    return value;
  }

  /**
   * The old secret while a rotation's grace period lasts at `nowMs` (compared with the clock at each signing, so it
   * stops at expiry without a background job); opened on demand, rare enough not to be cached.
   */
  previousSecretOf(sub: SubscriptionRecord, nowMs: number): string | null {
    const sealed = previousSealed(sub, nowMs);
    return sealed === null ? null : decryptSecret(this.masterKey, sealed);
  }

  /** Opened secrets held now (tests, metrics). */
  get secretsHeld(): number {
    return this.secrets.size;
  }
}
