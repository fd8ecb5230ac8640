// shared/local-store.ts against real LMDB files and a real nats-server: past its budget of mapped bytes the store
// reopens the environment, which unmaps the file's pages; writes that come meanwhile wait and land in order, reads
// never meet a closed database, and a read model following a bucket through many reopens ends with what the bucket
// holds.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "lmdb";
import { pino } from "pino";
import { test } from "tap";
import { LocalStoreUnavailableError } from "../../shared/errors.js";
import { LocalStore } from "../../shared/local-store.js";
import { mappedBytes, residentOf } from "../../shared/mapped-bytes.js";
import { AppliedRevision } from "../../shared/nats/applied.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { ReadModel, type ReadModelSpec } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";

const log = pino({ level: "silent" });
const MiB = 1024 * 1024;
let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

test("residentOf sums the Rss of every mapping of the file, and only of it", async (t) => {
  const smaps = [
    "7f00-7f10 r--s 00000000 08:01 12 /data/lmdb/data.mdb",
    "Size:               64 kB",
    "KernelPageSize:      4 kB",
    "MMUPageSize:         4 kB",
    "Rss:                48 kB",
    "Pss:                48 kB",
    "7f10-7f20 r--p 00000000 08:01 13 /usr/bin/node",
    "Size:             4096 kB",
    "Rss:              4000 kB",
    "7f20-7f30 r--s 00010000 08:01 12 /data/lmdb/data.mdb",
    "Size:               64 kB",
    "Rss:                 8 kB",
    "7f30-7f40 r--s 00000000 08:01 14 /data/lmdb/data.mdb.bak",
    "Size:               64 kB",
    "Rss:                64 kB",
    "",
  ].join("\n");
  t.equal(residentOf(smaps, "/data/lmdb/data.mdb"), 56 * 1024);
  t.equal(residentOf(smaps, "/data/other.mdb"), 0);
});

test("a reopen unmaps the file's pages and keeps every document; past the budget, check() reopens", { skip: process.platform !== "linux" && "reads /proc/self/smaps" }, async (t) => {
  const dir = tempDir("inquest-local-store-");
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 8 * MiB, log });
  // Bound now and opened again after every reopen.
  let db!: Database<{ n: number; text: string }, string>;
  store.bind((root) => (db = root.openDB({ name: "docs" })));
  const file = join(dir.path, "data.mdb");
  for (let b = 0; b < 30; b++) {
    await store.write(() => db.transaction(() => {
      for (let i = 0; i < 1_000; i++) void db.put(`k${String(b * 1_000 + i).padStart(6, "0")}`, { n: b * 1_000 + i, text: "x".repeat(600) });
    }));
  }
  let count = 0;
  for (const _ of db.getRange()) count++;
  t.equal(count, 30_000);
  const before = (await mappedBytes(file)) ?? 0;
  t.ok(before > 16 * MiB, `reading every document maps the file (${(before / MiB).toFixed(1)} MiB)`);

  t.equal(await store.check(), true, "past the budget: reopened");
  const after = (await mappedBytes(file)) ?? 0;
  t.ok(after < 2 * MiB, `the pages are unmapped (${(after / MiB).toFixed(2)} MiB mapped after)`);
  t.equal(store.snapshot().reopens, 1);
  t.same(db.get("k012345"), { n: 12_345, text: "x".repeat(600) }, "a database bound to the store reads from the new environment");
  t.equal(await store.check(), false, "under the budget: left alone");
  t.equal(store.snapshot().reopens, 1);

  const unbounded = new LocalStore(join(dir.path, "other"), { mappedBudgetBytes: 0, log });
  t.equal(await unbounded.check(), false, "no budget: never reopened");
  await unbounded.close();
  await store.close();
  dir.remove();
});

test("a reopen is given up only when it freed nothing, not when the working set was mapped again at once", async (t) => {
  const dir = tempDir("inquest-local-store-");
  const measured: Array<number | null> = [];
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 1 * MiB, log, measure: async () => measured.shift() ?? null });
  store.bind((root) => root.openDB({ name: "docs" }));
  // Under load: 1.6 MiB mapped, 1.34 MiB again right after the reopen (reads in between mapped their pages).
  measured.push(1.6 * MiB, 1.34 * MiB, 1.6 * MiB, 1.3 * MiB);
  t.equal(await store.check(), true, "reopened");
  t.equal(await store.check(), true, "and reopens again at the next check");
  t.equal(store.snapshot().reopens, 2);
  // Another handle holds the file: the reopen freed nothing; no more reopens (each would be for nothing).
  measured.push(1.6 * MiB, 1.6 * MiB, 1.7 * MiB);
  t.equal(await store.check(), true);
  t.equal(await store.check(), false, "given up");
  t.equal(store.snapshot().reopens, 3);
  await store.close();
  dir.remove();
});

test("writes that come during a reopen wait for it and land in the order they came", async (t) => {
  const dir = tempDir("inquest-local-store-order-");
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  let db!: Database<number, string>;
  store.bind((root) => (db = root.openDB({ name: "counter" })));
  const order: number[] = [];
  const writes: Array<Promise<unknown>> = [];
  // One write under way when the reopen starts: the reopen waits for it.
  writes.push(store.write(() => db.put("v", 0).then(() => void order.push(0))));
  const reopening = store.reopen();
  for (let i = 1; i <= 50; i++) writes.push(store.write(() => db.transaction(() => {
    // Each write reads the value the one before left: out of order or lost, the sequence breaks.
    const seen = db.get("v");
    void db.put("v", i);
    order.push(seen === i - 1 ? i : -i);
  })));
  await reopening;
  await Promise.all(writes);
  t.same(order, Array.from({ length: 51 }, (_, i) => i), "every write saw the one before it");
  t.equal(db.get("v"), 50);
  t.equal(store.snapshot().reopens, 1);
  await store.close();
  dir.remove();
});

test("a read model follows its bucket through many reopens; reads in between never fail", async (t) => {
  const kv = await new Kvm(nc).create("LOCAL_STORE_REOPENS");
  interface Doc {
    group: string;
    n: number;
  }
  const spec: ReadModelSpec<Doc> = { name: "docs.v1", indexKeys: (d) => [["group", d.group, String(d.n).padStart(5, "0")]] };
  const dir = tempDir("inquest-local-store-model-");
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(store, kv, spec, log);
  await model.start();

  let readFailures = 0;
  let reads = 0;
  let reading = true;
  const reader = (async () => {
    while (reading) {
      try {
        model.get(`k${reads % 500}`);
        model.page(["group", "g1"], { after: null, limit: 5, reverse: true });
        reads++;
      } catch {
        readFailures++;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  })();
  let reopening = true;
  const reopener = (async () => {
    while (reopening) {
      await store.reopen();
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
    }
  })();

  for (let i = 0; i < 500; i++) await kv.put(`k${i}`, encodeJson({ group: i % 2 === 0 ? "g0" : "g1", n: i }));
  for (let i = 0; i < 500; i += 3) await kv.put(`k${i}`, encodeJson({ group: "g2", n: i }));
  for (let i = 1; i < 500; i += 5) await kv.delete(`k${i}`);
  await eventually(async () => (model.get("k498")?.group === "g2" && model.get("k496") === null ? true : undefined), 10_000);
  await model.catchUp(10_000);
  reopening = false;
  await reopener;
  reading = false;
  await reader;

  t.ok(store.snapshot().reopens >= 10, `the store reopened ${store.snapshot().reopens} times while the model applied 1,267 writes`);
  t.ok(reads > 100, `${reads} reads ran in between`);
  t.equal(readFailures, 0, "none of them failed");
  const expected = new Map<string, Doc>();
  for (let i = 0; i < 500; i++) expected.set(`k${i}`, { group: i % 2 === 0 ? "g0" : "g1", n: i });
  for (let i = 0; i < 500; i += 3) expected.set(`k${i}`, { group: "g2", n: i });
  for (let i = 1; i < 500; i += 5) expected.delete(`k${i}`);
  let wrong = 0;
  for (let i = 0; i < 500; i++) {
    const want = expected.get(`k${i}`) ?? null;
    if (JSON.stringify(model.get(`k${i}`)) !== JSON.stringify(want)) wrong++;
  }
  t.equal(wrong, 0, "every document is what the bucket holds");
  for (const group of ["g0", "g1", "g2"]) {
    const want = [...expected.values()].filter((d) => d.group === group).length;
    t.equal(model.page(["group", group], { after: null, limit: 1_000, reverse: false }).items.length, want, `the ${group} index lists ${want}`);
  }
  await model.stop();
  await store.close();
  dir.remove();
});

test("reads in every microtask of a reopen either answer or are refused as unavailable, never reaching a closed environment", async (t) => {
  const kv = await new Kvm(nc).create("LOCAL_STORE_WINDOW");
  const spec: ReadModelSpec<{ n: number }> = { name: "window.v1", indexKeys: (d) => [["all", String(d.n)]] };
  const dir = tempDir("inquest-local-store-window-");
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<{ n: number }>(store, kv, spec, log);
  await model.start();
  await kv.put("k1", encodeJson({ n: 1 }));
  await eventually(async () => (model.get("k1") ? true : undefined));
  const outcomes = { answered: 0, refused: 0, other: [] as string[] };
  const read = (): void => {
    try {
      if (model.get("k1")?.n !== 1 || model.page(["all"], { after: null, limit: 5, reverse: false }).items.length !== 1) outcomes.other.push("wrong answer");
      else outcomes.answered++;
    } catch (err) {
      if (err instanceof LocalStoreUnavailableError) outcomes.refused++;
      else outcomes.other.push(String(err));
    }
  };
  for (let round = 0; round < 5; round++) {
    const reopened = store.reopen();
    // A read at each of the next 40 microtask hops, across the close and the open.
    let hop: Promise<void> = Promise.resolve();
    for (let i = 0; i < 40; i++) hop = hop.then(read);
    await hop;
    t.equal(await reopened, true);
  }
  // lmdb resets a read transaction a failed read left behind on a timer: a read that reached the closed environment
  // would throw there, uncaught, after the reads above.
  await new Promise((r) => setTimeout(r, 100));
  t.same(outcomes.other, [], `${outcomes.answered} reads answered, ${outcomes.refused} refused, none failed otherwise`);
  t.equal(outcomes.answered + outcomes.refused, 200);
  read();
  t.equal(outcomes.answered + outcomes.refused, 201, "and reads answer after it");
  await model.stop();
  await store.close();
  dir.remove();
});

test("a document the spec cannot index is skipped with the follower's log; later ones are applied", async (t) => {
  const kv = await new Kvm(nc).create("LOCAL_STORE_BAD_DOC");
  interface Doc {
    context?: { source: string };
  }
  // Reads a field some documents lack, as a spec written for a newer record shape might.
  const spec: ReadModelSpec<Doc> = { name: "bad.v1", indexKeys: (d) => [["source", (d.context as { source: string }).source, "x"]] };
  const dir = tempDir("inquest-local-store-bad-");
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(store, kv, spec, log);
  await model.start();
  await kv.put("a", encodeJson({ context: { source: "api" } }));
  await kv.put("b", encodeJson({}));
  await kv.put("c", encodeJson({ context: { source: "inbound" } }));
  await eventually(async () => (model.get("c") ? true : undefined));
  t.ok(model.get("a"), "the document before is applied");
  t.equal(model.get("b"), null, "the one it cannot index is not");
  t.ok(model.get("c"), "the one after is applied: the process goes on");
  await model.stop();
  await store.close();
  dir.remove();
});

/** Resolves true when `p` settles within `ms`, false otherwise. */
const within = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

test("a read model starts when every entry after its checkpoint expired while it was down (a bucket with a TTL)", async (t) => {
  const kv = await new Kvm(nc).create("LOCAL_STORE_TTL", { ttl: 1_000 });
  const spec: ReadModelSpec<{ n: number }> = { name: "ttl.v1", indexKeys: () => [] };
  const dir = tempDir("inquest-local-store-ttl-");
  t.teardown(() => dir.remove());
  let store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  let model = new ReadModel<{ n: number }>(store, kv, spec, log);
  await model.start();
  await kv.put("a", encodeJson({ n: 1 }));
  await eventually(async () => (model.get("a") ? true : undefined));
  await model.stop();
  await store.close();
  // Written while the model is down, then gone with the TTL: the head is past the checkpoint, yet nothing comes.
  await kv.put("b", encodeJson({ n: 2 }));
  await kv.put("c", encodeJson({ n: 3 }));
  await eventually(async () => ((await kv.status()).streamInfo.state.messages === 0 ? true : undefined), 10_000);
  store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  model = new ReadModel<{ n: number }>(store, kv, spec, log);
  t.ok(await within(model.start(), 5_000), "started: nothing was left to wait for");
  await kv.put("d", encodeJson({ n: 4 }));
  await eventually(async () => (model.get("d") ? true : undefined));
  t.ok(model.get("d"), "and follows what comes next");
  await model.stop();
  await store.close();
});

test("a read model starts when the newest entry is one it cannot take; a head it never applies is waited out once", async (t) => {
  const kv = await new Kvm(nc).create("LOCAL_STORE_BAD_LAST");
  const spec: ReadModelSpec<{ n: number }> = { name: "badlast.v1", indexKeys: () => [] };
  await kv.put("a", encodeJson({ n: 1 }));
  await kv.put("z", new TextEncoder().encode("not json"));
  const dir = tempDir("inquest-local-store-badlast-");
  t.teardown(() => dir.remove());
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<{ n: number }>(store, kv, spec, log);
  t.ok(await within(model.start(), 5_000), "started");
  await eventually(async () => (model.get("a") ? true : undefined));
  await model.catchUp(300);
  const started = performance.now();
  await model.catchUp(300);
  const ms = performance.now() - started;
  t.ok(ms < 300, `the second catch-up does not wait again for the head it never applies (${Math.round(ms)} ms; waiting is 300)`);
  const applied = new AppliedRevision(kv);
  t.equal(await applied.catchUp(50), false, "a copy at revision 0 does not reach the head");
  t.equal(applied.waiting, 0, "and the waiter that timed out is gone");
  await model.stop();
  await store.close();
});

test("one reopen at a time; a symlinked data directory is measured by its real path", { skip: process.platform !== "linux" && "reads /proc/self/smaps" }, async (t) => {
  const dir = tempDir("inquest-local-store-link-");
  mkdirSync(join(dir.path, "real"));
  symlinkSync(join(dir.path, "real"), join(dir.path, "link"));
  const store = new LocalStore(join(dir.path, "link"), { mappedBudgetBytes: 1 * MiB, log });
  let db!: Database<string, string>;
  store.bind((root) => (db = root.openDB({ name: "docs" })));
  await store.write(() => db.transaction(() => {
    for (let i = 0; i < 5_000; i++) void db.put(`k${String(i).padStart(5, "0")}`, "y".repeat(500));
  }));
  let n = 0;
  for (const _ of db.getRange()) n++;
  t.equal(n, 5_000);
  const [first, second] = await Promise.all([store.reopen(), store.reopen()]);
  t.ok(first && second, "both calls get the one reopen's outcome");
  t.equal(store.snapshot().reopens, 1, "which ran once");
  for (const _ of db.getRange()) n++;
  t.equal(await store.check(), true, "the file is found through the symlink and reopened past the budget");
  t.ok((store.snapshot().mappedBytes ?? Infinity) < 1 * MiB, "measured again after the reopen");
  await store.close();
  dir.remove();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
