// How much of the agent registry one agent may take (docs/architecture.md#registry-limits). Everything an agent sends
// is attacker-controlled, and its NATS credential lets it publish its own hello, heartbeat and bye as fast as it
// likes: 5,000 hellos with changing tags sent at once were 5,000 handlers in flight, each a few KV round trips and
// compare-and-set retries on the one record, and meanwhile the other agents' heartbeats took up to 2.5 s (an agent
// gives up after 2 s). So, per runner:
//  - one agent has at most `perAgent` messages in hand (being handled, or waiting for their presence batch); an
//    honest one has one at a time, two when it stops during a heartbeat;
//  - at most `handlers` messages are being handled at once, all agents together (a heartbeat waiting for its
//    presence batch is not handled, it waits with its reply subject alone);
//  - the writes of its record an agent causes at will (a hello that changes its identity, a bye that takes it
//    offline, a heartbeat whose only news is a new snapshot time) draw on a bucket of `writeBurst`, refilled by one
//    every `writeEveryMs`. An honest agent makes one or two per start and stop, and a new snapshot every few minutes.
// A message past the first two bounds, or a hello or bye past its writes, is answered `unavailable` at once: the agent
// sends it again later (hello after a wait that doubles up to 5 s; a heartbeat at its next beat). A heartbeat past its
// writes is still acknowledged, as presence only: its snapshot time is recorded from a later beat, which carries it
// again. A heartbeat at the agent's interval is therefore never refused for the agent's own sake.

export interface RegistryLimitOptions {
  /** Messages being handled at once, all agents together. */
  handlers: number;
  /** Messages of one agent in hand at once. */
  perAgent: number;
  /** Writes of its record an agent may cause in a burst. */
  writeBurst: number;
  /** One more such write every this many ms. */
  writeEveryMs: number;
}

export const DEFAULT_REGISTRY_LIMITS: RegistryLimitOptions = { handlers: 256, perAgent: 4, writeBurst: 10, writeEveryMs: 6_000 };

/** Why a message was refused (the `reason` of inquest_agent_messages_refused_total). */
export type Refusal = "busy" | "agent_busy" | "writes";
export const REFUSALS: readonly Refusal[] = ["busy", "agent_busy", "writes"];

const MESSAGES: Record<Refusal, string> = {
  busy: "the registry is busy; send it again later",
  agent_busy: "this agent has too many messages in hand; wait for their answers",
  writes: "this agent changed its record too often; send it again later",
};

/** A message past a limit: answered `unavailable` (the agent sends it again later), counted by `reason`. */
export class OverLimit extends Error {
  constructor(readonly reason: Refusal) {
    super(MESSAGES[reason]);
  }
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class RegistryLimits {
  /** Messages in hand by agent (absent: none). */
  private readonly held = new Map<string, number>();
  /** Write buckets of the agents that wrote lately (absent: full). */
  private readonly buckets = new Map<string, Bucket>();
  private sweptMs = -Infinity;

  constructor(readonly opts: RegistryLimitOptions = DEFAULT_REGISTRY_LIMITS) {}

  /** Takes a place for one more message of the agent; false when it has `perAgent` in hand. Give it back with `leave`. */
  enter(agentId: string): boolean {
    const held = this.held.get(agentId) ?? 0;
    if (held >= this.opts.perAgent) return false;
    this.held.set(agentId, held + 1);
    return true;
  }

  leave(agentId: string): void {
    const held = (this.held.get(agentId) ?? 0) - 1;
    if (held > 0) this.held.set(agentId, held);
    else this.held.delete(agentId);
  }

  /** Takes one write from the agent's bucket at `nowMs`; false when it is empty. */
  takeWrite(agentId: string, nowMs: number): boolean {
    this.sweep(nowMs);
    const bucket = this.refilled(this.buckets.get(agentId), nowMs);
    if (bucket.tokens < 1) {
      this.buckets.set(agentId, bucket);
      return false;
    }
    this.buckets.set(agentId, { tokens: bucket.tokens - 1, atMs: bucket.atMs });
    return true;
  }

  /** How many agents have state here (tests: it does not grow with agents that stopped writing). */
  get tracked(): number {
    return this.held.size + this.buckets.size;
  }

  private refilled(bucket: Bucket | undefined, nowMs: number): Bucket {
    if (bucket === undefined) return { tokens: this.opts.writeBurst, atMs: nowMs };
    if (nowMs <= bucket.atMs) return bucket; // a clock set back refills nothing until it is past the last refill again
    return { tokens: Math.min(this.opts.writeBurst, bucket.tokens + (nowMs - bucket.atMs) / this.opts.writeEveryMs), atMs: nowMs };
  }

  /** Forgets the buckets that are full again, once per refill time of a whole bucket. */
  private sweep(nowMs: number): void {
    const fullAfterMs = this.opts.writeBurst * this.opts.writeEveryMs;
    if (nowMs - this.sweptMs < fullAfterMs) return;
    this.sweptMs = nowMs;
    for (const [agentId, bucket] of this.buckets) if (this.refilled(bucket, nowMs).tokens >= this.opts.writeBurst) this.buckets.delete(agentId);
  }
}
