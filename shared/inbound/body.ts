// Moving a receiver body from the gateway to the ingestor. Up to the server's max_payload (1 MiB by default)
// it travels inside the request; a bigger one (the receiver accepts 1 MiB, and base64 adds a third) is written
// in chunks to the spill bucket, read back by the ingestor and discarded (the bucket's TTL covers crashes).
import type { KV } from "@nats-io/kv";
import { newId } from "../ids.js";
import type { ReceiptBody } from "./messages.js";

const MAX_CHUNK_BYTES = 256 * 1024;
/** Room left in a NATS message for everything but the chunk. */
const CHUNK_MARGIN_BYTES = 4096;

function u8(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function inlineBody(body: Buffer): ReceiptBody {
  return { kind: "inline", base64: body.toString("base64") };
}

/** Writes the body to the spill bucket in chunks that each fit one NATS message. */
export async function spillBody(spill: KV, body: Buffer, maxPayload: number, nowMs: number): Promise<ReceiptBody> {
  const chunkBytes = Math.max(1024, Math.min(MAX_CHUNK_BYTES, maxPayload - CHUNK_MARGIN_BYTES));
  const id = newId("rcp", nowMs);
  const chunks = Math.max(1, Math.ceil(body.length / chunkBytes));
  for (let i = 0; i < chunks; i++) {
    await spill.put(`${id}.${i}`, u8(body.subarray(i * chunkBytes, (i + 1) * chunkBytes)));
  }
  return { kind: "spill", id, chunks, size: body.length };
}

export type ReadBody = { ok: true; body: Buffer } | { ok: false; reason: string };

/** The raw bytes of a receipt's body (`too_large` bodies were never read: the caller answers 413 first). */
export async function readBody(spill: KV, body: ReceiptBody): Promise<ReadBody> {
  switch (body.kind) {
    case "inline":
      return { ok: true, body: Buffer.from(body.base64, "base64") };
    case "spill": {
      const parts: Buffer[] = [];
      for (let i = 0; i < body.chunks; i++) {
        const entry = await spill.get(`${body.id}.${i}`);
        if (!entry || entry.operation !== "PUT") return { ok: false, reason: `spilled body ${body.id} is missing chunk ${i}` };
        parts.push(Buffer.from(entry.value));
      }
      const whole = Buffer.concat(parts.map(u8));
      return whole.length === body.size ? { ok: true, body: whole } : { ok: false, reason: `spilled body ${body.id} has ${whole.length} bytes, expected ${body.size}` };
    }
    case "too_large":
      return { ok: false, reason: "the body was over the limit and was not read" };
    default:
      return assertNever(body);
  }
}

/** Drops a spilled body once it has been handled (idempotent). */
export async function discardBody(spill: KV, body: ReceiptBody): Promise<void> {
  if (body.kind !== "spill") return;
  for (let i = 0; i < body.chunks; i++) await spill.purge(`${body.id}.${i}`);
}

function assertNever(x: never): never {
  throw new Error(`unexpected body ${JSON.stringify(x)}`);
}
