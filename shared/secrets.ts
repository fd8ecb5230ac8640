// Secrets at rest and the credentials Inquest issues. Pure apart from the CSPRNG; node:crypto only.
//
// Sealed format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url without padding, AES-256-GCM with a fresh
// random 12-byte IV per call. The version label is bound into the authentication tag as associated data.

import { createCipheriv, createDecipheriv, hash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "./canonical.js";
import { ConfigError } from "./errors.js";

const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_VERSION = "v1";
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const PREFIX_CHARS = 8;
const KEY_SECRET_BYTES = 32; // 43 base64url characters

/** A sealed secret could not be opened: malformed, unknown version, wrong master key, or tampered. */
export class SecretDecryptError extends Error {
  readonly code = "secret_decrypt_failed";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SecretDecryptError";
  }
}

/** A Uint8Array view of a Buffer (no copy): keeps node:crypto calls type-correct across @types/node versions. */
function u8(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

const BASE64_ANY = /^[A-Za-z0-9+/_-]+={0,2}$/;
const BASE64URL_NOPAD = /^[A-Za-z0-9_-]*$/;

/** Decodes `INQUEST_MASTER_KEY` (standard or URL-safe base64); it must be exactly 32 bytes, else `ConfigError`. */
export function parseMasterKey(b64: string): Buffer {
  const text = b64.trim();
  if (text === "") {
    throw new ConfigError("INQUEST_MASTER_KEY is empty; it must be 32 bytes encoded as base64");
  }
  if (!BASE64_ANY.test(text)) {
    throw new ConfigError("INQUEST_MASTER_KEY is not valid base64; it must be 32 bytes encoded as base64");
  }
  const key = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (key.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(
      `INQUEST_MASTER_KEY decodes to ${key.length} bytes; it must be exactly ${MASTER_KEY_BYTES} bytes ` +
        "(e.g. `openssl rand -base64 32`)",
    );
  }
  return key;
}

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(`master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
  }
}

/** Seals `plaintext` under the master key. Two calls with the same input give different outputs. */
export function encryptSecret(masterKey: Buffer, plaintext: string): string {
  assertMasterKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", u8(masterKey), u8(iv), { authTagLength: TAG_BYTES });
  cipher.setAAD(u8(Buffer.from(SEALED_VERSION, "utf8")));
  const ciphertext = Buffer.concat([u8(cipher.update(plaintext, "utf8")), u8(cipher.final())]);
  const tag = cipher.getAuthTag();
  return [SEALED_VERSION, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

function decodePart(part: string, name: string): Buffer {
  if (!BASE64URL_NOPAD.test(part)) throw new SecretDecryptError(`sealed secret: ${name} is not base64url`);
  return Buffer.from(part, "base64url");
}

/** Opens a value made by `encryptSecret`; throws `SecretDecryptError` on any malformation or tampering. */
export function decryptSecret(masterKey: Buffer, sealed: string): string {
  assertMasterKey(masterKey);
  const parts = sealed.split(".");
  const [version, ivPart, tagPart, dataPart] = parts;
  if (parts.length !== 4 || version === undefined || ivPart === undefined || tagPart === undefined || dataPart === undefined) {
    throw new SecretDecryptError("sealed secret: expected 4 dot-separated parts");
  }
  if (version !== SEALED_VERSION) throw new SecretDecryptError(`sealed secret: unsupported version "${version.slice(0, 8)}"`);
  const iv = decodePart(ivPart, "iv");
  const tag = decodePart(tagPart, "tag");
  const data = decodePart(dataPart, "ciphertext");
  if (iv.length !== IV_BYTES) throw new SecretDecryptError(`sealed secret: iv must be ${IV_BYTES} bytes`);
  if (tag.length !== TAG_BYTES) throw new SecretDecryptError(`sealed secret: tag must be ${TAG_BYTES} bytes`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", u8(masterKey), u8(iv), { authTagLength: TAG_BYTES });
    decipher.setAAD(u8(Buffer.from(SEALED_VERSION, "utf8")));
    decipher.setAuthTag(u8(tag));
    return Buffer.concat([u8(decipher.update(u8(data))), u8(decipher.final())]).toString("utf8");
  } catch (cause) {
    throw new SecretDecryptError("sealed secret failed authentication (wrong master key or tampered value)", { cause });
  }
}

/** SHA-256 of the token's UTF-8 bytes, lower-case hex: what is stored in place of API keys and URL keys. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Constant-time string equality; compares SHA-256 digests so neither content nor length leaks through timing. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(u8(hash("sha256", a, "buffer")), u8(hash("sha256", b, "buffer")));
}

/**
 * Constant-time equality of two hex digests (hashToken's). Their length is public (a SHA-256 digest's), so it is
 * compared first and the characters in constant time, without hashing them again as safeEqual would.
 */
export function digestEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(u8(Buffer.from(a, "latin1")), u8(Buffer.from(b, "latin1")));
}

/** `bytes` random bytes (1..1024) as base64url without padding. */
export function randomToken(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 1024) {
    throw new RangeError(`randomToken: bytes must be an integer in 1..1024, got ${bytes}`);
  }
  return randomBytes(bytes).toString("base64url");
}

/** An outbound subscription secret: `whsec_` + standard base64 of 32 random bytes (Standard Webhooks format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function randomAlphanumeric(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length));
  return out;
}

/** A credential with a public, URL-safe prefix used for lookup and a secret tail compared by hash. */
export interface IssuedKey {
  /** The whole credential, shown exactly once. */
  key: string;
  /** `<kind>_<8 alphanumerics>`; safe to store, log and show. */
  prefix: string;
}

export type KeySplit = { ok: true; prefix: string } | { ok: false; prefix: null };

function issueKey(kind: "whk" | "inq"): IssuedKey {
  const prefix = `${kind}_${randomAlphanumeric(PREFIX_CHARS)}`;
  return { key: `${prefix}_${randomBytes(KEY_SECRET_BYTES).toString("base64url")}`, prefix };
}

const INBOUND_KEY = /^(whk_[A-Za-z0-9]{8})_[A-Za-z0-9_-]{32,128}$/;
const API_KEY = /^(inq_[A-Za-z0-9]{8})_[A-Za-z0-9_-]{32,128}$/;

function splitKey(pattern: RegExp, key: string): KeySplit {
  const prefix = pattern.exec(key)?.[1];
  return prefix === undefined ? { ok: false, prefix: null } : { ok: true, prefix };
}

/** An inbound receiver URL key: `whk_<8 alphanumerics>_<43 base64url>`; prefix = `whk_<8 alphanumerics>`. */
export function newInboundKey(): IssuedKey {
  return issueKey("whk");
}

/** Parses a URL key strictly (`whk_`, 8 alphanumerics, `_`, 32..128 base64url characters). */
export function splitInboundKey(key: string): KeySplit {
  return splitKey(INBOUND_KEY, key);
}

/** A management API key: `inq_<8 alphanumerics>_<43 base64url>`; prefix = `inq_<8 alphanumerics>`. */
export function newApiKey(): IssuedKey {
  return issueKey("inq");
}

/** Parses an API key strictly (`inq_`, 8 alphanumerics, `_`, 32..128 base64url characters). */
export function splitApiKey(key: string): KeySplit {
  return splitKey(API_KEY, key);
}
