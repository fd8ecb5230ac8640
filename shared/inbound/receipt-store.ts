// The receipt log (docs/api.md#inbound-receipts): records in a KV bucket with a 7-day TTL (listed through the
// gateway's read model, services/gateway/receipt-index.ts), and each request's sealed headers and body as one
// message of the INQ_INBOUND_BODIES stream (7-day max_age). The body is written first, so a listed receipt's
// body is missing only once it expired.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { isId } from "../ids.js";
import { JsonKv } from "../nats/kvjson.js";
import { bodySubject, INBOUND_BODY_LIMIT, INBOUND_STREAMS } from "./catalog.js";
import type { ReceiptBody, ReceiptRecord } from "./receipt.js";
import { bodyKey, openBody, SEAL_OVERHEAD, sealBody } from "./seal-body.js";

/** The request headers the providers read (signatures, event names): kept with the body so a replay sees them. */
export const KEPT_HEADERS = [
  "content-type",
  "user-agent",
  "x-github-event",
  "x-github-delivery",
  "x-hub-signature-256",
  "x-cs-delivery-timestamp",
  "x-cs-primary-signature",
] as const;

/** Room left in a NATS message for the publish's own headers and framing. */
const MESSAGE_MARGIN = 4096;

export interface StoredRequest {
  headers: Record<string, string>;
  body: Buffer;
}

export interface ReceiptStoreDeps {
  receipts: KV;
  js: JetStreamClient;
  jsm: JetStreamManager;
  masterKey: Buffer;
  /** The server's max_payload: a body that does not fit a message is kept truncated. */
  maxPayload(): number;
}

export class ReceiptStore {
  private readonly records: JsonKv<ReceiptRecord>;
  private readonly key: Buffer;

  constructor(private readonly deps: ReceiptStoreDeps) {
    this.records = new JsonKv<ReceiptRecord>(deps.receipts);
    this.key = bodyKey(deps.masterKey);
  }

  /** How much of `body` a receipt keeps, and whether that is all of it. */
  keep(headers: Record<string, string>, body: Buffer): { kept: Buffer; meta: ReceiptBody; headers: Record<string, string> } {
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name].slice(0, 1024);
    const room = Math.min(INBOUND_BODY_LIMIT, this.deps.maxPayload() - MESSAGE_MARGIN - SEAL_OVERHEAD - Buffer.byteLength(JSON.stringify(kept)) - 1);
    const keptBody = body.length <= room ? body : body.subarray(0, Math.max(0, room));
    return { kept: keptBody, headers: kept, meta: { bytes: body.length, truncated: keptBody.length < body.length, kept_bytes: keptBody.length } };
  }

  /** Stores the receipt and, when given, its request (headers the providers read, then the kept body). */
  async record(receipt: ReceiptRecord, request: StoredRequest | null): Promise<void> {
    if (request !== null) {
      const plain = Buffer.concat([new Uint8Array(Buffer.from(`${JSON.stringify(request.headers)}\n`, "utf8")), new Uint8Array(request.body)]);
      await this.deps.js.publish(bodySubject(receipt.receipt_id), sealBody(this.key, receipt.receipt_id, plain), { msgID: receipt.receipt_id });
    }
    await this.records.put(receipt.receipt_id, receipt);
  }

  async get(receiptId: string): Promise<ReceiptRecord | null> {
    if (!isId(receiptId, "rcp")) return null;
    return (await this.records.get(receiptId))?.value ?? null;
  }

  /** The stored request of a receipt, or null once it expired (or was never stored). */
  async request(receiptId: string): Promise<StoredRequest | null> {
    const msg = await this.deps.jsm.streams.getMessage(INBOUND_STREAMS.bodies.name, { last_by_subj: bodySubject(receiptId) }).catch((err: unknown) => {
      if (isMissing(err)) return null;
      throw err;
    });
    if (msg === null) return null;
    const plain = openBody(this.key, receiptId, msg.data);
    const newline = plain.indexOf(0x0a);
    return { headers: JSON.parse(plain.subarray(0, newline).toString("utf8")) as Record<string, string>, body: plain.subarray(newline + 1) };
  }
}

function isMissing(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? err);
  return /no message found|not found/i.test(text);
}
