// Each timestamped provider signature is accepted once (docs/api.md#inbound-replay-protection): a KV create of
// `sha256(endpoint id, signature)` in a bucket whose TTL outlives the signature's window. The create is atomic
// on the stream, so two gateway replicas receiving the same captured request cannot both accept it.
//
// A claim is `pending` until its request is answered, then `answered`. A gateway killed in between leaves it
// pending, and the provider, which got no answer, retries the very same signed request: refusing that as a replay
// would lose the alert. So a copy that finds a pending claim waits for it to be answered (then it is a replay), and
// once it has stayed pending for a lease, takes it over with a compare-and-set on its revision (two racing
// retries: one wins, the other waits again). The request's trigger is keyed on the claim (`triggerKey`), so a
// retry after a crash that came after the trigger answers the same investigation instead of starting another.
import type { KV } from "@nats-io/kv";
import { createHash } from "node:crypto";
import { sleep } from "../clock.js";
import { JsonKv } from "../nats/kvjson.js";

export interface SignatureClaim {
  receipt_id: string;
  /** Absent on claims written before requests were answered explicitly: those count as answered. */
  state?: "pending" | "answered";
}

/** A claim this request holds until it is answered. */
export interface SignatureHold {
  /** The trigger's idempotency key: the same for every attempt at this signed request, and only for it. */
  triggerKey: string;
  /** Marks the claim answered: from then on, the same signature is a replay. Call it before answering. */
  answered(): Promise<void>;
}

export interface ReplayGuardOptions {
  /** How long a claim stays pending, unchanged, before a copy of its request takes it over (its holder is taken as dead). */
  leaseMs?: number;
  /** How often a waiting copy looks at the claim again. */
  pollMs?: number;
}

/**
 * A request holds its claim for a few bus round trips (ms); a holder still alive past this lease (a bus that
 * stalls) is only overtaken: the taker's trigger has the same idempotency key, so no second investigation starts.
 */
const LEASE_MS = 5_000;
const POLL_MS = 100;

export class ReplayGuard {
  private readonly claims: JsonKv<SignatureClaim>;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(kv: KV, options: ReplayGuardOptions = {}) {
    this.claims = new JsonKv<SignatureClaim>(kv);
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.pollMs = options.pollMs ?? POLL_MS;
  }

  /** A hold the first time this endpoint sees `material` (or when its request died unanswered); null once it was answered. */
  async claim(endpointId: string, material: string, receiptId: string): Promise<SignatureHold | null> {
    const key = createHash("sha256").update(`${endpointId}\n${material}`, "utf8").digest("hex");
    const mine: SignatureClaim = { receipt_id: receiptId, state: "pending" };
    const hold = (revision: number): SignatureHold => ({ triggerKey: `signature:${key}`, answered: () => this.answer(key, receiptId, revision) });
    // The pending claim being waited on (its revision) and since when, on this process's monotonic clock.
    let watched = 0;
    let since = 0;
    for (;;) {
      const created = await this.ours(key, receiptId, () => this.claims.create(key, mine));
      if (created !== null) return hold(created);
      const stored = await this.claims.get(key);
      if (stored !== null && stored.value.state !== "pending") return null;
      if (stored !== null) {
        const now = performance.now();
        if (watched !== stored.revision) [watched, since] = [stored.revision, now];
        else if (now - since >= this.leaseMs) {
          const taken = await this.ours(key, receiptId, () => this.claims.replace(key, mine, stored.revision));
          if (taken !== null) return hold(taken);
          watched = 0; // another copy took it first, or its holder answered: look again
          continue;
        }
      }
      await sleep(this.pollMs);
    }
  }

  /**
   * The revision `write` stored for this receipt, or null when the key holds another's claim. A write stored with
   * its answer lost (a timeout) is read back: then this request holds the claim and goes on; failing it (503)
   * would only make the sender's retry of the same signed request wait out the lease of a claim nobody answers.
   */
  private async ours(key: string, receiptId: string, write: () => Promise<number | null>): Promise<number | null> {
    try {
      return await write();
    } catch (err) {
      const stored = await this.claims.get(key).catch(() => null);
      if (stored === null) throw err;
      return stored.value.receipt_id === receiptId ? stored.revision : null;
    }
  }

  private async answer(key: string, receiptId: string, revision: number): Promise<void> {
    try {
      // null (a conflict): a copy took the claim over while this request outlived the lease; it answers with the same investigation.
      await this.claims.replace(key, { receipt_id: receiptId, state: "answered" }, revision);
    } catch (err) {
      // Stored with its answer lost, or taken over meanwhile: done. Still pending as ours: the caller answers 503.
      const stored = await this.claims.get(key).catch(() => null);
      if (stored !== null && (stored.value.receipt_id !== receiptId || stored.value.state !== "pending")) return;
      throw err;
    }
  }
}
