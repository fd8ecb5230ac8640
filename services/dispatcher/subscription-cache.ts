// The dispatcher's copy of the subscriptions bucket, kept current by a watch. `fresh(since)` waits until the
// copy holds every write the bucket had when a check that started after `since` ran, so an event received
// after a subscription was created or changed is always fanned out against that change. Checks are shared by
// every caller waiting at the same time.
import type { KV } from "@nats-io/kv";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { decryptSecret } from "../../shared/secrets.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";

/** A check never waits longer than this for the watch (a lagging watch is logged, not fatal). */
const CATCH_UP_TIMEOUT_MS = 2_000;

export class SubscriptionCache implements Component {
  readonly name = "subscription-cache";
  private readonly mirror: BucketMirror<SubscriptionRecord>;
  private secrets = new Map<string, string>();
  /** performance.now() at which the newest completed check started. */
  private verifiedAt = -Infinity;
  private check: { startedAt: number; promise: Promise<void> } | null = null;

  constructor(
    kv: KV,
    private readonly store: JsonKv<SubscriptionRecord>,
    private readonly masterKey: Buffer,
    private readonly log: Logger,
  ) {
    this.mirror = new BucketMirror<SubscriptionRecord>(kv, log);
  }

  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
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
    return [...this.mirror.values()];
  }

  private async catchUp(startedAt: number): Promise<void> {
    if (!(await this.mirror.catchUp(CATCH_UP_TIMEOUT_MS))) {
      this.log.warn("subscription watch is lagging; fanning out with what it has");
    }
    if (startedAt > this.verifiedAt) this.verifiedAt = startedAt;
  }

  /** One subscription: the local copy, else the bucket (a subscription created a moment ago elsewhere). */
  async get(id: string): Promise<SubscriptionRecord | null> {
    return this.mirror.get(id) ?? (await this.store.get(id))?.value ?? null;
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
