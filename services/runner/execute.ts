// Running one investigation: queued -> running -> completed | failed (or cancelled from outside).
// Safe to repeat after a crash: state moves by compare-and-set, event ids are fixed in the record before
// they are published, and a terminal record only republishes its events.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AgentRecord } from "../../shared/agents/record.js";
import { resolveScope } from "../../shared/agents/record.js";
import { iso, type Clock } from "../../shared/clock.js";
import { envelope, publishEvent } from "../../shared/events.js";
import { newId } from "../../shared/ids.js";
import { publishTerminalEvent } from "../../shared/investigations/cancel.js";
import { publishQueuedEvent } from "../../shared/investigations/trigger.js";
import { eventData, type InvestigationRecord } from "../../shared/investigations/record.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import type { Logger } from "../../shared/log.js";
import { isTerminal, type Finding, type Progress } from "../../shared/schemas/investigation.js";
import { collect } from "./collect.js";
import type { CoverageInput, EngineFinding, HostData, Report, RoutePlan } from "../../shared/engine/types.js";

export interface Engine {
  routeQuery(query: string, depth: "quick" | "standard" | "deep"): RoutePlan;
  runInvestigation(plan: RoutePlan, hosts: HostData[], coverage: CoverageInput, depth: "quick" | "standard" | "deep"): Report;
}

export interface ExecuteDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  investigations: JsonKv<InvestigationRecord>;
  listAgents(): AgentRecord[];
  engine: Engine;
  clock: Clock;
  log: Logger;
  publicUrl: string;
  /** Live plan deadline per depth. */
  deadlines: Record<"quick" | "standard" | "deep", number>;
  /** Findings of the previous run of the same curiosity item, to mark what is new (null: not a curiosity run). */
  previousFindings?(record: InvestigationRecord): Promise<EngineFinding[] | null>;
  markNew?(previous: EngineFinding[], current: EngineFinding[]): boolean[];
}

export type ExecuteOutcome = "done" | "not_found" | "duplicate";

export interface WorkMessage {
  /** The initial record the trigger queued with the work (written here if the trigger crashed before it). */
  carried: InvestigationRecord | null;
  /** First delivery of this message: a run already `running` then belongs to another message. */
  firstDelivery: boolean;
}

export async function executeInvestigation(deps: ExecuteDeps, id: string, signal: AbortSignal, work: WorkMessage): Promise<ExecuteOutcome> {
  const now = deps.clock.now();
  let initial = await deps.investigations.get(id);
  if (!initial && work.carried?.investigation_id === id) {
    await deps.investigations.create(id, work.carried);
    initial = await deps.investigations.get(id);
  }
  if (!initial) return "not_found";
  // A second work message for the same run (a replayed trigger after the duplicate window) must not start
  // it again while the first is running; a crashed run comes back as a redelivery of its own message.
  if (work.firstDelivery && initial.value.status === "running") return "duplicate";
  // The trigger may have crashed after writing the record and before announcing it; repeats keep the event id.
  await publishQueuedEvent(deps, initial.value);
  const started = await deps.investigations.update(id, (r) => {
    if (isTerminal(r.status)) return null;
    return {
      ...r,
      status: "running",
      running_at: r.running_at ?? iso(now),
      progress: { phase: "resolving", plans_total: 0, plans_completed: 0, agents_targeted: 0, agents_responded: 0, agents_unreachable: 0 },
      internal: { ...r.internal, run_attempts: r.internal.run_attempts + 1, events: { ...r.internal.events, started: r.internal.events.started ?? newId("evt", now) } },
    };
  });
  if (!started) return "not_found";
  let record = started.value;
  if (isTerminal(record.status)) {
    await republishTerminal(deps, record);
    return "done";
  }
  const startedEvent = record.internal.events.started as string;
  await publishEvent(deps.js, envelope(startedEvent, "investigation.started", Date.parse(record.running_at ?? record.started_at), eventData(record, deps.publicUrl)));

  const plan = deps.engine.routeQuery(record.query, record.depth);
  const agents = resolveScope(deps.listAgents(), record.scope);
  const progress: Progress = { phase: "collecting", plans_total: agents.length, plans_completed: 0, agents_targeted: agents.length, agents_responded: 0, agents_unreachable: 0 };
  record = (await writeProgress(deps, id, progress)) ?? record;

  const flusher = startProgressFlusher(deps, id, progress);
  const collected = await collect(
    { nc: deps.nc, jsm: deps.jsm },
    { investigationId: id, agents, tables: plan.tables, mode: record.mode, deadlineMs: deps.deadlines[record.depth], signal },
    (kind) => {
      progress.plans_completed += 1;
      if (kind === "responded") progress.agents_responded += 1;
      else progress.agents_unreachable += 1;
      flusher.dirty();
    },
  );
  await flusher.stop();

  progress.phase = "analysing";
  const coverage: CoverageInput = { mode: record.mode, agents_targeted: agents.length, agents_responded: collected.hosts.length, unreachable: collected.unreachable };
  const report = deps.engine.runInvestigation(plan, collected.hosts, coverage, record.depth);
  const previous = deps.previousFindings ? await deps.previousFindings(record) : null;
  const isNew = previous && deps.markNew ? deps.markNew(previous, report.findings) : null;
  const end = deps.clock.now();
  const findings: Finding[] = report.findings.map((f, i) => ({ finding_id: newId("fnd", end), ...f, ...(isNew ? { new_since_last_run: isNew[i] ?? true } : {}) }));
  const { findings: _omit, ...reportRest } = report;
  void _omit;

  const final = await deps.investigations.update(id, (r) => {
    if (r.status === "cancelled") {
      // Cancelled while collecting: keep what was found as partial results.
      if (r.findings.length > 0 || r.report) return null;
      return { ...r, findings, report: { ...reportRest, partial: true }, progress: { ...progress, phase: "cancelled" } };
    }
    if (isTerminal(r.status)) return null;
    return {
      ...r,
      status: "completed",
      completed_at: iso(end),
      progress: { ...progress, phase: "done" },
      summary: { narrative: report.narrative, severity: report.severity, verdict: report.verdict, findings_count: findings.length, route: report.route },
      findings,
      report: reportRest as unknown as Record<string, unknown>,
      internal: { ...r.internal, events: { ...r.internal.events, terminal: newId("evt", end), findings: Object.fromEntries(findings.map((f) => [f.finding_id, newId("evt", end)])) } },
    };
  });
  if (final) await republishTerminal(deps, final.value);
  return "done";
}

/** Marks a run failed (a bug or repeated crashes), keeping whatever progress it had. */
export async function failInvestigation(deps: ExecuteDeps, id: string, code: string, message: string): Promise<void> {
  const now = deps.clock.now();
  const result = await deps.investigations.update(id, (r) =>
    isTerminal(r.status)
      ? null
      : { ...r, status: "failed", completed_at: iso(now), error: { code, message }, internal: { ...r.internal, events: { ...r.internal.events, terminal: newId("evt", now) } } },
  );
  if (result) await republishTerminal(deps, result.value);
}

/** The events of a terminal record: its findings, then the terminal event. Repeats reuse the stored ids. */
async function republishTerminal(deps: ExecuteDeps, r: InvestigationRecord): Promise<void> {
  if (r.status === "completed") {
    for (const f of r.findings) {
      const eventId = r.internal.events.findings[f.finding_id];
      if (eventId) await publishEvent(deps.js, envelope(eventId, "finding.discovered", Date.parse(r.completed_at ?? r.started_at), { investigation_id: r.investigation_id, finding: f }));
    }
  }
  await publishTerminalEvent(deps.js, r, deps.publicUrl);
}

async function writeProgress(deps: ExecuteDeps, id: string, progress: Progress): Promise<InvestigationRecord | null> {
  const snapshot = { ...progress };
  const result = await deps.investigations.update(id, (r) => (r.status === "running" ? { ...r, progress: snapshot } : null));
  return result?.value ?? null;
}

/** Coalesces progress writes: at most one every 200 ms while answers arrive. */
function startProgressFlusher(deps: ExecuteDeps, id: string, progress: Progress): { dirty(): void; stop(): Promise<void> } {
  let pending = false;
  let writing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (!pending) return;
    pending = false;
    writing = writing.then(() => writeProgress(deps, id, progress)).catch((err: unknown) => deps.log.warn({ err, id }, "progress write failed"));
  }, 200);
  return {
    dirty: () => {
      pending = true;
    },
    async stop() {
      clearInterval(timer);
      await writing;
      await writeProgress(deps, id, progress);
    },
  };
}
