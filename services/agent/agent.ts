// One endpoint agent: registers in the agent registry, heartbeats, answers investigation plans with the
// requested tables, and publishes telemetry snapshots for cached investigations (CONTRACT §7).
import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { flushOutbox, withEvent } from "../../shared/agents/outbox.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { iso, type Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { PlanRequest, SUBJECTS, type PlanReply, type Snapshot } from "../../shared/nats/catalog.js";
import { decodeJson, type JsonKv } from "../../shared/nats/kvjson.js";
import { checker } from "../../shared/validate.js";
import { fitTables } from "./fit.js";

const planRequest = checker(PlanRequest);

export type Tables = Record<string, Array<Record<string, unknown>>>;

/** Where an agent's rows come from: the live host, or a fleet file. */
export interface TelemetrySource {
  collect(tables: readonly string[]): Promise<{ collected_at: string; tables: Tables }>;
  /** The tables a periodic snapshot holds. */
  snapshotTables: readonly string[];
}

export interface AgentIdentity {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  edr_device_id: string | null;
}

export interface AgentDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  registry: JsonKv<AgentRecord>;
  clock: Clock;
  log: Logger;
}

export interface AgentOptions {
  heartbeatMs: number;
  /** 0 = only one snapshot at start. */
  snapshotIntervalMs: number;
  /** false: registered but never connects (a fleet file's offline host). */
  online: boolean;
}

export class Agent implements Component {
  readonly name: string;
  private sub: Subscription | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly deps: AgentDeps,
    readonly identity: AgentIdentity,
    private readonly telemetry: TelemetrySource,
    private readonly opts: AgentOptions,
  ) {
    this.name = `agent:${identity.agent_id}`;
  }

  async start(): Promise<void> {
    await this.register();
    if (!this.opts.online) return;
    this.sub = this.deps.nc.subscribe(SUBJECTS.plan(this.identity.agent_id), {
      callback: (_err, msg) => {
        this.answer(msg.data, (d) => msg.respond(d)).catch((err: unknown) => this.deps.log.error({ err }, "could not answer a plan"));
      },
    });
    await this.deps.nc.flush();
    await this.snapshot();
    await this.connect();
    this.timers.push(setInterval(() => void this.heartbeat(), this.opts.heartbeatMs));
    if (this.opts.snapshotIntervalMs > 0) this.timers.push(setInterval(() => void this.snapshot(), this.opts.snapshotIntervalMs));
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.sub?.unsubscribe();
    if (!this.opts.online) return;
    const now = this.deps.clock.now();
    try {
      await this.deps.registry.update(this.identity.agent_id, (r) => (r.status === "online" ? withEvent({ ...r, status: "offline" }, "agent.disconnected", now) : null));
      await this.flush();
    } catch (err) {
      this.deps.log.warn({ err }, "could not announce the disconnect; a runner will mark the agent offline");
    }
  }

  private async register(): Promise<void> {
    const now = iso(this.deps.clock.now());
    const fresh: AgentRecord = {
      ...this.identity,
      status: "offline",
      registered_at: now,
      last_seen_at: null,
      snapshot_collected_at: null,
      heartbeat_interval_ms: this.opts.heartbeatMs,
    };
    if ((await this.deps.registry.create(this.identity.agent_id, withEvent(fresh, "agent.registered", this.deps.clock.now()))) === null) {
      // Known agent: refresh identity (tags may have changed), keep history.
      await this.deps.registry.update(this.identity.agent_id, (r) => ({ ...r, ...this.identity, heartbeat_interval_ms: this.opts.heartbeatMs }));
    }
    await this.flush();
  }

  private async connect(): Promise<void> {
    const now = iso(this.deps.clock.now());
    await this.deps.registry.update(this.identity.agent_id, (r) => withEvent({ ...r, status: "online", last_seen_at: now }, "agent.connected", this.deps.clock.now()));
    await this.flush();
  }

  private async heartbeat(): Promise<void> {
    const now = iso(this.deps.clock.now());
    try {
      // Marked offline while we were unreachable: announce that we are back, in the same write.
      await this.deps.registry.update(this.identity.agent_id, (r) => {
        const next: AgentRecord = { ...r, status: "online", last_seen_at: now };
        return r.status === "online" ? next : withEvent(next, "agent.connected", this.deps.clock.now());
      });
      await this.flush();
    } catch (err) {
      this.deps.log.warn({ err }, "heartbeat failed");
    }
  }

  async snapshot(): Promise<void> {
    try {
      const data = await this.telemetry.collect(this.telemetry.snapshotTables);
      const snap: Snapshot = { agent_id: this.identity.agent_id, hostname: this.identity.hostname, ...data };
      await this.deps.js.publish(SUBJECTS.snapshot(this.identity.agent_id), fitTables(snap, this.maxPayload()));
      await this.deps.registry.update(this.identity.agent_id, (r) => ({ ...r, snapshot_collected_at: data.collected_at }));
    } catch (err) {
      this.deps.log.warn({ err }, "snapshot failed");
    }
  }

  private async answer(data: Uint8Array, respond: (d: Uint8Array) => boolean): Promise<void> {
    let parsed: unknown = null;
    try {
      parsed = decodeJson<unknown>(data);
    } catch {
      /* answered below as invalid */
    }
    const req = planRequest.check(parsed);
    if (!req.ok) {
      this.deps.log.warn("invalid plan request ignored");
      return;
    }
    const result = await this.telemetry.collect(req.value.tables);
    const reply: PlanReply = { agent_id: this.identity.agent_id, ...result };
    respond(fitTables(reply, this.maxPayload()));
  }

  private maxPayload(): number {
    return this.deps.nc.info?.max_payload ?? 1024 * 1024;
  }

  private flush(): Promise<void> {
    return flushOutbox(this.deps.registry, this.deps.js, this.identity.agent_id);
  }

}
