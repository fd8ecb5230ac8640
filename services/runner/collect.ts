// Gathering rows for an investigation: live plans answered by agents over NATS request/reply within a
// deadline, or each agent's latest snapshot from the snapshots stream (cached), or both (auto).
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { MAX_ROW_DEPTH, rowsWithinDepth } from "../../shared/agents/protocol.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { PlanReply, SUBJECTS, STREAMS, Snapshot, type PlanRequest } from "../../shared/nats/catalog.js";
import { decodeText, encodeJson } from "../../shared/nats/kvjson.js";
import { isNoResponders, isNotFound, isTimeout } from "../../shared/nats/errors.js";
import type { Mode } from "../../shared/schemas/common.js";
import { checker } from "../../shared/validate.js";
import { Cancellation } from "../../shared/cancellation.js";
import { forEachLimited } from "../../shared/concurrency.js";
import { iso } from "../../shared/clock.js";
import { collectedHost, type CollectedHost } from "./engine-protocol.js";
import { claimedSnapshotTime } from "./registry.js";

const planReply = checker(PlanReply);
/**
 * Plan requests and snapshot reads in flight at once. Ten thousand at once made every answer arrive in one burst
 * (each with its promise, timer and parsed body), which set the runner's peak memory; a bound smooths the burst
 * while the whole collection keeps its one deadline.
 */
const LIVE_IN_FLIGHT = 1_000;
const CACHED_IN_FLIGHT = 256;
const snapshotMsg = checker(Snapshot);
/** The reason of a plan a cancel ended. */
const CANCELLED = "cancelled";

export interface CollectDeps {
  nc: NatsConnection;
  jsm: JetStreamManager;
}

export interface CollectResult {
  /** Agents whose rows were handed to `sink.responded`. */
  responded: number;
  unreachable: Array<{ agent_id: string; hostname: string; reason: string }>;
}

/** Where the collection goes as it happens: each host's checked answer, and each agent that gave none (but for a cancel). */
export interface CollectSink {
  responded(host: CollectedHost): void;
  unreachable(): void;
}

export interface CollectRequest {
  investigationId: string;
  agents: AgentRecord[];
  tables: string[];
  mode: Mode;
  deadlineMs: number;
  signal: AbortSignal;
}

/**
 * When an answer's rows were collected, as every evidence row of a finding carries it (UTC, milliseconds): the agent's
 * word, unless it is more than the registry's skew (SNAPSHOT_CLOCK_SKEW_MS) ahead of the answer's arrival or names no
 * instant (23:59:60), as the registry judges a heartbeat's snapshot time (claimedSnapshotTime). Rows are not newer
 * than their arrival, so that is taken instead: the runner's receipt of a plan answer, the stream's storage of a
 * snapshot. Not refused: an honest agent on a fast clock would never be heard. A snapshot's storage time is fixed, so
 * a snapshot from the future does not look fresh in every later run either.
 */
export function answeredAt(claimed: string, arrivedMs: number): string {
  return claimedSnapshotTime(claimed, arrivedMs) ?? iso(arrivedMs);
}

/** Which agents get a live plan: every agent in live mode, agents without a snapshot in auto mode. */
export function planTargets(mode: Mode, agents: AgentRecord[]): { live: AgentRecord[]; cached: AgentRecord[] } {
  if (mode === "live") return { live: agents, cached: [] };
  if (mode === "cached") return { live: [], cached: agents };
  return {
    live: agents.filter((a) => !a.snapshot_collected_at && a.status === "online"),
    cached: agents.filter((a) => a.snapshot_collected_at || a.status !== "online"),
  };
}

/** Asks every agent in scope; each answer goes to `sink` as it arrives (none is kept here). */
export async function collect(deps: CollectDeps, req: CollectRequest, sink: CollectSink): Promise<CollectResult> {
  const { live, cached } = planTargets(req.mode, req.agents);
  let responded = 0;
  const unreachable: CollectResult["unreachable"] = [];
  const settle = (agent: AgentRecord, r: CollectedHost | string): void => {
    if (typeof r === "string") {
      unreachable.push({ agent_id: agent.agent_id, hostname: agent.hostname, reason: r });
      // A plan a cancel ended is neither completed nor a sign the agent is unreachable: progress stays as the cancel
      // found it (the report still lists the agent, "cancelled").
      if (r !== CANCELLED) sink.unreachable();
    } else {
      responded++;
      sink.responded(r);
    }
  };
  // One abort listener for the whole collection, however many agents it asks, and nothing kept of a plan once it is
  // answered (shared/cancellation.ts).
  const cancellation = new Cancellation(req.signal);
  // One deadline for the whole collection: an agent asked late (behind the in-flight bound) gets what is left.
  const deadlineAt = Date.now() + req.deadlineMs;
  try {
    await Promise.all([
      forEachLimited(live, LIVE_IN_FLIGHT, async (a) => settle(a, await livePlan(deps.nc, a, req, deadlineAt, cancellation))),
      forEachLimited(cached, CACHED_IN_FLIGHT, async (a) => settle(a, await cachedAnswer(deps, a, req, deadlineAt, cancellation))),
    ]);
  } finally {
    cancellation.release();
  }
  const byId = (x: { agent_id: string }, y: { agent_id: string }): number => (x.agent_id < y.agent_id ? -1 : x.agent_id > y.agent_id ? 1 : 0);
  return { responded, unreachable: unreachable.sort(byId) };
}

async function livePlan(nc: NatsConnection, agent: AgentRecord, req: CollectRequest, deadlineAt: number, cancellation: Cancellation): Promise<CollectedHost | string> {
  if (req.signal.aborted) return CANCELLED;
  const left = deadlineAt - Date.now();
  if (left <= 0) return "timed out";
  const plan: PlanRequest = { investigation_id: req.investigationId, tables: req.tables, deadline_ms: left };
  try {
    const msg = await cancellation.race(nc.request(SUBJECTS.plan(agent.agent_id), encodeJson(plan), { timeout: left }));
    if (msg === null) return CANCELLED;
    const arrivedMs = Date.now();
    const text = decodeText(msg.data);
    const reply = planReply.check(JSON.parse(text));
    if (!reply.ok) return "invalid plan answer";
    if (!rowsWithinDepth(reply.value.tables)) return `invalid plan answer (row values nested over ${MAX_ROW_DEPTH} deep)`;
    return collectedHost({ agent_id: agent.agent_id, hostname: agent.hostname, tags: agent.tags, collected_at: answeredAt(reply.value.collected_at, arrivedMs) }, text, reply.value.tables, req.tables, reply.value.truncated);
  } catch (err) {
    return isNoResponders(err) ? "offline (no agent answered)" : isTimeout(err) ? "timed out" : `plan failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The agent's latest snapshot; in auto mode, an online agent whose snapshot the stream does not hold is asked live.
 * Its heartbeat said when it took one, but agents publish snapshots without JetStream's ack (an ack goes to a reply
 * subject the publisher names: docs/architecture.md, agent protocol), so a snapshot lost before it was stored is not known to it.
 */
async function cachedAnswer(deps: CollectDeps, agent: AgentRecord, req: CollectRequest, deadlineAt: number, cancellation: Cancellation): Promise<CollectedHost | string> {
  const snapshot = await latestSnapshot(deps.jsm, agent, req.tables);
  if (snapshot === "no snapshot" && req.mode === "auto" && agent.status === "online") return livePlan(deps.nc, agent, req, deadlineAt, cancellation);
  return snapshot;
}

async function latestSnapshot(jsm: JetStreamManager, agent: AgentRecord, tables: string[]): Promise<CollectedHost | string> {
  try {
    const stored = await jsm.streams.getMessage(STREAMS.snapshots.name, { last_by_subj: SUBJECTS.snapshot(agent.agent_id) });
    if (!stored) return "no snapshot";
    const text = decodeText(stored.data);
    const snap = snapshotMsg.check(JSON.parse(text));
    if (!snap.ok) return "unreadable snapshot";
    if (!rowsWithinDepth(snap.value.tables)) return `unreadable snapshot (row values nested over ${MAX_ROW_DEPTH} deep)`;
    return collectedHost({ agent_id: agent.agent_id, hostname: agent.hostname, tags: agent.tags, collected_at: answeredAt(snap.value.collected_at, stored.time.getTime()) }, text, snap.value.tables, tables, snap.value.truncated);
  } catch (err) {
    return isNotFound(err) ? "no snapshot" : `snapshot unreadable: ${err instanceof Error ? err.message : String(err)}`;
  }
}
