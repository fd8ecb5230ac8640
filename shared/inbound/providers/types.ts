// The contract every inbound provider implements (docs/api.md#inbound). Providers are pure: the receiver hands them the
// request (lower-cased header names, raw bytes, the clock) and acts on the value they return.

import type { ValidationDetail } from "../../validate.js";

export type ProviderName = "generic" | "edr" | "ci";
export type Depth = "quick" | "standard" | "deep";
export type Mode = "auto" | "cached" | "live";

export const DEPTHS: readonly Depth[] = ["quick", "standard", "deep"];
export const MODES: readonly Mode[] = ["auto", "cached", "live"];

/** Investigation scope: tags AND together; `agent_ids` is the extension inbound events use. */
export interface Scope {
  type: "selector";
  filter: { tags?: Record<string, string>; agent_ids?: string[] };
}

/** What a provider may know about the endpoint a request arrived on. */
export interface InboundEndpointView {
  id: string;
  provider: ProviderName;
  /** null = every agent. */
  default_scope: Scope | null;
  default_depth: Depth;
}

export interface InboundRequest {
  /** Header names lower-cased. */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** Unix seconds, from the receiver's clock. */
  nowSeconds: number;
}

export type Verification = "ok" | "bad_signature";

/**
 * Where the investigation runs: the resolved `scope`; the agent whose `edr_device_id` matches; or the agents
 * within `scope` (a repository's CI runners) whose `hostname` equals a CI runner's name. The receiver resolves
 * the last two through the agent directory and falls back to `scope` (saying so in the query) when none matches.
 */
export type Target =
  | { kind: "scope" }
  | { kind: "edr_device"; device_id: string }
  | { kind: "ci_runner"; hostname: string; repository: string };

export interface TriggerInterpretation {
  kind: "trigger";
  /** Plain-English question, 1..2000 characters. */
  query: string;
  depth: Depth;
  /**
   * For `scope` targets: the scope. For `edr_device` targets: the fallback when no agent has that device id.
   * For `ci_runner` targets: the repository's CI runners, among which the runner is looked up and the fallback.
   * null = every agent.
   */
  scope: Scope | null;
  target: Target;
  trigger_id: string;
  idempotency_key?: string;
  mode?: Mode;
  /** Entities for the pathfinder: file hash, command line, user. */
  seeds?: string[];
}

export type Interpretation =
  | { kind: "ignored"; reason: string }
  /** Answered 400 `validation_failed`; `path` is a JSON pointer into the body when one field is at fault. */
  | { kind: "invalid"; message: string; path?: string; details?: ValidationDetail[] }
  | TriggerInterpretation;

export interface Provider<N extends ProviderName = ProviderName> {
  readonly name: N;
  /** Called only when the endpoint has a signing secret. */
  verify(req: InboundRequest, signingSecret: string): Verification;
  /**
   * The part of a verified request that must be accepted only once (docs/api.md#inbound-replay-protection):
   * a signature bound to a timestamp window. Absent for providers whose signature has no window (`ci`).
   */
  onceOnly?(req: InboundRequest): string | null;
  /**
   * The JSON a form-encoded body (`application/x-www-form-urlencoded`) carries in this field, for a provider whose
   * sender may post forms: GitHub's webhooks default to `payload=<url-encoded JSON>`. Absent: bodies are JSON.
   */
  readonly formField?: string;
  /** `body` is the parsed JSON of `req.rawBody`; `receiptId` identifies this receipt when the event has no id. */
  interpret(req: InboundRequest, body: unknown, endpoint: InboundEndpointView, receiptId: string): Interpretation;
}
