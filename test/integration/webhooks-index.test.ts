// The gateway's deliveries read model (LMDB) against a real nats-server: the bucket forgets a delivery 30 days
// after its last write and nats-server 2.9 tells no watcher, so the index prunes what has expired (at start and
// periodically), and a filtered walk skips what is expired but not yet pruned without shortening a page. Every
// combination of the three filters lists exactly its deliveries, page by page, from five index entries a delivery.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { deliveryIndex, deliveryPrefix, deliveryWalk, DELIVERY_PRUNE_EVERY_MS, isRetained, type DeliveryFilter } from "../../services/gateway/delivery-index.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel, type IndexKey } from "../../shared/readmodel.js";
import { openWebhookStores, type WebhookStores } from "../../shared/webhooks/catalog.js";
import { deliveryView, newDeliveryRecord, type DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { DeliveryView } from "../../shared/webhooks/schemas.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import { countIndexWrites } from "../helpers/readmodel.js";
import { tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";
import { makeEvent } from "../helpers/webhooks.js";

const log = pino({ level: "silent" });
const DAY = 86_400_000;
let server: NatsServer;
let nc: NatsConnection;
let stores: WebhookStores;
const dir = tempDir("inquest-index-");
const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
let n = 0;

test("setup", async () => {
  server = await startNats();
  nc = await connectTo(server.url);
  stores = await openWebhookStores(nc, await jetstreamManager(nc), jetstream(nc), 1);
});

const subId = () => `sub_IDX${String(n++).padStart(23, "0")}`;

/** A delivery created `createdAgoMs` ago and last written `updatedAgoMs` ago. */
async function put(subscriptionId: string, createdAgoMs: number, updatedAgoMs = createdAgoMs): Promise<DeliveryRecord> {
  const now = Date.now();
  const r = newDeliveryRecord({
    deliveryId: `dlv_IDX${String(n++).padStart(23, "0")}`,
    subscriptionId,
    envelope: makeEvent("agent.connected") as DeliveryRecord["envelope"],
    nowMs: now - createdAgoMs,
  });
  const record = { ...r, updated_at: new Date(now - updatedAgoMs).toISOString() };
  await stores.deliveries.put(record.delivery_id, record);
  return record;
}

/** Every id the index lists under a prefix. */
function listed(model: ReadModel<DeliveryRecord, DeliveryView>, prefix: IndexKey): string[] {
  return model.page(prefix, { after: null, limit: 10_000, reverse: true }).items.map((r) => r.delivery_id);
}

test("each delivery is kept as its list view: not the envelope it sends, nor its internal state", async (t) => {
  const model = new ReadModel(lmdb, stores.deliveriesKv, { ...deliveryIndex, name: "deliveries.view-test", expiry: undefined }, log);
  await model.start();
  t.teardown(() => model.stop());
  const r = await put(subId(), 0);
  await model.catchUp();
  const kept = model.get(r.delivery_id) as Record<string, unknown> | null;
  t.same(kept, deliveryView(r), "what the list shows, as GET /v1/webhooks/deliveries shows it");
  t.notOk(kept && "envelope" in kept, "the envelope stays in the bucket (the detail reads it there)");
  t.notOk(kept && "internal" in kept);
});

test("expired deliveries are pruned from the index at start and on every prune, from every filter's index", async (t) => {
  const sub = subId();
  const expired = [await put(sub, 40 * DAY), await put(sub, 31 * DAY), await put(sub, 35 * DAY, 30 * DAY + 60_000)];
  const kept = [await put(sub, 40 * DAY, 29 * DAY), await put(sub, 0)];
  t.equal(deliveryIndex.expiry?.everyMs, DELIVERY_PRUNE_EVERY_MS);
  t.equal(DELIVERY_PRUNE_EVERY_MS, 3_600_000, "hourly");
  const model = new ReadModel(lmdb, stores.deliveriesKv, deliveryIndex, log);
  await model.start();
  t.teardown(() => model.stop());
  await model.catchUp();
  // The prune at start runs once the bucket's contents are applied, in the background.
  await eventually(async () => (expired.every((r) => model.get(r.delivery_id) === null) ? true : undefined), 3_000, 10);
  for (const r of expired) t.equal(model.get(r.delivery_id), null, `${r.delivery_id} (last written ${r.updated_at}) pruned at start`);
  for (const r of kept) t.ok(model.get(r.delivery_id), `${r.delivery_id} (last written ${r.updated_at}) kept`);
  t.same(listed(model, deliveryPrefix({ status: null, subscription_id: sub, event_id: null })).sort(), kept.map((r) => r.delivery_id).sort());

  // One that expires while the gateway runs (here: written already old, after start).
  const late = await put(sub, 32 * DAY);
  await model.catchUp();
  t.ok(model.get(late.delivery_id), "followed from the bucket");
  t.equal(await model.prune((r) => !isRetained(r, Date.now()), 2), 1, "a prune takes it (scanning two documents at a time)");
  t.equal(model.get(late.delivery_id), null);
  for (const f of [
    { status: null, subscription_id: null, event_id: null },
    { status: "pending", subscription_id: null, event_id: null },
    { status: null, subscription_id: sub, event_id: null },
    { status: null, subscription_id: null, event_id: late.event_id },
    { status: "pending", subscription_id: sub, event_id: late.event_id },
  ]) {
    t.notOk(listed(model, deliveryPrefix(f)).includes(late.delivery_id), `gone from the ${JSON.stringify(f)} index`);
  }
  t.equal(await model.prune((r) => !isRetained(r, Date.now())), 0, "nothing more to prune");
  t.same(listed(model, deliveryPrefix({ status: null, subscription_id: sub, event_id: null })).sort(), kept.map((r) => r.delivery_id).sort(), "the rest stays");

  // A later write of a pruned key (the bucket is the truth) brings it back.
  const revived = { ...late, updated_at: new Date().toISOString() };
  await stores.deliveries.put(revived.delivery_id, revived);
  await model.catchUp();
  t.ok(model.get(late.delivery_id), "a new write is indexed again");
});

test("the prune runs on its own, every `everyMs`", async (t) => {
  const sub = subId();
  const spec = { ...deliveryIndex, name: "deliveries.prune-test", expiry: { everyMs: 100, expired: deliveryIndex.expiry?.expired ?? (() => false) } };
  const model = new ReadModel(lmdb, stores.deliveriesKv, spec, log);
  await model.start();
  t.teardown(() => model.stop());
  const old = await put(sub, 31 * DAY);
  const fresh = await put(sub, 0);
  await model.catchUp();
  await eventually(async () => (model.get(old.delivery_id) === null ? true : undefined), 3_000, 20);
  t.equal(model.get(old.delivery_id), null, "pruned by the timer");
  t.ok(model.get(fresh.delivery_id));
});

test("a filtered walk skips expired deliveries without shortening a page; next is null when none follows", async (t) => {
  const sub = subId();
  const model = new ReadModel(lmdb, stores.deliveriesKv, { ...deliveryIndex, name: "deliveries.walk-test", expiry: undefined }, log);
  await model.start();
  t.teardown(() => model.stop());
  // Newest first: kept, expired, kept, expired, ... (created 40 days ago and on; the kept ones were written since).
  const keptIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await put(sub, 40 * DAY - i * 3_600_000, i % 2 === 0 ? 0 : 31 * DAY);
    if (i % 2 === 0) keptIds.unshift(r.delivery_id);
  }
  await put(sub, 41 * DAY); // the oldest is expired too: the last page must not promise more
  await model.catchUp();
  const now = Date.now();
  const accept = (r: DeliveryView): boolean => isRetained(r, now);
  const prefix = deliveryPrefix({ status: "pending", subscription_id: sub, event_id: null });
  const seen: string[] = [];
  let after: IndexKey | null = null;
  let pages = 0;
  do {
    const page = model.page(prefix, { after, limit: 2, reverse: true, accept });
    pages++;
    if (page.next !== null) t.equal(page.items.length, 2, `page ${pages} is full while more follow`);
    seen.push(...page.items.map((r) => r.delivery_id));
    after = page.next;
  } while (after !== null && pages < 20);
  t.same(seen, keptIds, "every retained delivery once, newest first");
  t.equal(pages, 3, "5 items, limit 2: three pages, the last without a next cursor");
  t.equal(model.page(prefix, { after: null, limit: 5, reverse: true, accept }).next, null, "exactly `limit` left: no next cursor to an empty page");
});

test("every combination of status, subscription and event lists exactly its deliveries, newest first, page by page", async (t) => {
  const model = new ReadModel(lmdb, stores.deliveriesKv, { ...deliveryIndex, name: "deliveries.filters-test", expiry: undefined }, log);
  await model.start();
  t.teardown(() => model.stop());
  await model.catchUp(); // the other tests' deliveries, before the writes are counted
  const writes = countIndexWrites(model);

  // Two events, each delivered to three subscriptions; a third event to one of them. Statuses vary.
  const subs = [subId(), subId(), subId()];
  const events = [makeEvent("agent.connected"), makeEvent("agent.connected"), makeEvent("agent.connected")];
  const statuses = ["pending", "delivered", "failed_permanent"] as const;
  const all: DeliveryRecord[] = [];
  const base = Date.now() - 60_000;
  for (const [e, event] of events.entries()) {
    for (const [i, sub] of subs.entries()) {
      if (e === 2 && i > 0) continue;
      const r = newDeliveryRecord({ deliveryId: `dlv_FLT${String(n++).padStart(23, "0")}`, subscriptionId: sub, envelope: event as DeliveryRecord["envelope"], nowMs: base + all.length * 1000 });
      const record = { ...r, status: statuses[(e + i) % 3] as DeliveryRecord["status"] };
      await stores.deliveries.put(record.delivery_id, record);
      all.push(record);
    }
  }
  await model.catchUp();
  t.same(writes, { put: 5 * all.length, remove: 0 }, "five index entries a delivery");

  const newestFirst = [...all].reverse();
  let combinations = 0;
  for (const status of [null, ...statuses]) {
    for (const subscription_id of [null, ...subs]) {
      for (const event_id of [null, ...events.map((e) => e.event_id)]) {
        const f: DeliveryFilter = { status, subscription_id, event_id };
        const expected = newestFirst.filter((r) => (status === null || r.status === status) && (subscription_id === null || r.subscription_id === subscription_id) && (event_id === null || r.event_id === event_id));
        // A page of one at a time: the walk's checks must never shorten a page or end the list early.
        const walk = deliveryWalk(f);
        const seen: string[] = [];
        let after: IndexKey | null = null;
        for (let pages = 0; pages < 1_000; pages++) {
          const page = model.page(walk.prefix, { after, limit: 1, reverse: true, accept: walk.matches });
          seen.push(...page.items.map((r) => r.delivery_id));
          if (page.next !== null) t.equal(page.items.length, 1);
          after = page.next;
          if (after === null) break;
        }
        // The bucket holds the other tests' deliveries too: only this test's are compared.
        const ours = new Set(all.map((r) => r.delivery_id));
        t.same(seen.filter((id) => ours.has(id)), expected.map((r) => r.delivery_id), `filter ${JSON.stringify(f)}`);
        combinations++;
      }
    }
  }
  t.equal(combinations, 4 * 4 * 4);

  // A status change rewrites the two entries that name the status, not the subscription's or the event's.
  const moved = all[0] as DeliveryRecord;
  const before = { ...writes };
  await stores.deliveries.put(moved.delivery_id, { ...moved, status: moved.status === "delivered" ? "pending" : "delivered", attempt_count: 1 });
  await model.catchUp();
  t.same({ put: writes.put - before.put, remove: writes.remove - before.remove }, { put: 2, remove: 2 });
});

test("teardown", async () => {
  await lmdb.close();
  dir.remove();
  await nc.close();
  await server.stop();
});
