// A live local copy of the agent registry, kept current by a KV watch: scope resolution and freshness
// read it without a round trip per agent.
import type { KV } from "@nats-io/kv";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { BucketMirror } from "../nats/follow.js";
import type { AgentRecord } from "./record.js";

export class AgentDirectory implements Component {
  readonly name = "agent-directory";
  private readonly mirror: BucketMirror<AgentRecord>;

  constructor(kv: KV, log: Logger) {
    this.mirror = new BucketMirror<AgentRecord>(kv, log);
  }

  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
  }

  /** The record as this copy last saw it, with its revision (see JsonKv.update's `known`). */
  versioned(agentId: string): { value: AgentRecord; revision: number } | undefined {
    return this.mirror.versioned(agentId);
  }

  list(): AgentRecord[] {
    return [...this.mirror.values()];
  }

  byEdrDevice(deviceId: string): AgentRecord | null {
    for (const a of this.mirror.values()) if (a.edr_device_id === deviceId) return a;
    return null;
  }

  /** Every agent whose `hostname` is exactly `hostname` (hostnames need not be unique). */
  byHostname(hostname: string): AgentRecord[] {
    return this.list().filter((a) => a.hostname === hostname);
  }
}
