// The stored curiosity item: the public item (docs/api.md#curiosity) plus the ticker's bookkeeping, never shown.
import type { TriggerRequest } from "../investigations/trigger.js";
import { triggerTooLarge } from "../investigations/trigger-bounds.js";
import type { Depth, Scope } from "../schemas/common.js";
import type { Context } from "../schemas/investigation.js";
import type { ValidationDetail } from "../validate.js";
import type { CuriosityItem } from "./schemas.js";

/** The run a ticker has claimed and not yet finished. */
export interface InFlightRun {
  /** Run number (from 1): the trigger id is `<item id>:<run>`. */
  run: number;
  claimed_at: string;
  /** The request as it was when the run was claimed, so a retried trigger sends the identical body. */
  request: TriggerRequest;
  /** Null until the trigger answered (a ticker that crashed in between retries with the same key). */
  investigation_id: string | null;
  /**
   * The id its investigation gets, fixed when the run is claimed: a trigger retried at any time later (after a
   * crash, a pause, the idempotency record's 24 h expiry) finds or makes that one investigation, never a second.
   * Absent in runs claimed before it was kept.
   */
  reserved_investigation_id?: string;
  /** A PATCH of first_run_at during the run pins next_run_at: the end of the run leaves it alone. */
  keep_next_run_at: boolean;
}

export interface CuriosityRecord {
  id: string;
  query: string;
  interval: string;
  scope: Scope | null;
  depth: Depth;
  first_run_at: string;
  active: boolean;
  next_run_at: string;
  created_at: string;
  updated_at: string;
  last_run_at: string | null;
  last_investigation_id: string | null;
  run_count: number;
  internal: {
    /** The API key that created the item: the owner of the investigations it triggers. */
    owner_key_id: string | null;
    in_flight: InFlightRun | null;
    /** What next_run_at counts from: first_run_at (until a run ends after it was set) or the last run's end. */
    anchor: "first_run_at" | "last_run";
    /** The latest run that completed (not failed or cancelled): what "new since last run" compares with. */
    last_completed_investigation_id: string | null;
  };
}

export function toItem(r: CuriosityRecord): CuriosityItem {
  return {
    id: r.id,
    query: r.query,
    interval: r.interval,
    scope: r.scope,
    depth: r.depth,
    first_run_at: r.first_run_at,
    active: r.active,
    next_run_at: r.next_run_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    last_run_at: r.last_run_at,
    last_investigation_id: r.last_investigation_id,
    run_count: r.run_count,
  };
}

/** docs/api.md#curiosity: `context.trigger_id` of run `run` (from 1) of item `id`. */
export function runTriggerId(id: string, run: number): string {
  return `${id}:${run}`;
}

/** The investigation `context` of run `run` of item `id`; `previous`: the item's last completed run, compared with. */
export function runContext(id: string, run: number, previous: string | null): Context {
  return { trigger_source: "curiosity", trigger_id: runTriggerId(id, run), curiosity_id: id, inbound_endpoint_id: null, previous_investigation_id: previous };
}

/**
 * Why the runs of item `id` with this question and scope could not be triggered (too large to store, see
 * trigger-bounds.ts), or null: checked when the item is created or changed, so that every run it claims can start.
 */
export function runsTooLarge(id: string, request: { query: string; scope: Scope | null }): ValidationDetail | null {
  // The largest context a run has: a run number of the most digits, a previous run to compare with.
  return triggerTooLarge({ ...request, context: runContext(id, Number.MAX_SAFE_INTEGER, `inv_${"0".repeat(26)}`) });
}

/** The run number a curiosity run's `context.trigger_id` names (runTriggerId's inverse). */
export function runOfTriggerId(triggerId: string): number {
  return Number(triggerId.slice(triggerId.lastIndexOf(":") + 1));
}

/** The idempotency scope of curiosity triggers: the trigger id is the key within it. */
export const CURIOSITY_IDEMPOTENCY_SCOPE = "curiosity";
