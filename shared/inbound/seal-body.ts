// Inbound request bodies sealed at rest (docs/api.md#inbound-receipts): AES-256-GCM as shared/secrets.ts seals
// secrets, but over bytes, under a key derived from the master key for this purpose only, with the receipt id
// bound in as associated data (a sealed body moved to another receipt does not open).
// Layout: 1 version byte, 12-byte IV, 16-byte tag, ciphertext.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { SecretDecryptError } from "../secrets.js";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes a sealed body adds to its plaintext. */
export const SEAL_OVERHEAD = 1 + IV_BYTES + TAG_BYTES;

const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export function bodyKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", u8(masterKey), new Uint8Array(0), "inquest inbound receipt bodies v1", 32));
}

const aad = (receiptId: string): Uint8Array => u8(Buffer.from(`inbound-body.v${VERSION}:${receiptId}`, "utf8"));

export function sealBody(key: Buffer, receiptId: string, plaintext: Buffer): Uint8Array {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", u8(key), u8(iv), { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(receiptId));
  const data = Buffer.concat([u8(cipher.update(u8(plaintext))), u8(cipher.final())]);
  return u8(Buffer.concat([u8(Buffer.from([VERSION])), u8(iv), u8(cipher.getAuthTag()), u8(data)]));
}

export function openBody(key: Buffer, receiptId: string, sealed: Uint8Array): Buffer {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < SEAL_OVERHEAD || bytes[0] !== VERSION) throw new SecretDecryptError("sealed body: unknown layout");
  const iv = bytes.subarray(1, 1 + IV_BYTES);
  const tag = bytes.subarray(1 + IV_BYTES, SEAL_OVERHEAD);
  try {
    const decipher = createDecipheriv("aes-256-gcm", u8(key), u8(iv), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(receiptId));
    decipher.setAuthTag(u8(tag));
    return Buffer.concat([u8(decipher.update(u8(bytes.subarray(SEAL_OVERHEAD)))), u8(decipher.final())]);
  } catch (cause) {
    throw new SecretDecryptError("sealed body failed authentication (wrong master key or tampered value)", { cause });
  }
}
