// The ticker's steps against what can happen between them, over a real nats-server with a fake clock: a run whose
// investigation record is not written yet, a run retried after its idempotency record expired, and a DELETE or a
// pause landing between the claim and the trigger. Each step is driven directly (advanceItem).
import { test } from "tap";
import { TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { sha256Hex } from "../../shared/canonical.js";
import { iso, type Clock } from "../../shared/clock.js";
import { openCuriosityItems } from "../../shared/curiosity/catalog.js";
import { CURIOSITY_IDEMPOTENCY_SCOPE, runTriggerId, type CuriosityRecord } from "../../shared/curiosity/record.js";
import { newRecord } from "../../shared/curiosity/schedule.js";
import { CuriosityStore } from "../../shared/curiosity/store.js";
import { newId } from "../../shared/ids.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { TriggerDeps } from "../../shared/investigations/trigger.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { advanceItem, type RunDeps } from "../../services/ticker/runs.js";
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

const deps = (overrides: { store?: CuriosityStore; trigger?: Partial<TriggerDeps> } = {}): RunDeps => ({
  store: overrides.store ?? store,
  trigger: testTriggerDeps(rt, clock, overrides.trigger),
  investigations: rt.investigations,
  clock,
  log,
});

async function createItem(): Promise<CuriosityRecord> {
  const record = newRecord(newId("cur", now), { query: "any cryptominers?", interval: "10s" }, "key_test", now);
  await store.create(record);
  return record;
}

async function runsOf(curiosityId: string): Promise<InvestigationRecord[]> {
  const all = await rt.investigations.values();
  return all.filter((r) => r.context.curiosity_id === curiosityId).sort((a, b) => (a.context.trigger_id ?? "").localeCompare(b.context.trigger_id ?? ""));
}

/** The store as it is, but `hook` runs right after each claim this step makes (something landing in between). */
function claimThen(hook: (id: string) => Promise<unknown>): CuriosityStore {
  const wrapped = Object.create(store) as CuriosityStore;
  wrapped.claim = async (id, at) => {
    const claimed = await store.claim(id, at);
    await hook(id);
    return claimed;
  };
  return wrapped;
}

test("setup", async () => {
  nats = await startNats();
  nc = await connectTo(nats.url);
  rt = await openRuntime(nc, { replicas: 1 });
  store = new CuriosityStore(await openCuriosityItems(nc, 1));
});

test("a run whose investigation record is not written yet (the write timed out after the work was queued) is still in flight", async (t) => {
  now = T0;
  // The record write after the acknowledged work publish times out once: the trigger answers queued, as designed
  // (the runner writes the record from the work message when it takes it).
  let failed = false;
  const investigations = Object.create(rt.investigations) as JsonKv<InvestigationRecord>;
  investigations.createEncoded = async (key, bytes) => {
    if (!failed) {
      failed = true;
      throw new TimeoutError();
    }
    return rt.investigations.createEncoded(key, bytes);
  };
  const d = deps({ trigger: { investigations } });
  const item = await createItem();
  // The step triggers, records the investigation on the item and looks at it at once: no record there.
  const first = await advanceItem(d, item.id);
  t.ok(failed, "its record write failed");
  t.equal(first.kind, "running", "the run is in flight, not ended for want of a record");
  let r = await store.get(item.id);
  const run1 = r?.internal.in_flight?.investigation_id as string;
  t.ok(run1, "its investigation is recorded on the item");
  t.equal(r?.run_count, 0, "not counted as finished");

  now += 60 * S;
  const again = await advanceItem(d, item.id);
  t.same(again, { kind: "running", investigationId: run1 }, "still in flight, long past its interval");
  r = await store.get(item.id);
  t.equal(r?.run_count, 0);
  t.equal(r?.internal.in_flight?.run, 1);
  const runs = await runsOf(item.id);
  t.same(runs.map((i) => [i.investigation_id, i.status]), [[run1, "queued"]], "no second run; the run's record is written after all, queued");

  const end = now + 5 * S;
  now = end;
  await rt.investigations.update(run1, (i) => ({ ...i, status: "completed", completed_at: iso(end) }));
  await advanceItem(d, item.id);
  r = await store.get(item.id);
  t.equal(r?.run_count, 1, "it ends when its investigation ends");
  t.equal(r?.next_run_at, iso(end + 10 * S), "at end + interval");
  now = end + 10 * S;
  await advanceItem(d, item.id);
  const second = (await runsOf(item.id))[1];
  t.equal(second?.context.trigger_id, `${item.id}:2`);
  t.equal(second?.context.previous_investigation_id, run1, "and the next run compares with it");
});

test("a run triggered, then held by a pause past its idempotency record's expiry, is the same investigation on resume", async (t) => {
  now = T0 + 1000 * S;
  const item = await createItem();
  // The ticker dies after the trigger, before recording the investigation on the item.
  const crashing = Object.create(store) as CuriosityStore;
  crashing.attach = async () => {
    throw new Error("injected: the ticker died before attaching");
  };
  await t.rejects(advanceItem(deps({ store: crashing }), item.id));
  const [triggered] = await runsOf(item.id);
  t.equal(triggered?.context.trigger_id, `${item.id}:1`, "the run was triggered");
  await store.patch(item.id, { active: false }, now);
  t.same(await advanceItem(deps(), item.id), { kind: "idle" }, "paused: the claimed run is held");
  // A day later the run's idempotency record has expired (the bucket's 24 h TTL).
  now += 25 * 3600 * S;
  await rt.idempotency.kv.purge(`${CURIOSITY_IDEMPOTENCY_SCOPE}.${sha256Hex(runTriggerId(item.id, 1))}`);
  await store.patch(item.id, { active: true }, now);
  await advanceItem(deps(), item.id);
  const runs = await runsOf(item.id);
  t.same(runs.map((i) => i.investigation_id), [triggered?.investigation_id], "resumed: still the one investigation of run 1");
  t.equal((await store.get(item.id))?.internal.in_flight?.investigation_id, triggered?.investigation_id, "and the item records it");
});

test("and so is one whose record was never written: the retried trigger makes the investigation under the claimed id", async (t) => {
  now = T0 + 2000 * S;
  const item = await createItem();
  const crashing = Object.create(store) as CuriosityStore;
  crashing.attach = async () => {
    throw new Error("injected: the ticker died before attaching");
  };
  const investigations = Object.create(rt.investigations) as JsonKv<InvestigationRecord>;
  investigations.createEncoded = async () => {
    throw new TimeoutError();
  };
  await t.rejects(advanceItem(deps({ store: crashing, trigger: { investigations } }), item.id));
  const claimed = (await store.get(item.id))?.internal.in_flight;
  t.equal((await runsOf(item.id)).length, 0, "the work is queued, its record not written");
  await store.patch(item.id, { active: false }, now);
  now += 25 * 3600 * S;
  await rt.idempotency.kv.purge(`${CURIOSITY_IDEMPOTENCY_SCOPE}.${sha256Hex(runTriggerId(item.id, 1))}`);
  await store.patch(item.id, { active: true }, now);
  await advanceItem(deps(), item.id);
  const runs = await runsOf(item.id);
  t.same(runs.map((i) => i.investigation_id), [claimed?.reserved_investigation_id], "one investigation, with the id its queued work carries");
});

test("a DELETE landing between the claim and the trigger wins: no run starts", async (t) => {
  now = T0 + 3000 * S;
  const item = await createItem();
  let deleted = false;
  const outcome = await advanceItem(deps({ store: claimThen(async (id) => (deleted = await store.remove(id))) }), item.id);
  t.ok(deleted, "the DELETE found the item (204)");
  t.same(outcome, { kind: "gone" });
  t.equal(await store.get(item.id), null, "the item stays deleted");
  t.same(await runsOf(item.id), [], "and triggered nothing");
});

test("a pause landing between the claim and the trigger holds the claimed run; resuming triggers it once", async (t) => {
  now = T0 + 4000 * S;
  const item = await createItem();
  const outcome = await advanceItem(deps({ store: claimThen((id) => store.patch(id, { active: false }, now)) }), item.id);
  t.same(outcome, { kind: "idle" }, "paused: nothing to do");
  t.same(await runsOf(item.id), [], "the claimed run is not triggered");
  t.equal((await store.get(item.id))?.internal.in_flight?.run, 1, "it is held");
  now += 60 * S;
  await store.patch(item.id, { active: true }, now);
  await advanceItem(deps(), item.id);
  await advanceItem(deps(), item.id);
  t.same((await runsOf(item.id)).map((i) => i.context.trigger_id), [`${item.id}:1`], "resumed: that run, once");
});

test("teardown", async () => {
  await nc.close();
  await nats.stop();
});
