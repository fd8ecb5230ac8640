// Prefixed, time-ordered, unguessable identifiers: `<prefix>_<ULID>` (docs/api.md#http).
import { createHash, createHmac, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32

export type IdPrefix = "inv" | "cur" | "sub" | "dlv" | "evt" | "iep" | "fnd" | "key" | "rcp" | "rcv";

function encodeTime(ms: number): string {
  let out = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Buffer): string {
  // 80 bits -> 16 base32 chars.
  let out = "";
  let acc = 0n;
  for (const b of bytes.subarray(0, 10)) acc = (acc << 8n) | BigInt(b);
  for (let i = 0; i < 16; i++) {
    out = ALPHABET[Number(acc & 31n)] + out;
    acc >>= 5n;
  }
  return out;
}

// Random bytes are drawn 4 KiB at a time: one call into the CSPRNG per ~400 ids instead of one per id (a busy
// registry or dispatcher mints thousands a second). Each pool is fresh bytes, never handed out twice.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomTen(): Buffer {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += 10;
  return pool.subarray(poolOffset - 10, poolOffset);
}

export function ulid(nowMs: number, random: Buffer = randomTen()): string {
  return encodeTime(nowMs) + encodeRandom(random);
}

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${ulid(nowMs)}`;
}

/**
 * A deterministic id: the same (prefix, time, seed) always gives the same id. Used where a retried step must
 * produce the identical id (one delivery per event and subscription, one event per state change).
 * With `key`, the random part is an HMAC-SHA256 of the seed under that server-side secret, so an id stays
 * deterministic for whoever holds the key and unguessable for anyone who only knows the seed.
 */
export function derivedId(prefix: IdPrefix, nowMs: number, seed: string, key?: Buffer): string {
  const digest = key === undefined ? createHash("sha256").update(seed).digest() : createHmac("sha256", key).update(seed).digest();
  return `${prefix}_${ulid(nowMs, digest)}`;
}

/** A key for `derivedId` bound to one purpose, derived from a server secret (e.g. the master key). */
export function idKey(secret: Buffer, purpose: string): Buffer {
  return createHmac("sha256", secret).update(`inquest/id/${purpose}`).digest();
}

const ID_RE = /^[a-z]{3}_[0-9A-HJKMNP-TV-Z]{26}$/;
export function isId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_RE.test(value);
}
