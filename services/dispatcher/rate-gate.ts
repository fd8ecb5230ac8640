// A subscription's deliveries-per-second limit (docs/api.md#subscription-options), shared by every dispatcher
// replica: one counter per subscription and calendar second in the `inq_webhook_rates` bucket, raised by
// compare-and-set. A POST may start only while its second's counter is below the limit; a job refused waits
// (nak with a delay) without spending an attempt. Subscriptions without a limit never come here.
//
// Refused jobs are spread over the following seconds by how many this replica has refused already in the same
// second, so a backlog of N waits about N / limit seconds instead of all returning at the next second.
// A replica that saw a second full refuses further jobs for it without asking the bucket again.
import type { KV } from "@nats-io/kv";
import type { Clock } from "../../shared/clock.js";
import { isCasConflict } from "../../shared/nats/errors.js";

/** Compare-and-set rounds before a job is sent away as if the second were full (heavy contention). */
const CAS_ATTEMPTS = 8;
/** Random spread added to each wait, so refused jobs do not come back in step. */
const JITTER_MS = 250;

const enc = new TextEncoder();
const dec = new TextDecoder();

export class RateGate {
  /** The second whose refusals and full counters are tracked below. */
  private second = -1;
  /** Refusals this second, by subscription. */
  private readonly refused = new Map<string, number>();
  /** Subscriptions whose counter for this second is at its limit. */
  private readonly full = new Set<string>();

  constructor(
    private readonly kv: KV,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  /** 0: the POST may start now; otherwise how many ms the job should wait before it asks again. */
  async take(subscriptionId: string, limit: number): Promise<number> {
    const now = this.clock.now();
    const second = Math.floor(now / 1000);
    this.turnTo(second);
    if (!this.full.has(subscriptionId)) {
      const key = `${subscriptionId}.${second}`;
      for (let i = 0; i < CAS_ATTEMPTS; i++) {
        const outcome = await this.tryIncrement(key, limit);
        if (outcome === "taken") return 0;
        if (outcome === "full") break;
      }
      if (Math.floor(this.clock.now() / 1000) === second) this.full.add(subscriptionId);
    }
    const refusals = (this.refused.get(subscriptionId) ?? 0) + 1;
    this.refused.set(subscriptionId, refusals);
    const toNextSecond = (second + 1) * 1000 - now;
    return toNextSecond + Math.floor((refusals - 1) / limit) * 1000 + Math.floor(this.random() * JITTER_MS);
  }

  private turnTo(second: number): void {
    if (second === this.second) return;
    this.second = second;
    this.refused.clear();
    this.full.clear();
  }

  private async tryIncrement(key: string, limit: number): Promise<"taken" | "full" | "conflict"> {
    try {
      const entry = await this.kv.get(key);
      if (!entry || entry.operation !== "PUT" || entry.value.length === 0) {
        await this.kv.create(key, enc.encode("1"));
        return "taken";
      }
      const count = Number.parseInt(dec.decode(entry.value), 10) || 0;
      if (count >= limit) return "full";
      await this.kv.update(key, enc.encode(String(count + 1)), entry.revision);
      return "taken";
    } catch (err) {
      if (isCasConflict(err)) return "conflict";
      throw err;
    }
  }
}
