// What a chaos run must end with (docs/operations.md#chaos): every accepted investigation terminal, every event
// of a subscribed type delivered at least once, no curiosity run doubled or skipped. Waits for the system to settle
// (bounded), then counts what is still missing as lost.
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { runOfTriggerId } from "../../shared/curiosity/record.js";
import { BUCKETS, STREAMS } from "../../shared/nats/catalog.js";
import { sleep } from "../../shared/clock.js";

export interface Verdict {
  investigationsAccepted: number;
  investigationsNotTerminal: string[];
  /**
   * Not terminal although their terminal event is in EVENTS: the runner's compare-and-set of the terminal record was
   * acknowledged, then the record read back as running. The broker lost an acknowledged KV write
   * (docs/operations.md#chaos-findings); counted apart from what Inquest itself lost.
   */
  ackedWritesLost: string[];
  /** The last status seen of each investigation not terminal. */
  notTerminalStatus: Map<string, string>;
  eventsExpected: number;
  eventsUndelivered: string[];
  deliveriesReceived: number;
  duplicateDeliveries: number;
  curiosityRuns: number;
  curiosityDoubled: number;
  curiositySkipped: number;
  /** Runs the investigations bucket holds that the gateway's list did not show when checked (its copy was late). */
  curiosityListedLate: number;
  /**
   * Each item whose listed runs are doubled or have a gap: the run numbers the gateway lists and those the
   * investigations bucket holds, so a report tells a run the ticker never triggered from one the list missed.
   */
  curiosityGaps: Array<{ id: string; listed: number[]; inBucket: number[] }>;
  /**
   * Each run after an item's first: when it was due (the previous run's end + the item's interval, as the ticker
   * re-queues it) and how long after that it started (`started_at`, the trigger accepted). The contract: within 1 s.
   */
  curiosityLateness: RunLateness[];
  settleMs: number;
}

export interface RunLateness {
  id: string;
  run: number;
  dueMs: number;
  lateMs: number;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export interface VerifyInput {
  gateway: string;
  key: string;
  nc: NatsConnection;
  accepted: Set<string>;
  /** event_id of every webhook POST the receiver got (duplicates included). */
  received: () => string[];
  subscribedTypes: string[];
  subscribedSince: Date;
  curiosityIds: string[];
  /** The items' interval, ms (what their runs' lateness is counted from). */
  curiosityIntervalMs: number;
  settleTimeoutMs: number;
}

export async function verify(input: VerifyInput): Promise<Verdict> {
  const started = Date.now();
  let pending = [...input.accepted];
  const lastStatus = new Map<string, string>();
  let undelivered: string[] = [];
  let expected: string[] = [];
  let announced = new Set<string>();
  while (Date.now() - started < input.settleTimeoutMs) {
    pending = await notTerminal(input, pending, lastStatus);
    ({ expected, announced } = await subscribedEvents(input));
    const got = new Set(input.received());
    undelivered = expected.filter((id) => !got.has(id));
    if (pending.length === 0 && undelivered.length === 0) break;
    await sleep(1_000);
  }
  const settleMs = Date.now() - started;
  const received = input.received();
  const runs = await curiosityRuns(input);
  const numbersOf = (list: Run[], id: string): number[] => list.filter((r) => r.curiosity_id === id).map((r) => r.run).sort((a, b) => a - b);
  let doubled = 0;
  let skipped = 0;
  const irregular: Array<{ id: string; listed: number[] }> = [];
  for (const id of input.curiosityIds) {
    const listed = numbersOf(runs, id);
    const before = doubled + skipped;
    doubled += listed.length - new Set(listed).size;
    const max = Math.max(0, ...listed);
    for (let n = 1; n <= max; n++) if (!listed.includes(n)) skipped++;
    if (doubled + skipped > before) irregular.push({ id, listed });
  }
  const stored = irregular.length > 0 ? await curiosityRunsInBucket(input.nc).catch(() => [] as Run[]) : [];
  const curiosityGaps = irregular.map(({ id, listed }) => ({ id, listed, inBucket: numbersOf(stored, id) }));
  // A run the bucket holds but the gateway's list lacks was not skipped: the list is late (its copy of the bucket
  // missed the write; docs/nats.md#kv-watch). Skipped counts only runs in neither; the late ones are reported apart.
  let listedLate = 0;
  if (stored.length > 0) {
    skipped = 0;
    for (const id of input.curiosityIds) {
      const listed = numbersOf(runs, id);
      const held = new Set([...listed, ...numbersOf(stored, id)]);
      const max = Math.max(0, ...held);
      for (let n = 1; n <= max; n++) {
        if (!held.has(n)) skipped++;
        else if (!listed.includes(n)) listedLate++;
      }
    }
  }
  return {
    investigationsAccepted: input.accepted.size,
    investigationsNotTerminal: pending.filter((id) => !announced.has(id)),
    ackedWritesLost: pending.filter((id) => announced.has(id)),
    notTerminalStatus: new Map(pending.map((id) => [id, lastStatus.get(id) ?? "?"])),
    eventsExpected: expected.length,
    eventsUndelivered: undelivered,
    deliveriesReceived: received.length,
    duplicateDeliveries: received.length - new Set(received).size,
    curiosityRuns: runs.length,
    curiosityDoubled: doubled,
    curiositySkipped: skipped,
    curiosityListedLate: listedLate,
    curiosityGaps,
    curiosityLateness: lateness(runs, input.curiosityIntervalMs),
    settleMs,
  };
}

/** Runs 2 and later whose previous run ended: due at its end + the interval; late by when they started after it. */
export function lateness(runs: Run[], intervalMs: number): RunLateness[] {
  const byRun = new Map(runs.map((r) => [`${r.curiosity_id}#${r.run}`, r]));
  const out: RunLateness[] = [];
  for (const r of runs) {
    const previous = byRun.get(`${r.curiosity_id}#${r.run - 1}`);
    if (!previous || previous.completedMs === null || r.startedMs === null) continue;
    const dueMs = previous.completedMs + intervalMs;
    out.push({ id: r.curiosity_id, run: r.run, dueMs, lateMs: r.startedMs - dueMs });
  }
  return out.sort((a, b) => a.dueMs - b.dueMs);
}

async function notTerminal(input: VerifyInput, ids: string[], lastStatus: Map<string, string>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += 32) {
    const batch = ids.slice(i, i + 32);
    const statuses = await Promise.all(
      batch.map(async (id) => {
        try {
          const r = await fetch(`${input.gateway}/v1/investigations/${id}`, { headers: { authorization: `Bearer ${input.key}` } });
          return r.status === 200 ? ((await r.json()) as { status: string }).status : `http ${r.status}`;
        } catch {
          return "unreachable";
        }
      }),
    );
    batch.forEach((id, j) => {
      lastStatus.set(id, statuses[j] as string);
      if (!TERMINAL.has(statuses[j] as string)) out.push(id);
    });
  }
  return out;
}

/**
 * event_id of every event of a subscribed type published since the subscription was made (the EVENTS stream), and
 * the investigations whose terminal event is there.
 */
async function subscribedEvents(input: VerifyInput): Promise<{ expected: string[]; announced: Set<string> }> {
  const js = jetstream(input.nc);
  const consumer = await js.consumers.get(STREAMS.events.name, { deliver_policy: DeliverPolicy.StartTime, opt_start_time: input.subscribedSince.toISOString(), filter_subjects: "events.investigation.>" });
  const ids: string[] = [];
  const announced = new Set<string>();
  const info = await consumer.info(true);
  let left = info.num_pending;
  if (left === 0) return { expected: ids, announced };
  const messages = await consumer.consume();
  for await (const m of messages) {
    const type = m.subject.slice("events.".length);
    if (input.subscribedTypes.includes(type)) {
      const e = m.json() as { event_id: string; data?: { investigation_id?: string } };
      ids.push(e.event_id);
      if (e.data?.investigation_id) announced.add(e.data.investigation_id);
    }
    if (--left <= 0 || m.info.pending === 0) break;
  }
  await messages.close();
  return { expected: ids, announced };
}

export interface Run {
  curiosity_id: string;
  run: number;
  /** started_at and completed_at, ms (null: not known, or not reached). */
  startedMs: number | null;
  completedMs: number | null;
}

function msOf(iso: string | null | undefined): number | null {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

async function curiosityRuns(input: VerifyInput): Promise<Run[]> {
  const out: Run[] = [];
  let cursor: string | null = null;
  do {
    const url = `${input.gateway}/v1/investigations?trigger_source=curiosity&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = (await (await fetch(url, { headers: { authorization: `Bearer ${input.key}` } })).json()) as {
      investigations: Array<{ context: { curiosity_id: string; trigger_id: string }; started_at: string; completed_at: string | null }>;
      next_cursor: string | null;
    };
    for (const inv of page.investigations) {
      out.push({ curiosity_id: inv.context.curiosity_id, run: runOfTriggerId(inv.context.trigger_id), startedMs: msOf(inv.started_at), completedMs: msOf(inv.completed_at) });
    }
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** Every curiosity run the investigations bucket holds (read directly, not through the gateway's read model). */
async function curiosityRunsInBucket(nc: NatsConnection): Promise<Run[]> {
  const kv = await new Kvm(nc).open(BUCKETS.investigations.name);
  const out: Run[] = [];
  for await (const key of await kv.keys()) {
    const entry = await kv.get(key);
    if (!entry || entry.operation !== "PUT") continue;
    const record = entry.json() as { context?: { trigger_source?: string; curiosity_id?: string; trigger_id?: string }; started_at?: string; completed_at?: string | null };
    const context = record.context;
    if (context?.trigger_source !== "curiosity" || !context.curiosity_id || !context.trigger_id) continue;
    out.push({ curiosity_id: context.curiosity_id, run: runOfTriggerId(context.trigger_id), startedMs: msOf(record.started_at), completedMs: msOf(record.completed_at) });
  }
  return out;
}
