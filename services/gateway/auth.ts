// Bearer authentication against the API-key bucket. Keys are found by their SHA-256, so lookups do not
// depend on the secret's bytes; a watch keeps a local copy current so revocations apply within
// milliseconds, and a miss falls through to the bucket once (a key issued a moment ago, before the watch
// delivered it). A miss is then remembered (bounded in count and time), so an unknown token costs what a
// revoked one does: a local lookup, no NATS round trip, on the same path.
import type { KV } from "@nats-io/kv";
import { verifyApiKey, type ApiKeyRecord } from "../../shared/auth/keys.js";
import type { Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { hashToken } from "../../shared/secrets.js";
import type { Authenticator } from "./http/pipeline.js";

export interface KeyCacheOptions {
  clock: Clock;
  /** How long a token the bucket did not know is answered without asking again. */
  missTtlMs?: number;
  /** How many such tokens are remembered; the oldest is forgotten first. */
  maxMisses?: number;
}

export class KeyCache implements Authenticator, Component {
  readonly name = "api-key-cache";
  private readonly mirror: BucketMirror<ApiKeyRecord>;
  private readonly store: JsonKv<ApiKeyRecord>;
  /** Token hash -> when the miss stops counting. Insertion order is age order (a Map keeps it). */
  private readonly misses = new Map<string, number>();
  private readonly clock: Clock;
  private readonly missTtlMs: number;
  private readonly maxMisses: number;

  constructor(kv: KV, log: Logger, opts: KeyCacheOptions) {
    // A key the watch delivers stops being a miss at once (it was issued after the miss was remembered).
    this.mirror = new BucketMirror<ApiKeyRecord>(kv, log, (hash) => this.misses.delete(hash));
    this.store = new JsonKv<ApiKeyRecord>(kv);
    this.clock = opts.clock;
    this.missTtlMs = opts.missTtlMs ?? 60_000;
    this.maxMisses = opts.maxMisses ?? 10_000;
  }

  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
  }

  async authenticate(token: string): Promise<ApiKeyRecord | null> {
    if (token.length === 0 || token.length > 512) return null;
    const hash = hashToken(token);
    return verifyApiKey(hash, this.mirror.get(hash) ?? (await this.lookUpMiss(hash)));
  }

  /** A hash the local copy does not hold: asked of the bucket unless it was asked recently. */
  private async lookUpMiss(hash: string): Promise<ApiKeyRecord | null> {
    const now = this.clock.now();
    const until = this.misses.get(hash);
    if (until !== undefined && until > now) return null;
    this.misses.delete(hash);
    const found = (await this.store.get(hash))?.value ?? null;
    if (found === null) {
      this.misses.set(hash, now + this.missTtlMs);
      const oldest = this.misses.keys().next();
      if (this.misses.size > this.maxMisses && !oldest.done) this.misses.delete(oldest.value);
    }
    return found;
  }
}
