// The ticker with more work than slots (concurrency): the sweep gets round to every run in flight, not the same
// first few each time, and a pass takes from the due queue only what it has slots for.
import { test } from "tap";
import type { NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { iso, type Clock } from "../../shared/clock.js";
import { openCuriosityItems } from "../../shared/curiosity/catalog.js";
import type { CuriosityRecord } from "../../shared/curiosity/record.js";
import { newRecord } from "../../shared/curiosity/schedule.js";
import { CuriosityStore } from "../../shared/curiosity/store.js";
import { newId } from "../../shared/ids.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { TriggerDeps } from "../../shared/investigations/trigger.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { DueQueue } from "../../services/ticker/due-queue.js";
import { CuriosityTicker } from "../../services/ticker/ticker.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
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

const triggerDeps = (): TriggerDeps => testTriggerDeps(rt, clock, { maxBacklog: 1_000_000 });

async function ticker(concurrency: number): Promise<CuriosityTicker> {
  const items = await openCuriosityItems(nc, 1);
  const t = new CuriosityTicker(
    { nc, items, isLeader: () => true, store, investigations: rt.investigations, trigger: triggerDeps(), clock, log },
    { maxIdleMs: 250, sweepMs: 60_000, concurrency, standbyGraceMs: 400 },
  );
  await t.follow();
  tickers.push(t);
  return t;
}

async function pass(t: CuriosityTicker): Promise<void> {
  await t.synced();
  await t.tick(true);
}

async function createItem(): Promise<CuriosityRecord> {
  const record = newRecord(newId("cur", now), { query: "any cryptominers?", interval: "10m" }, "key_test", now);
  await store.create(record);
  return record;
}

async function removeAll(): Promise<void> {
  for (const id of await store.docs.keys()) await store.remove(id);
}

async function runOf(id: string): Promise<string> {
  return (await store.get(id))?.internal.in_flight?.investigation_id ?? "";
}

test("setup", async () => {
  nats = await startNats();
  nc = await connectTo(nats.url);
  rt = await openRuntime(nc, { replicas: 1 });
  store = new CuriosityStore(await openCuriosityItems(nc, 1));
});

test("the sweep takes the runs in flight in turn: a run past the first `concurrency` whose end was missed is recorded", async (t) => {
  now = T0;
  await removeAll();
  const tk = await ticker(2);
  const early = [await createItem(), await createItem()];
  await pass(tk);
  const late = [await createItem(), await createItem()];
  await pass(tk);
  for (const item of [...early, ...late]) t.not(await runOf(item.id), "", `${item.id} is running`);
  // The two later runs end while the two earlier ones still run, and no event says so (missed).
  now += 60 * S;
  for (const item of late) await rt.investigations.update(await runOf(item.id), (r: InvestigationRecord) => ({ ...r, status: "completed", completed_at: iso(now) }));
  for (let i = 0; i < 3; i++) await pass(tk);
  for (const item of late) t.equal((await store.get(item.id))?.run_count, 1, `${item.id}: its end was swept`);
  for (const item of early) t.equal((await store.get(item.id))?.run_count, 0, `${item.id}: still running`);
});

test("a pass takes from the due queue only what it has free slots for, and nothing when none is free", async (t) => {
  now = T0 + 3600 * S;
  await removeAll();
  const tk = await ticker(4);
  const items = await Promise.all(Array.from({ length: 20 }, () => createItem()));
  await tk.synced();
  // What each pass took off the queue (a pass that took more than it could step pushed the rest back: 1,000 items
  // due at once cost a quadratic number of heap operations and fired 3.8 s late).
  const taken: number[] = [];
  const takeDue = DueQueue.prototype.takeDue;
  DueQueue.prototype.takeDue = function (this: DueQueue, ...args: Parameters<DueQueue["takeDue"]>) {
    const out = takeDue.apply(this, args);
    taken.push(out.length);
    return out;
  };
  t.teardown(() => {
    DueQueue.prototype.takeDue = takeDue;
  });
  // Two passes at once, as the loop starts one while the last one's steps still run: the second finds no slot.
  await Promise.all([tk.tick(true), tk.tick(true)]);
  t.equal(sum(taken), 4, "the first pass took 4 entries, the second none");
  for (let i = 0; i < 5; i++) await pass(tk);
  for (const item of items) t.not(await runOf(item.id), "", `${item.id} ran`);
  t.ok(Math.max(...taken) <= 4, `no pass took more than its 4 slots (${taken.join(", ")})`);
  t.equal(sum(taken), items.length, "each due entry was taken off the queue once");
});

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

test("teardown", async () => {
  for (const t of tickers) await t.stop();
  await nc.close();
  await nats.stop();
});
