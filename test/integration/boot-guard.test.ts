// shared/boot-guard.ts and the local store's unflushed commits, against real LMDB files and a real nats-server: a
// store opened again in the same boot keeps what it holds; one opened in another boot of the machine (or left by a
// version that did not mark its boot) is discarded before it is opened, and a read model on it is rebuilt from its
// bucket; without a boot id every commit is flushed and nothing is discarded.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "lmdb";
import { pino } from "pino";
import { test } from "tap";
import { currentBootId, discardAfterRestart } from "../../shared/boot-guard.js";
import { LocalStore } from "../../shared/local-store.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { ReadModel, type IndexKey, type ReadModelSpec } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

async function storeWith(dir: string, bootId: string | null, docs: Record<string, number>): Promise<LocalStore> {
  const store = new LocalStore(dir, { mappedBudgetBytes: 0, bootId, log });
  let db!: Database<number, string>;
  store.bind((root) => (db = root.openDB({ name: "docs" })));
  await store.write(() => db.transaction(() => {
    for (const [k, v] of Object.entries(docs)) void db.put(k, v);
  }));
  return store;
}

function read(store: LocalStore, key: string): number | undefined {
  return store.root.openDB<number, string>({ name: "docs" }).get(key);
}

test("the kernel's boot id is read where there is one", { skip: process.platform !== "linux" && "Linux only" }, async (t) => {
  const id = currentBootId();
  t.match(id, /^[0-9a-f-]{36}$/, `this boot: ${id}`);
  t.equal(currentBootId(), id, "the same for the whole boot");
});

test("opened again in the same boot, the store keeps its documents and does not flush its commits", async (t) => {
  const dir = tempDir("inquest-boot-same-");
  const first = await storeWith(dir.path, "boot-a", { one: 1, two: 2 });
  t.same({ flushed: first.snapshot().flushed, discarded: first.snapshot().discarded }, { flushed: false, discarded: false });
  await first.close();
  t.equal(readFileSync(join(dir.path, "boot-id"), "utf8").trim(), "boot-a", "the directory names the boot that opened it");

  const again = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-a", log });
  t.equal(again.snapshot().discarded, false);
  t.equal(read(again, "one"), 1);
  t.equal(read(again, "two"), 2);
  await again.close();
});

test("opened in another boot, the file is discarded before it is opened, and the directory names the new boot", async (t) => {
  const dir = tempDir("inquest-boot-other-");
  await (await storeWith(dir.path, "boot-a", { one: 1 })).close();
  t.ok(existsSync(join(dir.path, "data.mdb")));

  const after = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-b", log });
  t.equal(after.snapshot().discarded, true);
  t.equal(read(after, "one"), undefined, "nothing written in the earlier boot is read");
  t.equal(readFileSync(join(dir.path, "boot-id"), "utf8").trim(), "boot-b");
  await after.close();
});

test("a file without a boot mark (written by an earlier version, flushing every commit) is discarded once", async (t) => {
  const dir = tempDir("inquest-boot-unmarked-");
  await (await storeWith(dir.path, null, { one: 1 })).close();
  t.notOk(existsSync(join(dir.path, "boot-id")), "without a boot id the directory is not marked");

  const first = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-a", log });
  t.equal(first.snapshot().discarded, true);
  await first.close();
  const second = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-a", log });
  t.equal(second.snapshot().discarded, false, "marked now: kept from then on");
  await second.close();
});

test("without a boot id every commit is flushed and files are kept whatever they were marked with", async (t) => {
  const dir = tempDir("inquest-boot-none-");
  await (await storeWith(dir.path, "boot-a", { one: 1 })).close();
  const store = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: null, log });
  t.same({ flushed: store.snapshot().flushed, discarded: store.snapshot().discarded }, { flushed: true, discarded: false });
  t.equal(read(store, "one"), 1);
  await store.close();
});

test("discardAfterRestart removes only the files it is given, and a damaged mark counts as another boot", async (t) => {
  const dir = tempDir("inquest-boot-files-");
  writeFileSync(join(dir.path, "data.mdb"), "half-written");
  writeFileSync(join(dir.path, "keep.txt"), "other");
  writeFileSync(join(dir.path, "boot-id"), "\u0000\u0000");
  t.equal(discardAfterRestart(dir.path, "boot-c", ["data.mdb", "lock.mdb"], log), true);
  t.notOk(existsSync(join(dir.path, "data.mdb")));
  t.ok(existsSync(join(dir.path, "keep.txt")));
  t.equal(discardAfterRestart(dir.path, "boot-c", ["data.mdb", "lock.mdb"], log), false, "nothing to discard the second time");
});

test("a read model on a store discarded after a restart is rebuilt from its bucket", async (t) => {
  const kv = await new Kvm(nc).create("BOOT_GUARD_MODEL");
  interface Doc {
    group: string;
    n: number;
  }
  const spec: ReadModelSpec<Doc> = { name: "boot.v1", indexKeys: (d) => [["group", d.group, String(d.n).padStart(4, "0")]] };
  for (let i = 0; i < 200; i++) await kv.put(`k${i}`, encodeJson({ group: i % 2 === 0 ? "even" : "odd", n: i }));
  const dir = tempDir("inquest-boot-model-");

  const before = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-a", log });
  const first = new ReadModel<Doc>(before, kv, spec, log);
  await first.start();
  await first.catchUp(10_000);
  t.equal(first.get("k7")?.n, 7);
  await first.stop();
  await before.close();

  // The machine restarted; meanwhile the bucket changed.
  await kv.put("k7", encodeJson({ group: "even", n: 7 }));
  await kv.delete("k8");
  const after = new LocalStore(dir.path, { mappedBudgetBytes: 0, bootId: "boot-b", log });
  t.equal(after.snapshot().discarded, true);
  const second = new ReadModel<Doc>(after, kv, spec, log);
  await second.start();
  await second.catchUp(10_000);
  t.same(second.get("k7"), { group: "even", n: 7 });
  t.equal(second.get("k8"), null);
  let even = 0;
  let after_: IndexKey | null = null;
  for (;;) {
    const page = second.page(["group", "even"], { after: after_, limit: 50, reverse: false });
    even += page.items.length;
    if (!page.next) break;
    after_ = page.next;
  }
  t.equal(even, 100, "100 even documents listed: the 100 of the bucket, with k7 moved in and k8 gone");
  await second.stop();
  await after.close();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
