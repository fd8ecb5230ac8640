// The dispatcher's copy of the subscriptions bucket, kept current by a watch. `fresh(since)` waits until the
// copy holds every write the bucket had when a check that started after `since` ran, so an event received
// after a subscription was created or changed is always fanned out against that change. Checks are shared by
// every caller waiting at the same time.
import type { KV } from "@nats-io/kv";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { followBucket, type Follower } from "../../shared/nats/follow.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { decryptSecret } from "../../shared/secrets.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";

/** A check never waits longer than this for the watch (a lagging watch is logged, not fatal). */
const CATCH_UP_TIMEOUT_MS = 2_000;

export class SubscriptionCache implements Component {
  readonly name = "subscription-cache";
  private subs = new Map<string, SubscriptionRecord>();
  private secrets = new Map<string, string>();
  private applied = 0;
  private revisionWaiters: Array<{ revision: number; resolve: () => void }> = [];
  private follower: Follower | null = null;
  /** performance.now() at which the newest completed check started. */
  private verifiedAt = -Infinity;
  private check: { startedAt: number; promise: Promise<void> } | null = null;

  constructor(
    private readonly kv: KV,
    private readonly store: JsonKv<SubscriptionRecord>,
    private readonly masterKey: Buffer,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.follower = await followBucket<SubscriptionRecord>(this.kv, this.log, (id, revision, value) => {
      if (value) this.subs.set(id, value);
      else this.subs.delete(id);
      if (revision > this.applied) this.applied = revision;
      this.revisionWaiters = this.revisionWaiters.filter((w) => {
        if (w.revision > this.applied) return true;
        w.resolve();
        return false;
      });
    });
    await this.follower.ready;
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
    for (const w of this.revisionWaiters.splice(0)) w.resolve();
  }

  /** Every subscription, as of a moment after `since` (performance.now() of when the caller's input arrived). */
  async fresh(since: number): Promise<SubscriptionRecord[]> {
    while (this.verifiedAt < since) {
      const running = this.check;
      if (running) {
        await running.promise;
        continue;
      }
      const startedAt = performance.now();
      const promise = this.catchUp(startedAt).finally(() => {
        this.check = null;
      });
      this.check = { startedAt, promise };
      await promise;
    }
    return [...this.subs.values()];
  }

  private async catchUp(startedAt: number): Promise<void> {
    const head = (await this.kv.status()).streamInfo.state.last_seq;
    if (head > this.applied) {
      const caughtUp = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), CATCH_UP_TIMEOUT_MS);
        this.revisionWaiters.push({
          revision: head,
          resolve: () => {
            clearTimeout(timer);
            resolve(true);
          },
        });
      });
      if (!caughtUp) {
        // A head the watch never shows (e.g. a purged marker) must not stall every later check.
        this.log.warn({ head, applied: this.applied }, "subscription watch is lagging; fanning out with what it has");
        if (head > this.applied) this.applied = head;
      }
    }
    if (startedAt > this.verifiedAt) this.verifiedAt = startedAt;
  }

  /** One subscription: the local copy, else the bucket (a subscription created a moment ago elsewhere). */
  async get(id: string): Promise<SubscriptionRecord | null> {
    return this.subs.get(id) ?? (await this.store.get(id))?.value ?? null;
  }

  /** The plain secret of a subscription (opened once per sealed value). */
  secretOf(sub: SubscriptionRecord): string {
    let secret = this.secrets.get(sub.secret_sealed);
    if (secret === undefined) {
      secret = decryptSecret(this.masterKey, sub.secret_sealed);
      this.secrets.set(sub.secret_sealed, secret);
    }
    return secret;
  }
}
