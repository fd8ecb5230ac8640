// Each timestamped provider signature is accepted once (docs/api.md#inbound-replay-protection): a KV create of
// `sha256(endpoint id, signature)` in a bucket whose TTL outlives the signature's window. The create is atomic
// on the stream, so two gateway replicas receiving the same captured request cannot both accept it.
import type { KV } from "@nats-io/kv";
import { createHash } from "node:crypto";
import { JsonKv } from "../nats/kvjson.js";

export interface SignatureClaim {
  receipt_id: string;
}

export class ReplayGuard {
  private readonly claims: JsonKv<SignatureClaim>;

  constructor(kv: KV) {
    this.claims = new JsonKv<SignatureClaim>(kv);
  }

  /** True the first time this endpoint sees `material`; false for every later request carrying it. */
  async claim(endpointId: string, material: string, receiptId: string): Promise<boolean> {
    const key = createHash("sha256").update(`${endpointId}\n${material}`, "utf8").digest("hex");
    try {
      return (await this.claims.create(key, { receipt_id: receiptId })) !== null;
    } catch (err) {
      // The create may have been stored with its answer lost (a timeout): then this request holds the claim, and
      // failing it (503) would leave the sender's retry of the same signed request refused as a replay. Read it back.
      const stored = await this.claims.get(key).catch(() => null);
      if (stored === null) throw err;
      return stored.value.receipt_id === receiptId;
    }
  }
}
