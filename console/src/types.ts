// The API's shapes as the console reads them (openapi.json is the authority; unknown fields are ignored).
import type { Scope } from "./format.js";

export interface Progress {
  phase: string;
  plans_total: number;
  plans_completed: number;
  agents_targeted: number;
  agents_responded: number;
  agents_unreachable: number;
}

export interface Freshness {
  data_age_seconds: number | null;
  stale_agents: number;
  agents_without_snapshot: number;
  recommendation: { should_rerun_live: boolean; recommended_scope: Scope | null; reason: string };
}

export interface Evidence {
  table: string;
  row: Record<string, unknown>;
  collected_at: string | null;
}

export interface Finding {
  finding_id: string;
  detection_id: string;
  title: string;
  severity: string;
  confidence: number;
  agent_id: string;
  hostname: string;
  summary: string;
  evidence: Evidence[];
  attack: string[];
  new_since_last_run?: boolean;
}

export interface Investigation {
  investigation_id: string;
  status: string;
  query: string;
  depth: string;
  mode: string;
  scope: Scope | null;
  context: { trigger_source: string; curiosity_id: string | null; previous_investigation_id?: string | null };
  started_at: string;
  running_at: string | null;
  completed_at: string | null;
  progress: Progress | null;
  summary: { narrative: string; severity: string; verdict: string; findings_count: number; route: string } | null;
  freshness: Freshness | null;
  error: { code: string; message: string } | null;
  findings?: Finding[];
  findings_total?: number;
  report?: Report | null;
}

export interface Report {
  narrative?: string;
  severity_reason?: string;
  routing_rationale?: string[];
  severity_inputs?: Array<{ detection_id: string; agent_id: string; impact: number; precision: number; asset_weight: number; score: number; base_severity?: string; maturity?: string; exact_ioc?: boolean; severity?: string }>;
  paths?: Array<{ nodes: string[]; score: number; explanation: string; labels?: string[]; links?: Array<{ type: string; forward: boolean }> }>;
  choke_points?: string[];
  coverage_gaps?: string[];
  next_steps?: Record<string, string[]>;
  timeline?: Array<{ time: string; agent_id: string; hostname: string; event: string; detection_id: string }>;
}

export interface Agent {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  edr_device_id: string | null;
  status: string;
  last_seen_at: string | null;
  snapshot_collected_at: string | null;
}
