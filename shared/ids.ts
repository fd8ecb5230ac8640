// Prefixed, time-ordered, unguessable identifiers: `<prefix>_<ULID>` (docs/api.md#http).
import { createHmac, hash, randomBytes } from "node:crypto";

const ALPHABET = Buffer.from("0123456789ABCDEFGHJKMNPQRSTVWXYZ", "latin1"); // Crockford base32

export type IdPrefix = "inv" | "cur" | "sub" | "dlv" | "evt" | "iep" | "fnd" | "key" | "rcp" | "rcv";

/** Writes `n` as `width` base32 characters ending before `end`, least significant last (n < 2^53). */
function writeBase32(out: Buffer, end: number, width: number, n: number): void {
  let rest = n;
  for (let i = end - 1; i >= end - width; i--) {
    out[i] = ALPHABET[rest % 32] as number;
    rest = Math.floor(rest / 32);
  }
}

/** Five bytes from `at`, big-endian: 40 bits, exact in a double. */
function forty(bytes: Buffer, at: number): number {
  return (bytes[at] ?? 0) * 2 ** 32 + (((bytes[at + 1] ?? 0) << 24) >>> 0) + ((bytes[at + 2] ?? 0) << 16) + ((bytes[at + 3] ?? 0) << 8) + (bytes[at + 4] ?? 0);
}

// One scratch buffer for the 26 characters (ulid is synchronous): no intermediate strings or BigInts per id.
const scratch = Buffer.alloc(26);

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

/** 48 bits of time (10 characters), then 80 random bits (16 characters, as two 40-bit halves). */
export function ulid(nowMs: number, random: Buffer = randomTen()): string {
  writeBase32(scratch, 10, 10, nowMs);
  writeBase32(scratch, 18, 8, forty(random, 0));
  writeBase32(scratch, 26, 8, forty(random, 5));
  return scratch.toString("latin1", 0, 26);
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
  // crypto.hash: one call, no Hash object (a large run derives an id per finding event).
  const digest = key === undefined ? hash("sha256", seed, "buffer") : createHmac("sha256", key).update(seed).digest();
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
