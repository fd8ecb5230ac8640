// A live local copy of the agent registry, kept current by a KV watch: scope resolution and freshness
// read it without a round trip per agent. It holds only values of the record's shape (isAgentRecord), so every
// reader can trust each field; another value reads as no agent, with a warning.
import type { KV } from "@nats-io/kv";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import { BucketMirror } from "../nats/follow.js";
import { isAgentRecord, type AgentRecord } from "./record.js";

export class AgentDirectory implements Component {
  readonly name = "agent-directory";
  private readonly mirror: BucketMirror<AgentRecord>;

  constructor(kv: KV, log: Logger) {
    this.mirror = new BucketMirror<AgentRecord>(kv, log, undefined, (value, key) => {
      if (isAgentRecord(value)) return value;
      log.warn({ agent_id: key }, "agent directory: skipped a value that is not an agent record (the agent's next hello replaces it)");
      return null;
    });
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

  /**
   * Every agent that says it runs on EDR device `deviceId`. Agents declare their device ids themselves, so one claimed
   * twice is not settled by who registered first (an impersonator would then hide the real host): callers get all.
   */
  byEdrDevice(deviceId: string): AgentRecord[] {
    return this.list().filter((a) => a.edr_device_id === deviceId);
  }

  /** Every agent whose `hostname` is exactly `hostname` (hostnames need not be unique). */
  byHostname(hostname: string): AgentRecord[] {
    return this.list().filter((a) => a.hostname === hostname);
  }
}
