// One endpoint agent (docs/api.md#agents) speaking the agent protocol (shared/agents/protocol.ts): it says hello
// until the registry acknowledges it, heartbeats, answers its own investigation plans with the requested
// tables, and publishes telemetry snapshots. It writes no bucket and provisions nothing: the registry keeps
// its record.
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import {
  ackChecker,
  AGENT_SUBJECTS,
  planRequestChecker,
  type Ack,
  type Heartbeat,
  type Hello,
  type PlanError,
  type PlanReply,
  type Snapshot,
  type Tables,
} from "../../shared/agents/protocol.js";
import type { Clock } from "../../shared/clock.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { ConfigError } from "../../shared/errors.js";
import { isPermissionViolation, isUnavailable } from "../../shared/nats/errors.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { fitTables } from "./fit.js";
import { ScanGate } from "./scan-gate.js";

export type { Tables };

/** What one scan gave: the rows, and the tables whose rows are partial (a row cap reached, the time budget spent), if any. */
export interface Collected {
  collected_at: string;
  tables: Tables;
  truncated?: string[];
}

/** Where an agent's rows come from: the live host, or a fleet file. */
export interface TelemetrySource {
  /** `budgetMs`: how long the scan may take; past it, what was read is returned, the rest named in `truncated`. */
  collect(tables: readonly string[], budgetMs?: number): Promise<Collected>;
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
  clock: Clock;
  log: Logger;
}

export interface AgentOptions {
  heartbeatMs: number;
  /** 0 = only one snapshot at start. */
  snapshotIntervalMs: number;
  /** false: registered but never connects (a fleet file's offline host). */
  online: boolean;
  /** First wait before hello is sent again when no registry acknowledged it (doubles up to 5 s). */
  retryMs?: number;
  /** How long one scan may take (unset: no bound of its own); a plan's scan also ends in time to answer by its deadline. */
  scanBudgetMs?: number;
}

/** How long the agent waits for the registry's answer to one message. */
const REGISTRY_TIMEOUT_MS = 2_000;
const MAX_RETRY_MS = 5_000;
/** A stopping agent does not hold up shutdown: without an answer the liveness sweep marks it offline. */
const BYE_TIMEOUT_MS = 1_000;
/**
 * What a plan's scan leaves of the plan's deadline (a quarter of it, at most this): the answer is still to be fitted
 * and sent, and the runner's clock started before the request arrived. Past the deadline the runner ignores it.
 */
const PLAN_REPLY_MARGIN_MS = 1_000;

export class Agent implements Component {
  readonly name: string;
  private sub: Subscription | null = null;
  private timers: NodeJS.Timeout[] = [];
  private readonly scans = new ScanGate();
  private snapshotCollectedAt: string | null = null;
  private beating = false;
  private stopped = false;

  constructor(
    private readonly deps: AgentDeps,
    readonly identity: AgentIdentity,
    private readonly telemetry: TelemetrySource,
    private readonly opts: AgentOptions,
  ) {
    this.name = `agent:${identity.agent_id}`;
  }

  /** Resolves once the registry holds the agent (and, when online, has seen its first heartbeat). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.untilAcked("hello", () => this.hello());
    if (!this.opts.online) return;
    this.sub = this.deps.nc.subscribe(AGENT_SUBJECTS.plan(this.identity.agent_id), {
      callback: (_err, msg) => {
        this.answer(msg).catch((err: unknown) => this.deps.log.error({ err }, "could not answer a plan"));
      },
    });
    await this.deps.nc.flush();
    await this.snapshot();
    await this.untilAcked("heartbeat", () => this.beat());
    this.timers.push(setInterval(() => void this.heartbeat(), this.opts.heartbeatMs));
    if (this.opts.snapshotIntervalMs > 0) this.timers.push(setInterval(() => void this.snapshot(), this.opts.snapshotIntervalMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.sub?.unsubscribe();
    this.sub = null;
    if (!this.opts.online) return;
    const ack = await this.send(AGENT_SUBJECTS.bye(this.identity.agent_id), { agent_id: this.identity.agent_id }, BYE_TIMEOUT_MS);
    if (ack.ok) return;
    // No registry answering is the usual case when everything stops at once (Ctrl-C on make run): not a warning.
    if (ack.error.code === "unavailable") this.deps.log.info({ error: ack.error }, "no registry took the goodbye (it may be stopping too); the liveness sweep marks the agent offline");
    else this.deps.log.warn({ error: ack.error }, "could not announce the disconnect; the registry will mark the agent offline");
  }

  /** Takes a periodic snapshot unless a scan is running (then the next tick takes it). */
  async snapshot(): Promise<void> {
    try {
      const taken = await this.scans.tryRun(() => this.telemetry.collect(this.telemetry.snapshotTables, this.opts.scanBudgetMs));
      if (taken === null) {
        this.deps.log.debug("a scan is running; this snapshot is skipped");
        return;
      }
      const snap: Snapshot = { agent_id: this.identity.agent_id, hostname: this.identity.hostname, ...taken };
      // A plain publish, flushed: INQ_SNAPSHOTS sends no publish ack (no_ack), because JetStream would send it to any
      // reply subject the agent named, as the server, so a compromised agent could have it stored in any bucket key.
      this.deps.nc.publish(AGENT_SUBJECTS.snapshot(this.identity.agent_id), fitTables(snap, this.maxPayload()));
      await this.deps.nc.flush();
      this.snapshotCollectedAt = taken.collected_at;
    } catch (err) {
      this.deps.log.warn({ err }, "snapshot failed");
    }
  }

  private hello(): Promise<Ack> {
    const hello: Hello = { ...this.identity, heartbeat_interval_ms: this.opts.heartbeatMs };
    return this.send(AGENT_SUBJECTS.hello(this.identity.agent_id), hello);
  }

  /** One heartbeat; a registry that forgot the agent (`unknown_agent`) hears hello again first. */
  private async beat(): Promise<Ack> {
    const send = (): Promise<Ack> => {
      const beat: Heartbeat = { agent_id: this.identity.agent_id, snapshot_collected_at: this.snapshotCollectedAt };
      return this.send(AGENT_SUBJECTS.heartbeat(this.identity.agent_id), beat);
    };
    const ack = await send();
    if (ack.ok || ack.error.code !== "unknown_agent") return ack;
    const hello = await this.hello();
    return hello.ok ? send() : hello;
  }

  /** One heartbeat per tick, never two in flight. */
  private async heartbeat(): Promise<void> {
    if (this.beating || this.stopped) return;
    this.beating = true;
    try {
      const ack = await this.beat();
      if (!ack.ok) this.deps.log.debug({ error: ack.error }, "heartbeat not acknowledged");
    } finally {
      this.beating = false;
    }
  }

  /** Sends `message` until the registry acknowledges it (it may start after the agent), or the agent stops. */
  private async untilAcked(what: string, message: () => Promise<Ack>): Promise<void> {
    let wait = this.opts.retryMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      const ack = await message();
      if (ack.ok) return;
      if (ack.error.code === "invalid_message" || ack.error.code === "agent_mismatch") {
        throw new Error(`the agent registry refused ${what} of agent ${this.identity.agent_id}: ${ack.error.message}`);
      }
      if ("refusedBy" in ack && ack.refusedBy) {
        // NATS itself refused: sending again would be refused again, forever. Said once, and the agent stops.
        throw new ConfigError(
          `NATS refused this agent's ${what} on ${ack.refusedBy} (${ack.error.message}): its NATS user (NATS_NKEY_SEED_FILE) may only speak for the agent id it was made for; set INQUEST_AGENT_ID to that id (now ${this.identity.agent_id})`,
        );
      }
      if (this.stopped || this.deps.nc.isClosed() || this.deps.nc.isDraining()) throw new Error(`stopped before the registry acknowledged ${what}`);
      if (attempt === 5) this.deps.log.info(`still waiting for the agent registry (it runs in every runner) to acknowledge ${what}`);
      this.deps.log.debug({ error: ack.error, retry_ms: wait }, `${what} not acknowledged yet; sending it again`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(MAX_RETRY_MS, wait * 2);
    }
  }

  /**
   * One request to the registry; no answer (no registry yet, timeout, NATS trouble) is an `unavailable` ack. A
   * permission violation (credentials made for another agent id) is one too, marked `refusedBy` the subject.
   */
  private async send(subject: string, message: object, timeoutMs = REGISTRY_TIMEOUT_MS): Promise<Ack & { refusedBy?: string }> {
    try {
      const reply = await this.deps.nc.request(subject, encodeJson(message), { timeout: timeoutMs });
      const checked = ackChecker.check(decodeJson<unknown>(reply.data));
      return checked.ok ? checked.value : { ok: false, error: { code: "unavailable", message: "the registry's answer does not match the protocol" } };
    } catch (err) {
      // No registry yet, no answer in time, the connection going: retried quietly. Anything else is worth a
      // warning, and is retried all the same, but for a permission refusal, which start-up stops on (untilAcked).
      const message = err instanceof Error ? err.message : String(err);
      if (!isUnavailable(err)) this.deps.log.warn({ err, subject }, "could not reach the agent registry");
      return { ok: false, error: { code: "unavailable", message }, ...(isPermissionViolation(err) ? { refusedBy: subject } : {}) };
    }
  }

  /** Answers a plan: an invalid one at once with an error; a valid one after the running scan, if any. */
  private async answer(msg: Msg): Promise<void> {
    const received = this.deps.clock.now();
    let parsed: unknown = null;
    try {
      parsed = decodeJson<unknown>(msg.data);
    } catch {
      /* answered below as invalid */
    }
    const req = planRequestChecker.check(parsed);
    if (!req.ok) {
      this.deps.log.warn({ details: req.details }, "invalid plan request");
      const details = req.details.map((d) => `${d.path} ${d.message}`).join("; ");
      msg.respond(this.planError("invalid_plan", `the plan request does not match the protocol: ${details || "not JSON"}`));
      return;
    }
    const deadline = received + req.value.deadline_ms;
    let result: Collected;
    try {
      const scanned = await this.scans.run(async () => {
        const left = deadline - this.deps.clock.now();
        if (left < 0) return null;
        const budget = Math.max(0, left - Math.min(PLAN_REPLY_MARGIN_MS, req.value.deadline_ms / 4));
        return this.telemetry.collect(req.value.tables, Math.min(budget, this.opts.scanBudgetMs ?? budget));
      });
      if (scanned === null) {
        msg.respond(this.planError("deadline_passed", "the plan's deadline passed while another scan ran"));
        return;
      }
      result = scanned;
    } catch (err) {
      this.deps.log.warn({ err }, "a plan's scan failed");
      msg.respond(this.planError("failed", "the scan failed"));
      return;
    }
    const reply: PlanReply = { agent_id: this.identity.agent_id, ...result };
    let bytes: Uint8Array;
    try {
      bytes = fitTables(reply, this.maxPayload());
    } catch (err) {
      this.deps.log.warn({ err }, "a plan's answer could not be encoded");
      msg.respond(this.planError("failed", "the answer could not be encoded"));
      return;
    }
    msg.respond(bytes);
  }

  private planError(code: PlanError["error"]["code"], message: string): Uint8Array {
    const error: PlanError = { agent_id: this.identity.agent_id, error: { code, message } };
    return encodeJson(error);
  }

  private maxPayload(): number {
    return this.deps.nc.info?.max_payload ?? 1024 * 1024;
  }
}
