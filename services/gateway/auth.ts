// Bearer authentication against the API-key bucket. Keys are found by their SHA-256, so lookups do not
// depend on the secret's bytes; a watch keeps a local copy current so revocations apply within
// milliseconds, and a miss falls through to the bucket (a key issued a moment ago).
import type { KV } from "@nats-io/kv";
import { verifyApiKey, type ApiKeyRecord } from "../../shared/auth/keys.js";
import { sha256Hex } from "../../shared/canonical.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { followBucket, type Follower } from "../../shared/nats/follow.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import type { Authenticator } from "./http/pipeline.js";

export class KeyCache implements Authenticator, Component {
  readonly name = "api-key-cache";
  private byHash = new Map<string, ApiKeyRecord>();
  private follower: Follower | null = null;
  private readonly store: JsonKv<ApiKeyRecord>;

  constructor(private readonly kv: KV, private readonly log: Logger) {
    this.store = new JsonKv<ApiKeyRecord>(kv);
  }

  async start(): Promise<void> {
    this.follower = await followBucket<ApiKeyRecord>(this.kv, this.log, (hash, _rev, value) => {
      if (value) this.byHash.set(hash, value);
      else this.byHash.delete(hash);
    });
    await this.follower.ready;
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
  }

  async authenticate(token: string): Promise<ApiKeyRecord | null> {
    if (token.length === 0 || token.length > 512) return null;
    const hash = sha256Hex(token);
    let record = this.byHash.get(hash) ?? null;
    if (!record) record = (await this.store.get(hash))?.value ?? null;
    return verifyApiKey(token, record);
  }
}
