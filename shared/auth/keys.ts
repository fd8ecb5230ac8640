// API keys: only the SHA-256 of a key is stored (keys are 256-bit random, so a fast hash is enough),
// found by that hash and compared in constant time. Issued by the CLI or INQUEST_BOOTSTRAP_KEY.
import { iso, type Clock } from "../clock.js";
import { ConflictError } from "../errors.js";
import { newId } from "../ids.js";
import type { JsonKv } from "../nats/kvjson.js";
import { patiently } from "../nats/provision.js";
import { digestEqual, hashToken, newApiKey, splitApiKey } from "../secrets.js";
import { SCOPES, type ApiScope } from "./scopes.js";

export interface ApiKeyRecord {
  id: string;
  name: string;
  scopes: ApiScope[];
  /** SHA-256 hex of the key; also the record's KV key. */
  hash: string;
  /** The first characters of the key, to recognise it in lists. */
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export type ApiKeyView = Omit<ApiKeyRecord, "hash">;

/** Create-or-read rounds before giving up (a round is lost only to a record deleted between the two). */
const CREATE_ATTEMPTS = 5;

/** Registers a key, or answers with the record that already holds it (the same key registered again). */
export async function createApiKey(
  kv: Pick<JsonKv<ApiKeyRecord>, "create" | "get">,
  clock: Clock,
  opts: { name: string; scopes: ApiScope[]; key?: string },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = opts.key ?? newApiKey().key;
  const hash = hashToken(key);
  const record: ApiKeyRecord = {
    id: newId("key", clock.now()),
    name: opts.name,
    scopes: opts.scopes,
    hash,
    // The public part of an issued key (inq_XXXXXXXX); a bootstrap key of another shape is all secret: none of it.
    display_prefix: splitApiKey(key).prefix ?? "",
    created_at: iso(clock.now()),
    revoked_at: null,
  };
  // A create, not a look-up then a put: gateway replicas starting together register one bootstrap key at once,
  // and a put after another's look-up replaced the record that holds the key (a revoke of it in between undone).
  for (let i = 0; i < CREATE_ATTEMPTS; i++) {
    if ((await kv.create(hash, record)) !== null) return { key, record };
    // Registering the same key again (a restarted bootstrap, another replica) keeps the record that holds it,
    // revoked or not: a revoked key never comes back to life.
    const existing = await kv.get(hash);
    if (existing) return { key, record: existing.value };
  }
  throw new ConflictError(`api key ${record.id} could not be registered: its record kept changing`);
}

/**
 * Registers the gateway's INQUEST_BOOTSTRAP_KEY (the record that holds it, revoked or not, if it is known already),
 * patiently as the streams and buckets are provisioned: a cluster just started answers "JetStream system temporarily
 * unavailable" until its leaders are elected (a chaos run's gateway exited on it at start).
 */
export function registerBootstrapKey(kv: Pick<JsonKv<ApiKeyRecord>, "create" | "get">, clock: Clock, key: string, patienceMs?: number): Promise<{ key: string; record: ApiKeyRecord }> {
  return patiently(() => createApiKey(kv, clock, { name: "bootstrap", scopes: [...SCOPES], key }), patienceMs);
}

export async function listApiKeys(kv: JsonKv<ApiKeyRecord>): Promise<ApiKeyView[]> {
  const all = await kv.values();
  return all.map(({ hash: _hash, ...view }) => view).sort((a, b) => (a.id < b.id ? -1 : 1));
}

export async function revokeApiKey(kv: JsonKv<ApiKeyRecord>, clock: Clock, id: string): Promise<boolean> {
  for (const k of await kv.keys()) {
    const updated = await kv.update(k, (r) => (r.id === id && r.revoked_at === null ? { ...r, revoked_at: iso(clock.now()) } : null));
    // changed: an already revoked key is "no active key", not revoked again.
    if (updated?.value.id === id) return updated.changed;
  }
  return false;
}

/** The record a presented key opens, given the key's hashToken; null when unknown or revoked. */
export function verifyApiKey(presentedHash: string, record: ApiKeyRecord | null): ApiKeyRecord | null {
  if (!record || record.revoked_at !== null) return null;
  return digestEqual(presentedHash, record.hash) ? record : null;
}
