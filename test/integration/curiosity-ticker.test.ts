// The ticker's rules in-process against a real nats-server, with a fake clock driving time: due runs fire at
// their time and only then, one run in flight, re-queue at end + interval on every terminal state, pause,
// delete, crash recovery without duplicates or a backlog, and two tickers working at once.
import { test } from "tap";
import type { NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { iso, sleep, type Clock } from "../../shared/clock.js";
import { openCuriosityItems } from "../../shared/curiosity/catalog.js";
import { CURIOSITY_IDEMPOTENCY_SCOPE, runTriggerId, type CuriosityRecord } from "../../shared/curiosity/record.js";
import { newRecord } from "../../shared/curiosity/schedule.js";
import type { CuriosityCreate } from "../../shared/curiosity/schemas.js";
import { CuriosityStore } from "../../shared/curiosity/store.js";
import { newId } from "../../shared/ids.js";
import { cancelInvestigation } from "../../shared/investigations/cancel.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { triggerInvestigation, type TriggerDeps } from "../../shared/investigations/trigger.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { CuriosityTicker } from "../../services/ticker/ticker.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { testTriggerDeps } from "../helpers/trigger.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const S = 1000;
const log = pino({ level: "silent" });

let nats: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
let store: CuriosityStore;
let now = T0;
const clock: Clock = { now: () => now };
const tickers: CuriosityTicker[] = [];

const triggerDeps = (overrides: Partial<TriggerDeps> = {}): TriggerDeps => testTriggerDeps(rt, clock, overrides);

const GRACE_MS = 400;

async function ticker(trigger: TriggerDeps = triggerDeps(), leading = true): Promise<CuriosityTicker> {
  const items = await openCuriosityItems(nc, 1);
  const t = new CuriosityTicker(
    { nc, items, isLeader: () => leading, store, investigations: rt.investigations, trigger, clock, log },
    { maxIdleMs: 250, sweepMs: 60_000, concurrency: 32, standbyGraceMs: GRACE_MS },
  );
  await t.follow();
  tickers.push(t);
  return t;
}

/** One pass of the ticker at the current fake time, after its copy of the items caught up. */
async function pass(t: CuriosityTicker): Promise<void> {
  await t.synced();
  await t.tick(true);
}

async function createItem(body: Partial<CuriosityCreate> = {}): Promise<CuriosityRecord> {
  const record = newRecord(newId("cur", now), { query: "any cryptominers?", interval: "10s", ...body }, "key_test", now);
  await store.create(record);
  return record;
}

async function runsOf(curiosityId: string): Promise<InvestigationRecord[]> {
  const all = await rt.investigations.values();
  return all.filter((r) => r.context.curiosity_id === curiosityId).sort((a, b) => (a.context.trigger_id ?? "").localeCompare(b.context.trigger_id ?? ""));
}

async function endRun(id: string, status: "completed" | "failed", endedAt: number): Promise<void> {
  await rt.investigations.update(id, (r) => ({ ...r, status, completed_at: iso(endedAt) }));
}

test("setup", async () => {
  nats = await startNats();
  nc = await connectTo(nats.url);
  rt = await openRuntime(nc, { replicas: 1 });
  store = new CuriosityStore(await openCuriosityItems(nc, 1));
});

test("a due item triggers an investigation exactly as the trigger endpoint would, at its time and not before", async (t) => {
  now = T0;
  const tk = await ticker();
  const item = await createItem({ first_run_at: iso(T0 + 10 * S), depth: "quick", scope: { type: "selector", filter: { tags: { env: "prod" } } } });
  await pass(tk);
  now = T0 + 10 * S - 1;
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 0, "nothing before next_run_at");
  now = T0 + 10 * S;
  await pass(tk);
  const runs = await runsOf(item.id);
  t.equal(runs.length, 1, "one investigation at next_run_at");
  const inv = runs[0] as InvestigationRecord;
  t.equal(inv.status, "queued");
  t.equal(inv.query, "any cryptominers?");
  t.equal(inv.depth, "quick");
  t.equal(inv.mode, "auto");
  t.same(inv.scope, { type: "selector", filter: { tags: { env: "prod" } } });
  t.same(inv.context, { trigger_source: "curiosity", trigger_id: `${item.id}:1`, curiosity_id: item.id, inbound_endpoint_id: null, previous_investigation_id: null });
  t.equal(inv.started_at, iso(T0 + 10 * S));
  t.ok(inv.freshness, "freshness computed as for an auto-mode trigger");
  t.equal(inv.internal.owner_key_id, "key_test", "owned by the key that created the item");
  const idem = await rt.idempotency.keys(`${CURIOSITY_IDEMPOTENCY_SCOPE}.*`);
  t.ok(idem.length >= 1, "the run went through the trigger's idempotency, keyed by its trigger id");
  const queuedWork = (await rt.jsm.streams.info("INQ_WORK")).state.messages;
  t.ok(queuedWork >= 1, "work queued for a runner");
  const stored = await store.get(item.id);
  t.equal(stored?.internal.in_flight?.investigation_id, inv.investigation_id);
  t.equal(stored?.run_count, 0, "run_count counts finished runs");
});

test("one run in flight; when it ends (completed, failed or cancelled) next_run_at = end + interval", async (t) => {
  now = T0 + 100 * S;
  const tk = await ticker();
  const item = await createItem();
  await pass(tk);
  const [first] = await runsOf(item.id);
  now += 1000 * S;
  await pass(tk);
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 1, "no second run while the first is in flight, however late");

  const end1 = now - 500 * S;
  await endRun(first?.investigation_id as string, "completed", end1);
  await pass(tk);
  let r = await store.get(item.id);
  t.equal(r?.run_count, 1);
  t.equal(r?.last_run_at, iso(end1));
  t.equal(r?.last_investigation_id, first?.investigation_id);
  t.equal(r?.next_run_at, iso(end1 + 10 * S), "end time + interval, not detection time + interval");
  t.equal((await runsOf(item.id)).length, 2, "already overdue by then: the next run fired in the same pass");
  t.equal((await store.get(item.id))?.internal.in_flight?.run, 2);

  const second = (await runsOf(item.id))[1] as InvestigationRecord;
  t.equal(second.context.trigger_id, `${item.id}:2`);
  const end2 = now + 2 * S;
  now = end2;
  await endRun(second.investigation_id, "failed", end2);
  await pass(tk);
  r = await store.get(item.id);
  t.equal(r?.run_count, 2, "a failed run ends the run too");
  t.equal(r?.next_run_at, iso(end2 + 10 * S));
  now = end2 + 10 * S - 1;
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 2, "not due yet");
  now = end2 + 10 * S;
  await pass(tk);
  const third = (await runsOf(item.id))[2] as InvestigationRecord;
  t.equal(third.context.trigger_id, `${item.id}:3`);
  now += 3 * S;
  const cancelled = await cancelInvestigation({ nc, js: rt.js, investigations: rt.investigations, clock }, third.investigation_id);
  t.same(cancelled, { kind: "done", ok: true, status: "cancelled" });
  await pass(tk);
  r = await store.get(item.id);
  t.equal(r?.run_count, 3, "a cancelled run ends the run too");
  t.equal(r?.next_run_at, iso(now + 10 * S));
  t.equal(r?.last_investigation_id, third.investigation_id);
});

test("a paused item is not triggered; resuming runs it once", async (t) => {
  now = T0 + 5000 * S;
  const tk = await ticker();
  const item = await createItem({ first_run_at: iso(now + S), active: false });
  now += 60 * S;
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 0, "created paused: never triggered");
  await store.patch(item.id, { active: true }, now);
  await pass(tk);
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 1, "resumed: one run");
  const [run] = await runsOf(item.id);
  await store.patch(item.id, { active: false }, now);
  await endRun(run?.investigation_id as string, "completed", now);
  await pass(tk);
  t.equal((await store.get(item.id))?.run_count, 1, "the run in flight when paused is still counted");
  now += 3600 * S;
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 1, "paused: nothing more");
});

test("a failed step's retry is dropped once the step is no longer owed (paused since): the loop does not spin on it", async (t) => {
  now = T0 + 9000 * S;
  let failures = 0;
  const flaky = Object.create(store) as CuriosityStore;
  flaky.claim = async (...args: Parameters<CuriosityStore["claim"]>) => {
    if (failures++ === 0) throw new Error("injected: a NATS timeout on the claim");
    return store.claim(...args);
  };
  const items = await openCuriosityItems(nc, 1);
  const tk = new CuriosityTicker(
    { nc, items, isLeader: () => true, store: flaky, investigations: rt.investigations, trigger: triggerDeps(), clock, log },
    { maxIdleMs: 250, sweepMs: 60_000, concurrency: 32, standbyGraceMs: GRACE_MS },
  );
  await tk.follow();
  tickers.push(tk);
  const item = await createItem({ first_run_at: iso(now) });
  await pass(tk);
  t.equal(failures, 1, "the claim failed");
  t.equal(tk.retrying, 1, "the step waits out a retry");
  await store.patch(item.id, { active: false }, now);
  now += 2 * S;
  await pass(tk);
  t.equal(tk.retrying, 0, "paused: nothing is owed, and the retry is gone");
  t.equal((await runsOf(item.id)).length, 0, "and nothing ran");
});

test("a retried step still running past its retry time: the loop sleeps until it ends, it does not spin", async (t) => {
  now = T0 + 9500 * S;
  let claims = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const slow = Object.create(store) as CuriosityStore;
  slow.claim = async (...args: Parameters<CuriosityStore["claim"]>) => {
    claims++;
    if (claims === 1) throw new Error("injected: a NATS timeout on the claim");
    await held; // the retry's claim: answered only once the test lets it
    return store.claim(...args);
  };
  let passes = 0;
  const items = await openCuriosityItems(nc, 1);
  const tk = new CuriosityTicker(
    { nc, items, isLeader: () => (passes++, true), store: slow, investigations: rt.investigations, trigger: triggerDeps(), clock, log },
    { maxIdleMs: 250, sweepMs: 60_000, concurrency: 32, standbyGraceMs: GRACE_MS },
  );
  tickers.push(tk);
  const item = await createItem({ first_run_at: iso(now) });
  await tk.start();
  await eventually(async () => (claims === 1 && tk.retrying === 1) || undefined, 5_000, 10);
  now += 2 * S; // past the retry (1 s): the next pass starts it, and its claim hangs
  await eventually(async () => claims === 2 || undefined, 5_000, 10);
  const before = passes;
  await sleep(600);
  const during = passes - before;
  t.ok(during <= 6, `a pass at most every 100 ms while the step runs (${during} in 600 ms; the idle wake is 250 ms)`);
  release();
  await eventually(async () => (await runsOf(item.id)).length === 1 || undefined, 5_000, 20);
  t.pass("the step ends and the run is triggered once the claim is answered");
  await tk.stop(); // its loop would pass over the next tests' items
});

test("an item deleted while its run is in flight is simply gone; its investigation is untouched", async (t) => {
  now = T0 + 9000 * S;
  const tk = await ticker();
  const item = await createItem();
  await pass(tk);
  const [run] = await runsOf(item.id);
  t.equal(await store.remove(item.id), true);
  await endRun(run?.investigation_id as string, "completed", now);
  now += 60 * S;
  await pass(tk);
  await pass(tk);
  t.equal(await store.get(item.id), null, "not resurrected by the end of its run");
  const after = await runsOf(item.id);
  t.equal(after.length, 1, "no further run");
  t.equal(after[0]?.status, "completed", "the investigation stays as it was");
});

test("a ticker that died after claiming, or after triggering, leaves one investigation for the run", async (t) => {
  now = T0 + 20_000 * S;
  // Died after the claim, before the trigger.
  const a = await createItem();
  await store.claim(a.id, now);
  // Died after the trigger, before recording the investigation on the item (the bookkeeping step).
  const b = await createItem();
  await store.claim(b.id, now);
  const claimed = (await store.get(b.id))?.internal.in_flight;
  const triggerId = runTriggerId(b.id, 1);
  const first = await triggerInvestigation(triggerDeps(), {
    request: claimed?.request ?? { query: "?" },
    idempotencyKey: triggerId,
    idempotencyScope: CURIOSITY_IDEMPOTENCY_SCOPE,
    ownerKeyId: "key_test",
    context: { trigger_source: "curiosity", trigger_id: triggerId, curiosity_id: b.id, inbound_endpoint_id: null },
  });
  // The item was edited in between: the retried run still sends the request it claimed.
  await store.patch(b.id, { query: "a different question now" }, now);
  now += 3600 * S;
  const tk = await ticker();
  await pass(tk);
  await pass(tk);
  const runsA = await runsOf(a.id);
  t.equal(runsA.length, 1, "claimed but never triggered: triggered once on recovery");
  t.equal(runsA[0]?.context.trigger_id, `${a.id}:1`);
  const runsB = await runsOf(b.id);
  t.equal(runsB.length, 1, "triggered but not recorded: the same investigation, not a second one");
  t.equal(runsB[0]?.investigation_id, first.kind === "queued" ? first.investigationId : "?");
  t.equal((await store.get(b.id))?.internal.in_flight?.investigation_id, runsB[0]?.investigation_id);
  t.equal(runsB[0]?.query, "any cryptominers?", "the claimed request, not the later edit");
});

test("a ticker down for many intervals fires one run on recovery, not a backlog", async (t) => {
  now = T0 + 30_000 * S;
  const item = await createItem({ interval: "10s" });
  now += 10_000 * S;
  const tk = await ticker();
  for (let i = 0; i < 5; i++) await pass(tk);
  t.equal((await runsOf(item.id)).length, 1);
});

test("two tickers working at once never trigger one run twice", async (t) => {
  now = T0 + 50_000 * S;
  const items = await Promise.all(Array.from({ length: 15 }, () => createItem({ interval: "10s" })));
  const [a, b] = [await ticker(), await ticker()];
  await Promise.all([a.synced(), b.synced()]);
  for (let round = 0; round < 3; round++) {
    await Promise.all([a.tick(true), b.tick(true), a.tick(true), b.tick(true)]);
    for (const item of items) {
      const runs = await runsOf(item.id);
      const last = runs[runs.length - 1];
      if (last && last.status === "queued") await endRun(last.investigation_id, "completed", now);
    }
    await Promise.all([a.tick(true), b.tick(true)]);
    now += 10 * S;
    await Promise.all([a.synced(), b.synced()]);
  }
  for (const item of items) {
    const ids = (await runsOf(item.id)).map((r) => r.context.trigger_id);
    t.same(ids, [...new Set(ids)], `${item.id}: every trigger id once`);
    t.same(ids, ids.map((_, i) => `${item.id}:${i + 1}`), "run numbers consecutive from 1");
  }
});

test("a full backlog makes the run wait, then it fires once", async (t) => {
  now = T0 + 90_000 * S;
  const deps = triggerDeps({ maxBacklog: 0 });
  const tk = await ticker(deps);
  const item = await createItem();
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 0, "refused while the backlog is full");
  t.equal((await store.get(item.id))?.internal.in_flight?.run, 1, "the run stays claimed");
  deps.maxBacklog = 1000;
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 0, "waits for the trigger's Retry-After");
  now += 5 * S;
  await pass(tk);
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 1);
});

test("pausing an item holds a run it claimed and has not triggered yet; resuming triggers that run once", async (t) => {
  now = T0 + 92_000 * S;
  const deps = triggerDeps({ maxBacklog: 0 });
  const tk = await ticker(deps);
  const item = await createItem();
  await pass(tk);
  t.equal((await store.get(item.id))?.internal.in_flight?.investigation_id, null, "claimed, refused by a full backlog");
  await store.patch(item.id, { active: false }, now);
  deps.maxBacklog = 1000;
  now += 6 * S;
  await pass(tk);
  await pass(tk);
  t.equal((await runsOf(item.id)).length, 0, "paused: the claimed run is not triggered");
  t.equal(tk.retrying, 0, "and nothing waits out a retry");
  await store.patch(item.id, { active: true }, now);
  await pass(tk);
  await pass(tk);
  t.same((await runsOf(item.id)).map((r) => r.context.trigger_id), [`${item.id}:1`], "resumed: the claimed run, once");
});

test("a standby steps in only for what the leader is late with: a due run, then a run whose end was announced", async (t) => {
  now = T0 + 95_000 * S;
  const standby = await ticker(triggerDeps(), false);
  const item = await createItem({ first_run_at: iso(now) });
  await pass(standby);
  now += GRACE_MS - 1;
  await pass(standby);
  t.equal((await runsOf(item.id)).length, 0, "a due run is the leader's until it is the grace late");
  now += 1;
  await pass(standby);
  const [run] = await runsOf(item.id);
  t.equal(run?.context.trigger_id, `${item.id}:1`, "then the standby claims and triggers it");

  const end = now + 2 * S;
  now = end;
  await endRun(run?.investigation_id as string, "completed", end);
  await pass(standby);
  t.equal((await store.get(item.id))?.run_count, 0, "no announcement, no sweep: a standby does not poll runs in flight");
  nc.publish("events.investigation.completed", JSON.stringify({ type: "investigation.completed", data: { context: { curiosity_id: item.id } } }));
  await nc.flush();
  now += GRACE_MS - 1;
  await pass(standby);
  t.equal((await store.get(item.id))?.run_count, 0, "an announced end is the leader's to record until the grace passes");
  now += 1;
  await pass(standby);
  const r = await store.get(item.id);
  t.equal(r?.run_count, 1, "then the standby records it");
  t.equal(r?.next_run_at, iso(end + 10 * S), "and re-queues from the run's end");
});

test("teardown", async () => {
  for (const t of tickers) await t.stop();
  await nc.close();
  await nats.stop();
});
