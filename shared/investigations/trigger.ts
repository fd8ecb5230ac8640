// Starting an investigation: the one code path behind POST /v1/investigations, the curiosity ticker and
// inbound webhooks. Every step is idempotent, so a retried trigger (same idempotency key) repairs a
// trigger that crashed half-way instead of creating a second investigation.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { AgentRecord } from "../agents/record.js";
import { resolveScope } from "../agents/record.js";
import { canonicalJson, sha256Hex } from "../canonical.js";
import { iso, type Clock } from "../clock.js";
import { envelope, publishEvent } from "../events.js";
import { newId } from "../ids.js";
import { SUBJECTS } from "../nats/catalog.js";
import { BusUnavailableError } from "../errors.js";
import { isNoResponders, isUnavailable } from "../nats/errors.js";
import { encodeJson, type JsonKv } from "../nats/kvjson.js";
import type { Depth, Mode, Scope } from "../schemas/common.js";
import type { Context, Freshness } from "../schemas/investigation.js";
import { computeFreshness, type FreshnessPlanner } from "./freshness.js";
import { eventData, type InvestigationRecord } from "./record.js";
import { triggerTooLarge } from "./trigger-bounds.js";
import { triggerRequestInvalid } from "./trigger-request.js";
import type { ValidationDetail } from "../validate.js";

export interface TriggerRequest {
  query: string;
  depth?: Depth | undefined;
  mode?: Mode | undefined;
  scope?: Scope | null | undefined;
}

export interface TriggerInput {
  request: TriggerRequest;
  /** Idempotency key as sent (header or body field); absent = no idempotency. */
  idempotencyKey?: string | undefined;
  /** Keys are per caller: the API key id, or e.g. `curiosity` / `inbound:<endpoint>`. */
  idempotencyScope: string;
  ownerKeyId: string | null;
  context: Context;
  seeds?: string[];
  /**
   * The id the investigation gets, fixed by a caller that must never make two of one thing however late it retries
   * (a curiosity run's, fixed when the run is claimed); absent, a new one. An idempotency record still answers
   * with the investigation it names.
   */
  investigationId?: string;
}

export type TriggerOutcome =
  /**
   * `body`: the 202 answer without links (services deal in ids; the gateway renders it with queuedResponseBody): the
   * stored text of a replay, or the object this trigger made (neither serialised nor parsed again for nothing).
   */
  | { kind: "queued"; investigationId: string; body: string | Record<string, unknown>; replayed: boolean }
  | { kind: "conflict" }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /**
   * A request the API would refuse (trigger-request.ts), or one whose own fields are over their bytes together
   * (trigger-bounds.ts): nothing was written. `details` as the API's validation answers them.
   */
  | { kind: "invalid"; details: ValidationDetail[] };

export interface IdempotencyRecord {
  request_hash: string;
  /** The original 202 body without links (the gateway adds them: queuedResponseBody), the same for a retry. */
  response_body: string;
  record: InvestigationRecord;
  created_at: string;
}

export interface TriggerDeps {
  js: JetStreamClient;
  investigations: JsonKv<InvestigationRecord>;
  idempotency: JsonKv<IdempotencyRecord>;
  listAgents(): Promise<AgentRecord[]>;
  planner: FreshnessPlanner;
  /** Messages waiting in the work queue. */
  backlog(): Promise<number>;
  /** Told after each new investigation is queued (lets a cached backlog count forward). */
  noteQueued?(): void;
  maxBacklog: number;
  clock: Clock;
}

const ESTIMATE_SECONDS: Record<Depth, number> = { quick: 5, standard: 15, deep: 45 };

/**
 * A bus failure before the work is published changed nothing anyone can see: the only write that may have
 * happened is the idempotency claim, and a retry with the same key finds it and queues the work then.
 */
async function beforeQueueing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUnavailable(err)) throw new BusUnavailableError("the message bus is unavailable; the investigation was not queued", { cause: err, changed: "nothing" });
    throw err;
  }
}

/**
 * Triggers an investigation. Throws BusUnavailableError when the bus fails before the work is known to be
 * queued (`changed` says whether it may have been); once the work message is acknowledged the answer is
 * `queued`, whatever fails after it (see ensureQueued).
 */
export async function triggerInvestigation(deps: TriggerDeps, input: TriggerInput): Promise<TriggerOutcome> {
  // Before anything is read or written: the request as the API checks it, then the bytes a record this large could
  // not be stored with the run's results in.
  const invalid = triggerRequestInvalid(input.request);
  if (invalid) return { kind: "invalid", details: invalid };
  const tooLarge = triggerTooLarge({ query: input.request.query, scope: input.request.scope, context: input.context, seeds: input.seeds });
  if (tooLarge) return { kind: "invalid", details: [tooLarge] };
  const idemKey = input.idempotencyKey === undefined ? null : `${sanitize(input.idempotencyScope)}.${sha256Hex(input.idempotencyKey)}`;
  // Only a keyed request is compared with an earlier one (canonical JSON and a digest: about 2 % of a POST).
  const requestHash = idemKey === null ? "" : sha256Hex(canonicalJson(input.request));

  for (let attempt = 0; attempt < 5; attempt++) {
    if (idemKey) {
      const existing = await beforeQueueing(() => deps.idempotency.get(idemKey));
      if (existing) {
        if (existing.value.request_hash !== requestHash) return { kind: "conflict" };
        await ensureQueued(deps, existing.value.record, true);
        return { kind: "queued", investigationId: existing.value.record.investigation_id, body: existing.value.response_body, replayed: true };
      }
    }
    const backlog = await beforeQueueing(() => deps.backlog());
    if (backlog >= deps.maxBacklog) return { kind: "rate_limited", retryAfterSeconds: 5 };

    const { record, response } = await beforeQueueing(() => draft(deps, input));
    if (idemKey) {
      // Only a keyed request keeps its answer as text, for its replays.
      const claimed = await beforeQueueing(() => deps.idempotency.create(idemKey, { request_hash: requestHash, response_body: JSON.stringify(response), record, created_at: record.started_at }));
      if (claimed === null) continue; // a concurrent identical request won: answer as it did
    }
    await ensureQueued(deps, record);
    deps.noteQueued?.();
    return { kind: "queued", investigationId: record.investigation_id, body: response, replayed: false };
  }
  throw new Error("idempotency record kept changing under a trigger");
}

async function draft(deps: TriggerDeps, input: TriggerInput): Promise<{ record: InvestigationRecord; response: Record<string, unknown> }> {
  const now = deps.clock.now();
  const id = input.investigationId ?? newId("inv", now);
  const depth = input.request.depth ?? "standard";
  const mode = input.request.mode ?? "auto";
  const scope = input.request.scope ?? null;
  let freshness: Freshness | null = null;
  if (mode !== "live") {
    const agents = resolveScope(await deps.listAgents(), scope);
    freshness = computeFreshness(agents, deps.planner.tablesFor(input.request.query, depth), (t) => deps.planner.ttlSeconds(t), now);
  }
  const record: InvestigationRecord = {
    investigation_id: id,
    status: "queued",
    query: input.request.query,
    depth,
    mode,
    scope,
    context: input.context,
    started_at: iso(now),
    running_at: null,
    completed_at: null,
    progress: null,
    summary: null,
    freshness,
    error: null,
    findings: [],
    report: null,
    internal: {
      owner_key_id: input.ownerKeyId,
      seeds: input.seeds ?? [],
      events: { queued: newId("evt", now), started: null, terminal: null, findings: {} },
      run_attempts: 0,
    },
  };
  const response: Record<string, unknown> = {
    investigation_id: id,
    status: "queued",
    estimated_completion_seconds: mode === "cached" ? 2 : ESTIMATE_SECONDS[depth],
  };
  if (freshness) response.freshness = freshness;
  return { record, response };
}

/**
 * Queues the work, then creates the record and announces it (those two at once: both come after the work is
 * durable, and neither failing changes the answer). The work message goes first and carries the record,
 * so a crash at any point leaves either nothing (the caller got no 202 and may retry) or work the runner can
 * finish on its own (it writes the record from the message when it is missing). A replay whose record exists
 * repeats only the announcement: its work was queued before the record was written.
 *
 * What a bus failure means here, decided by its type:
 *  - the publish found no stream (no responders): nothing was queued -> BusUnavailableError `nothing`;
 *  - the publish got no acknowledgement (timeout, connection lost): the server may have stored the message
 *    -> BusUnavailableError `unknown` (a retry with the same idempotency key republishes under the same
 *    msgID, which the stream deduplicates);
 *  - the publish was acknowledged and the record create failed: the investigation is queued and its record is
 *    written by the runner from the message, so the answer is queued (the record appears when the runner
 *    takes the work), not "nothing was changed".
 */
export async function ensureQueued(deps: Pick<TriggerDeps, "js" | "investigations">, record: InvestigationRecord, replay = false): Promise<void> {
  const id = record.investigation_id;
  const after: Array<Promise<void>> = [];
  if (!(replay && (await beforeQueueing(() => deps.investigations.get(id))))) {
    // The record is encoded once: it is the work message's body and the bucket's value.
    const recordBytes = encodeJson(record);
    try {
      await deps.js.publish(SUBJECTS.work, workMessage(id, recordBytes), { msgID: id });
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      const changed = isNoResponders(err) ? "nothing" : "unknown";
      throw new BusUnavailableError(`the message bus did not acknowledge the work of ${id}`, { cause: err, changed });
    }
    after.push(
      deps.investigations.createEncoded(id, recordBytes).then(
        () => {},
        (err: unknown) => {
          if (!isUnavailable(err)) throw err;
          // Queued: the work message carries the record and the runner creates it when missing (execute.ts).
        },
      ),
    );
  }
  after.push(
    publishQueuedEvent(deps, record).catch(() => {
      // The investigation is queued; the runner announces it when it starts (same event id), so the caller
      // still gets its 202 rather than an error that would invite a duplicate trigger.
    }),
  );
  await Promise.all(after);
}

/** The investigation.queued event; the runner repeats it when it starts, in case the trigger crashed before it. */
export async function publishQueuedEvent(deps: Pick<TriggerDeps, "js">, record: InvestigationRecord): Promise<void> {
  const queued: InvestigationRecord = { ...record, status: "queued", running_at: null, completed_at: null, progress: null, summary: null, error: null };
  await publishEvent(deps.js, envelope(record.internal.events.queued, "investigation.queued", Date.parse(record.started_at), eventData(queued)));
}

const utf8 = new TextEncoder();

/** The work message, `{"investigation_id":…,"record":…}`, built around the record's encoded bytes. */
export function workMessage(id: string, recordBytes: Uint8Array): Uint8Array {
  const head = utf8.encode(`{"investigation_id":${JSON.stringify(id)},"record":`);
  const out = new Uint8Array(head.length + recordBytes.length + 1);
  out.set(head);
  out.set(recordBytes, head.length);
  out[out.length - 1] = 0x7d; // }
  return out;
}

function sanitize(scope: string): string {
  return scope.replace(/[^A-Za-z0-9_-]/g, "_");
}
