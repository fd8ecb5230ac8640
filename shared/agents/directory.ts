// A live local copy of the agent registry, kept current by a KV watch: scope resolution and freshness
// read it without a round trip per agent.
import type { KV } from "@nats-io/kv";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { followBucket, type Follower } from "../nats/follow.js";
import type { AgentRecord } from "./record.js";

export class AgentDirectory implements Component {
  readonly name = "agent-directory";
  private agents = new Map<string, AgentRecord>();
  private follower: Follower | null = null;

  constructor(private readonly kv: KV, private readonly log: Logger) {}

  async start(): Promise<void> {
    this.follower = await followBucket<AgentRecord>(this.kv, this.log, (key, _rev, value) => {
      if (value) this.agents.set(key, value);
      else this.agents.delete(key);
    });
    await this.follower.ready;
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
  }

  list(): AgentRecord[] {
    return [...this.agents.values()];
  }

  byEdrDevice(deviceId: string): AgentRecord | null {
    for (const a of this.agents.values()) if (a.edr_device_id === deviceId) return a;
    return null;
  }

  /** Every agent whose `hostname` is exactly `hostname` (hostnames need not be unique). */
  byHostname(hostname: string): AgentRecord[] {
    const found: AgentRecord[] = [];
    for (const a of this.agents.values()) if (a.hostname === hostname) found.push(a);
    return found;
  }
}
