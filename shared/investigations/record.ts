// The stored investigation: the public detail plus bookkeeping the API never shows.
import type { Depth, Mode, Scope } from "../schemas/common.js";
import type { Context, Finding, Freshness, InvestigationDetail, InvestigationListItem, InvestigationStatus, Progress, Summary } from "../schemas/investigation.js";
import type { InvestigationEventData } from "../schemas/events.js";
import type { FindingsRef } from "./findings.js";

export interface InvestigationRecord {
  investigation_id: string;
  status: InvestigationStatus;
  query: string;
  depth: Depth;
  mode: Mode;
  scope: Scope | null;
  context: Context;
  started_at: string;
  running_at: string | null;
  completed_at: string | null;
  progress: Progress | null;
  summary: Summary | null;
  freshness: Freshness | null;
  error: { code: string; message: string } | null;
  /** The most severe findings, up to a bound; every finding is in the findings bucket (docs/nats.md#findings). */
  findings: Finding[];
  /** How many findings the run found (absent on records from before findings were stored apart: `findings.length`). */
  findings_total?: number;
  report: Record<string, unknown> | null;
  /** Not shown: ids of the events this investigation emits, fixed once so retries repeat the same ids. */
  internal: {
    owner_key_id: string | null;
    seeds: string[];
    events: { queued: string; started: string | null; terminal: string | null; findings: Record<string, string> };
    /** How many times a runner has started this run (a crash restarts it). */
    run_attempts: number;
    /**
     * How many of those attempts stopped on an error and handed the run back at once (a NATS write refused during an
     * election, an engine thread that died): retried with a growing delay, not counted as crashes (absent: none).
     */
    handed_back?: number;
    /**
     * How many of the handed_back attempts were stopped by their runner shutting down (SIGTERM, a rolling restart)
     * rather than by an error: still counted toward the limit, but named apart when the run is given up (absent: none).
     */
    shutdowns?: number;
    /**
     * The runner working on it: a token per run attempt, renewed while it works (absent on records written
     * before leases). A running record whose lease has not expired belongs to that attempt and no other.
     */
    lease?: { token: string; until: string } | null;
    /** The committed attempt's chunks in the findings bucket (absent: the record's findings are all there are). */
    findings_ref?: FindingsRef | null;
  };
}

export function links(publicUrl: string, id: string): { self: string; cancel: string } {
  const self = `${publicUrl}/v1/investigations/${id}`;
  return { self, cancel: self };
}

/** What a list shows of a record (all toListItem reads): what the gateway's read model keeps of each. */
export type InvestigationView = Pick<
  InvestigationRecord,
  "investigation_id" | "status" | "query" | "depth" | "mode" | "scope" | "context" | "started_at" | "running_at" | "completed_at" | "progress" | "summary" | "freshness" | "error"
>;

/** The record without what only its detail shows (findings, report) or nobody outside sees (`internal`). */
export function investigationView(r: InvestigationView): InvestigationView {
  return {
    investigation_id: r.investigation_id,
    status: r.status,
    query: r.query,
    depth: r.depth,
    mode: r.mode,
    scope: r.scope,
    context: r.context,
    started_at: r.started_at,
    running_at: r.running_at,
    completed_at: r.completed_at,
    progress: r.progress,
    summary: r.summary,
    freshness: r.freshness,
    error: r.error,
  };
}

export function toListItem(r: InvestigationView, publicUrl: string): InvestigationListItem {
  return { ...investigationView(r), links: links(publicUrl, r.investigation_id) };
}

export function toDetail(r: InvestigationRecord, publicUrl: string): InvestigationDetail {
  return { ...toListItem(r, publicUrl), findings: r.findings, findings_total: findingsTotal(r), report: r.report };
}

export function findingsTotal(r: InvestigationRecord): number {
  return r.findings_total ?? r.findings.length;
}

/** The event payload of investigation.* events: the investigation as the list shows it, without links (docs/api.md#webhooks). */
export function eventData(r: InvestigationRecord): InvestigationEventData {
  return {
    investigation_id: r.investigation_id,
    status: r.status,
    query: r.query,
    depth: r.depth,
    mode: r.mode,
    scope: r.scope,
    context: r.context,
    started_at: r.started_at,
    completed_at: r.completed_at,
    summary: r.summary,
  };
}

/**
 * The 202 answer to a trigger as the gateway sends it: the trigger's answer (ids only) with the links added. `body`
 * is a replay's stored text or the object a new trigger made. A body stored before triggers stopped rendering links
 * gets them replaced in place, so replays stay identical.
 */
export function queuedResponseBody(body: string | Record<string, unknown>, publicUrl: string): string {
  const { freshness, ...rest } = typeof body === "string" ? (JSON.parse(body) as Record<string, unknown>) : body;
  return JSON.stringify({ ...rest, links: links(publicUrl, String(rest.investigation_id)), ...(freshness === undefined ? {} : { freshness }) });
}
