// Bearer authentication against the API-key bucket. Keys are found by their SHA-256, so lookups do not
// depend on the secret's bytes; a watch keeps a local copy current so revocations apply within
// milliseconds, and a miss falls through to the bucket (a key issued a moment ago).
import type { KV } from "@nats-io/kv";
import { verifyApiKey, type ApiKeyRecord } from "../../shared/auth/keys.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { hashToken } from "../../shared/secrets.js";
import type { Authenticator } from "./http/pipeline.js";

export class KeyCache implements Authenticator, Component {
  readonly name = "api-key-cache";
  private readonly mirror: BucketMirror<ApiKeyRecord>;
  private readonly store: JsonKv<ApiKeyRecord>;

  constructor(kv: KV, log: Logger) {
    this.mirror = new BucketMirror<ApiKeyRecord>(kv, log);
    this.store = new JsonKv<ApiKeyRecord>(kv);
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
    const record = this.mirror.get(hash) ?? (await this.store.get(hash))?.value ?? null;
    return verifyApiKey(token, record);
  }
}
