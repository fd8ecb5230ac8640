// Webhook signatures, outbound and inbound. Pure: the clock comes in as `timestamp` / `nowSeconds`.
//
// Outbound (docs/api.md#webhooks): `X-Service-Signature-256` (GitHub style, key = the whole secret string) and the
// Standard Webhooks triple `webhook-id` / `webhook-timestamp` / `webhook-signature`.
// Inbound (docs/api.md#inbound): GitHub `X-Hub-Signature-256` and CrowdStrike-style timestamped signatures.

import { createHmac, timingSafeEqual } from "node:crypto";

export type SignedBody = Buffer | string;

const WHSEC_PREFIX = "whsec_";
const SHA256_HEADER = /^sha256=([0-9a-fA-F]{64})$/;
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const UNIX_SECONDS = /^[0-9]{1,11}$/;
/** Larger than this is milliseconds or worse, not unix seconds (year 5138). */
const MAX_UNIX_SECONDS = 99_999_999_999;

export const SERVICE_SIGNATURE_HEADER = "X-Service-Signature-256";
export const DEFAULT_CROWDSTRIKE_TOLERANCE_SECONDS = 300;

/** A Uint8Array view of a Buffer (no copy): keeps node:crypto calls type-correct across @types/node versions. */
function u8(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function hmacSha256(key: string | Buffer, ...parts: SignedBody[]): Buffer {
  const mac = createHmac("sha256", typeof key === "string" ? key : u8(key));
  for (const part of parts) mac.update(typeof part === "string" ? part : u8(part));
  return mac.digest();
}

function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(u8(a), u8(b));
}

function assertUnixSeconds(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp > MAX_UNIX_SECONDS) {
    throw new RangeError(`timestamp must be a non-negative integer of unix seconds, got ${timestamp}`);
  }
}

/** `sha256=<hex HMAC-SHA256(secret as UTF-8, raw body)>`: GitHub's scheme, also our `X-Service-Signature-256`. */
export function githubSignature(secret: string, body: SignedBody): string {
  return `sha256=${hmacSha256(secret, body).toString("hex")}`;
}

/** Checks a GitHub-style `sha256=<hex>` header in constant time; a missing or malformed header is `false`. */
export function verifyGithubSignature(secret: string, body: SignedBody, header: string | null | undefined): boolean {
  const hex = typeof header === "string" ? SHA256_HEADER.exec(header.trim())?.[1] : undefined;
  if (hex === undefined) return false;
  return digestsEqual(Buffer.from(hex, "hex"), hmacSha256(secret, body));
}

/** The HMAC key of a Standard Webhooks secret: the base64-decoded part after `whsec_`. */
function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith(WHSEC_PREFIX) ? secret.slice(WHSEC_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

/** `v1,<base64 HMAC-SHA256(key = base64-decoded secret after whsec_, "<id>.<timestamp>.<raw body>")>`. */
export function standardWebhookSignature(secret: string, eventId: string, timestamp: number, body: SignedBody): string {
  assertUnixSeconds(timestamp);
  const mac = hmacSha256(standardWebhooksKey(secret), `${eventId}.${timestamp}.`, body);
  return `v1,${mac.toString("base64")}`;
}

export interface SignatureInput {
  /** The subscription secret, `whsec_<base64>`. */
  secret: string;
  eventId: string;
  /** Unix seconds of the attempt. */
  timestamp: number;
  /** The exact bytes that are sent. */
  body: SignedBody;
  /** During a rotation's grace period, the old secret: it signs too (docs/api.md#secret-rotation). */
  previousSecret?: string | null;
}

/** The signature headers of one outbound delivery attempt (docs/api.md#webhooks). */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const { secret, eventId, timestamp, body, previousSecret } = input;
  // Standard Webhooks: several space-separated signatures, the new secret's first. X-Service-Signature-256 is a
  // single `sha256=` value (GitHub's format, compared whole by its verifiers): always the current secret's.
  const standard = [standardWebhookSignature(secret, eventId, timestamp, body)];
  if (previousSecret) standard.push(standardWebhookSignature(previousSecret, eventId, timestamp, body));
  return {
    [SERVICE_SIGNATURE_HEADER]: githubSignature(secret, body),
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standard.join(" "),
  };
}

/** CrowdStrike-style signature: base64 HMAC-SHA256(secret, "<timestamp>.<raw body>"). */
export function crowdstrikeSignature(secret: string, timestamp: number | string, body: SignedBody): string {
  return hmacSha256(secret, `${timestamp}.`, body).toString("base64");
}

export interface CrowdstrikeVerifyInput {
  secret: string;
  body: SignedBody;
  /** `X-Cs-Delivery-Timestamp` as received (unix seconds). */
  timestampHeader: string | null | undefined;
  /** `X-Cs-Primary-Signature` as received (base64). */
  signatureHeader: string | null | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}

/** True when the timestamp is within the window and the signature matches (constant-time comparison). */
export function verifyCrowdstrike(input: CrowdstrikeVerifyInput): boolean {
  const { secret, body, nowSeconds, toleranceSeconds = DEFAULT_CROWDSTRIKE_TOLERANCE_SECONDS } = input;
  const timestamp = input.timestampHeader?.trim();
  const signature = input.signatureHeader?.trim();
  if (timestamp === undefined || signature === undefined) return false;
  if (!UNIX_SECONDS.test(timestamp) || !BASE64_SHA256.test(signature)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  return digestsEqual(Buffer.from(signature, "base64"), hmacSha256(secret, `${timestamp}.`, body));
}
