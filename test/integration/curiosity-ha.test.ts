// Several ticker processes over a real nats-server: they race for the lease, the leader is killed with
// SIGKILL mid-schedule, and later every ticker is down for several intervals. Through all of it each run
// fires once (never two investigations with one trigger_id), no run number is skipped, and no run starts
// sooner than its interval after the previous one ended (no burst of repeats after a takeover or restart).
import { test } from "tap";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { CURIOSITY_BUCKETS, LEADER_KEY } from "../../shared/curiosity/catalog.js";
import { decodeJson } from "../../shared/nats/kvjson.js";
import type { LeaseHolder } from "../../services/ticker/leader.js";
import { connectTo } from "../helpers/nats.js";
import type { ServiceProcess } from "../helpers/services.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";

interface Inv {
  investigation_id: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  context: { trigger_id: string; curiosity_id: string };
}

const INTERVAL_MS = 1000;
/** Lease ttl + one follower poll + the interval + slack for a loaded CI machine. */
const TAKEOVER_MS = CURIOSITY_BUCKETS.leader.ttl + CURIOSITY_BUCKETS.leader.ttl / 3 + INTERVAL_MS + 1500;

let stack: Stack;
let nc: NatsConnection;
const items: string[] = [];
/** When the leader was killed, when every ticker was, and when one came back. */
const phases = { killedAt: 0, downAt: 0, upAt: 0 };
const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
const ms = (ts: string | null) => Date.parse(ts ?? "");

async function allRuns(): Promise<Inv[]> {
  const out: Inv[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof call>> = await call("GET", `/v1/investigations?trigger_source=curiosity&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    out.push(...(page.json.investigations as Inv[]));
    cursor = page.json.next_cursor;
  } while (cursor);
  return out;
}

async function leader(): Promise<LeaseHolder | null> {
  const kv = await new Kvm(nc).open(CURIOSITY_BUCKETS.leader.name);
  const e = await kv.get(LEADER_KEY);
  return e && e.operation === "PUT" && e.value.length > 0 ? decodeJson<LeaseHolder>(e.value) : null;
}

function tickers(): ServiceProcess[] {
  return [...stack.services.values()].filter((p) => p.name === "ticker" && p.proc.exitCode === null && p.proc.signalCode === null);
}

/** `eventually`, with what the tickers and runner said when it gives up. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  try {
    return await eventually(check, timeoutMs);
  } catch (err) {
    const logs = [...stack.services.entries()].filter(([, p]) => p.name !== "gateway").map(([label, p]) => `--- ${label}\n${p.output().slice(-4000)}`);
    const runs = (await allRuns()).map((r) => `${r.context.trigger_id} ${r.status} ${r.started_at} ${r.completed_at}`);
    throw new Error(`${what}: ${String(err)}\n${runs.join("\n")}\n${logs.join("\n")}`);
  }
}

/** Waits until every item has a run started after `since`; returns the latest start. */
async function runsResumedAfter(since: number, timeoutMs: number): Promise<number> {
  return waitFor(`every item runs after ${new Date(since).toISOString()}`, async () => {
    const runs = await allRuns();
    const firsts = items.map((id) => Math.min(...runs.filter((r) => r.context.curiosity_id === id && ms(r.started_at) > since).map((r) => ms(r.started_at))));
    return firsts.every(Number.isFinite) ? Math.max(...firsts) : undefined;
  }, timeoutMs);
}

test("setup: two tickers racing from the first moment", async () => {
  stack = await startStack({ services: ["gateway", "runner"], env: { INQUEST_CURIOSITY_MIN_INTERVAL: "1s" } });
  nc = await connectTo(stack.nats.url);
  for (let i = 0; i < 3; i++) items.push((await call("POST", "/v1/curiosity", { query: `standing question ${i}`, interval: "1s", depth: "quick" })).json.id);
  stack.start("ticker", {}, "ticker-a");
  stack.start("ticker", {}, "ticker-b");
});

test("one ticker leads; killing it with SIGKILL hands over to the other", async (t) => {
  await runsResumedAfter(0, 15_000);
  await sleep(2_500);
  const holder = await leader();
  t.ok(holder, "the lease names its holder");
  const victim = tickers().find((p) => p.proc.pid === holder?.pid);
  t.ok(victim, "the holder is one of the two tickers");
  const killedAt = Date.now();
  phases.killedAt = killedAt;
  await victim?.kill("SIGKILL");
  const resumed = await runsResumedAfter(killedAt, 15_000);
  t.ok(resumed - killedAt < TAKEOVER_MS, `every item ran again ${resumed - killedAt} ms after the leader died`);
  const next = await waitFor("a new leader", async () => {
    const h = await leader();
    return h && h.pid !== holder?.pid ? h : undefined;
  });
  t.equal(next.pid, tickers()[0]?.proc.pid, "the survivor holds the lease");
  await sleep(2_000);
});

test("every ticker down for several intervals: a restarted one runs each item once, then on schedule", async (t) => {
  for (const p of tickers()) await p.kill("SIGKILL");
  const downAt = Date.now();
  phases.downAt = downAt;
  await sleep(5_000);
  const before = (await allRuns()).length;
  const upAt = Date.now();
  phases.upAt = upAt;
  const restarted = stack.start("ticker", {}, "ticker-c");
  await restarted.ready();
  // Timed from the restarted ticker's ready line: the process's own start (node, NATS, the mirror) is not the
  // ticker's recovery, and under the suite's load it alone took 2-6 s (this bound failed at base and head alike).
  const readyAt = Date.now();
  const resumed = await runsResumedAfter(upAt, 15_000);
  t.ok(resumed - readyAt < CURIOSITY_BUCKETS.leader.ttl + 3_000, `items ran ${resumed - readyAt} ms after the restarted ticker was ready (${readyAt - upAt} ms to start)`);
  const burst = (await allRuns()).filter((r) => ms(r.started_at) >= upAt && ms(r.started_at) < upAt + 800 + (resumed - upAt));
  t.ok(burst.length <= items.length, `one run per item on recovery, not a backlog (${burst.length})`);
  t.ok(before > 0 && downAt < upAt);
  await sleep(2_500);
});

test("across it all: every run once, none skipped, none sooner than its interval after the previous one", async (t) => {
  for (const id of items) await call("PATCH", `/v1/curiosity/${id}`, { active: false });
  await waitFor("every run ended", async () => ((await allRuns()).every((r) => r.completed_at) ? true : undefined));
  const runs = await allRuns();
  const triggerIds = runs.map((r) => r.context.trigger_id);
  t.equal(new Set(triggerIds).size, triggerIds.length, `never two investigations with one trigger_id (${triggerIds.length} runs)`);
  for (const id of items) {
    const mine = runs.filter((r) => r.context.curiosity_id === id).sort((a, b) => ms(a.started_at) - ms(b.started_at));
    const numbers = mine.map((r) => Number(r.context.trigger_id.split(":")[1]));
    t.same(numbers, numbers.map((_, i) => i + 1), `${id}: runs 1..${numbers.length}, in order, none skipped`);
    const startedIn = (from: number, to: number) => mine.some((r) => ms(r.started_at) >= from && ms(r.started_at) < to);
    t.ok(startedIn(0, phases.killedAt) && startedIn(phases.killedAt, phases.downAt) && startedIn(phases.upAt, Infinity), `${id}: ran under each of the three tickers`);
    let tooSoon = 0;
    for (let i = 1; i < mine.length; i++) {
      if (ms(mine[i]?.started_at ?? null) < ms(mine[i - 1]?.completed_at ?? null) + INTERVAL_MS) tooSoon++;
    }
    t.equal(tooSoon, 0, `${id}: no run started sooner than the interval after the previous one ended`);
    lateness.push(...latenessAfterKill(mine));
    const item = (await call("GET", `/v1/curiosity/${id}`)).json;
    t.equal(item.run_count, mine.length, "every run was counted once");
    t.equal(item.last_investigation_id, mine[mine.length - 1]?.investigation_id);
  }
});

/**
 * Lateness (started_at − previous completed_at − interval) of the runs due from the leader's death until a second
 * before every ticker was killed (a run due in that last second may rightly wait for the restart).
 */
const lateness: number[] = [];
function latenessAfterKill(mine: Inv[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < mine.length; i++) {
    const due = ms(mine[i - 1]?.completed_at ?? null) + INTERVAL_MS;
    if (due >= phases.killedAt && due < phases.downAt - 1_000) out.push(ms(mine[i]?.started_at ?? null) - due);
  }
  return out;
}

test("runs due while the leader died did not wait for its lease to expire: a standby stepped in", async (t) => {
  const sorted = [...lateness].sort((a, b) => a - b);
  t.ok(sorted.length >= items.length, `${sorted.length} runs fell due between the kill and the last phase`);
  // On a quiet machine the worst is ~0.45 s (the contract's 1 s; the standby's grace is 0.4 s). The assertion is the
  // mechanism, not a timing: before standbys, these runs waited for the dead leader's lease (3 s) to expire.
  t.comment(`lateness ms: p50 ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]}`);
  t.ok((sorted[sorted.length - 1] ?? Infinity) < CURIOSITY_BUCKETS.leader.ttl, `every one before the dead leader's lease expired (max ${sorted[sorted.length - 1]} ms)`);
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
});
