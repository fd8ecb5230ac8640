// shared/readmodel.ts against a real nats-server and LMDB: an entry whose LMDB write failed is replayed
// at the next start (the checkpoint never moved past it), even though later entries were applied.
import { Kvm } from "@nats-io/kv";
import type { Key } from "lmdb";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel, type ReadModelSpec } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { countIndexWrites } from "../helpers/readmodel.js";
import { tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

interface Doc {
  tag: string;
}

test("a failed LMDB write is replayed at the next start, though later entries were applied", async (t) => {
  const kv = await new Kvm(nc).create("RM_FAILED_WRITE");
  // LMDB refuses keys over ~2 KB: this index fails for the document with a long tag (a real write failure).
  const failing: ReadModelSpec<Doc> = { name: "docs.v1", indexKeys: (d) => [["tag", d.tag]] };
  const fixed: ReadModelSpec<Doc> = { name: "docs.v1", indexKeys: (d) => [["tag", d.tag.slice(0, 100)]] };
  await kv.put("a", encodeJson({ tag: "a" }));
  await kv.put("b", encodeJson({ tag: "b".repeat(5_000) }));
  await kv.put("c", encodeJson({ tag: "c" }));
  const dir = tempDir("inquest-readmodel-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });

  const first = new ReadModel<Doc>(lmdb, kv, failing, log);
  await first.start();
  await eventually(async () => (first.get("c") ? true : undefined));
  t.ok(first.get("a"), "the entry before is applied");
  t.equal(first.get("b"), null, "the write of b failed");
  t.ok(first.get("c"), "the entry after is applied");
  await first.stop();

  const second = new ReadModel<Doc>(lmdb, kv, fixed, log);
  await second.start();
  const b = await eventually(async () => second.get("b") ?? undefined, 3_000).catch(() => null);
  t.ok(b, "b is replayed at the next start");
  t.same(second.page(["tag"], { after: null, limit: 10, reverse: false }).items.length, 3, "and indexed");
  await second.stop();
  await lmdb.close();
});

test("an update rewrites only the index entries that change; pages follow the new values", async (t) => {
  const kv = await new Kvm(nc).create("RM_INDEX_DIFF");
  interface Item {
    status: string;
    group: string;
  }
  const spec: ReadModelSpec<Item> = {
    name: "items.v1",
    indexKeys: (d) => [
      ["all", 1],
      ["status", d.status, 1],
      ["group", d.group, 1],
      ["status+group", d.status, d.group, 1],
    ].map((k) => [...k, "x"]),
  };
  const dir = tempDir("inquest-readmodel-diff-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Item>(lmdb, kv, spec, log);
  await model.start();
  // Every index write the model makes, counted at the LMDB sub-database (what the diff saves).
  const writes = countIndexWrites(model);
  const items = (prefix: Array<string | number>): number => model.page(prefix, { after: null, limit: 10, reverse: false }).items.length;

  await kv.put("x", encodeJson({ status: "pending", group: "g1" }));
  await eventually(async () => (model.get("x") ? true : undefined));
  t.same(writes, { put: 4, remove: 0 }, "a new document: every entry written");

  await kv.put("x", encodeJson({ status: "delivered", group: "g1" }));
  await eventually(async () => (model.get("x")?.status === "delivered" ? true : undefined));
  t.same(writes, { put: 6, remove: 2 }, "a status change: the two entries naming the status, not the other two");
  t.equal(items(["status", "pending"]), 0);
  t.equal(items(["status", "delivered"]), 1);
  t.equal(items(["status+group", "delivered", "g1"]), 1);
  t.equal(items(["group", "g1"]), 1);
  t.equal(items(["all"]), 1);

  await kv.put("x", encodeJson({ status: "delivered", group: "g1" }));
  await model.catchUp();
  t.same(writes, { put: 6, remove: 2 }, "the same values again: no index write");

  await kv.delete("x");
  await eventually(async () => (model.get("x") === null ? true : undefined));
  t.same(writes, { put: 6, remove: 6 }, "a delete removes every entry");
  t.equal(items(["all"]), 0);
  await model.stop();
  await lmdb.close();
});

test("each index has its own database; an entry whose key ends with its document's key does not store that key again", async (t) => {
  const kv = await new Kvm(nc).create("RM_ENTRY_VALUES");
  const spec: ReadModelSpec<Doc> = { name: "values.v1", indexKeys: (d) => [["by-tag", d.tag, "x"], ["all", d.tag]] };
  const dir = tempDir("inquest-readmodel-values-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(lmdb, kv, spec, log);
  await model.start();
  // Keys chosen to end the "by-tag" entries ("x") and not the "all" ones.
  await kv.put("x", encodeJson({ tag: "t1" }));
  await eventually(async () => (model.get("x") ? true : undefined));
  const raw = (index: string) => [...lmdb.root.openDB<unknown, Key>({ name: `values.v1:index:${index}` }).getRange({})].map(({ key, value }) => ({ key, value }));
  t.same(raw("by-tag"), [{ key: ["t1", "x"], value: 0 }], "ends with the document key: a one-byte marker, and no index name in the key");
  t.same(raw("all"), [{ key: "t1", value: "x" }], "does not: the document key (a one-element key reads back as its element)");
  t.same(model.page(["by-tag"], { after: null, limit: 10, reverse: false }).items, [{ tag: "t1" }]);
  t.same(model.page(["all"], { after: null, limit: 10, reverse: true }).items, [{ tag: "t1" }]);
  t.same(model.page(["none"], { after: null, limit: 10, reverse: false }), { items: [], next: null }, "an index nothing was written to is empty");
  await model.stop();
  await lmdb.close();
  dir.remove();
});

test("a model written in the older layout (every index in one database) is rebuilt from the bucket at start", async (t) => {
  const kv = await new Kvm(nc).create("RM_OLD_LAYOUT");
  const spec: ReadModelSpec<Doc> = { name: "layout.v1", indexKeys: (d) => [["tag", d.tag, d.tag]] };
  await kv.put("a", encodeJson({ tag: "a" }));
  await kv.put("b", encodeJson({ tag: "b" }));
  const dir = tempDir("inquest-readmodel-layout-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  // What the older version left: documents, the checkpoint, and every entry in one "<name>:index" database.
  const oldIndex = lmdb.root.openDB<string, Array<string | number>>({ name: "layout.v1:index" });
  await lmdb.root.openDB({ name: "layout.v1:docs" }).put("a", { revision: 1, doc: { tag: "a" } });
  await oldIndex.put(["tag", "a", "a"], "a");
  await lmdb.root.openDB<number, string>({ name: "layout.v1:meta" }).put("checkpoint", 1);
  const model = new ReadModel<Doc>(lmdb, kv, spec, log);
  await model.start();
  await model.catchUp();
  t.same(model.page(["tag"], { after: null, limit: 10, reverse: false }).items, [{ tag: "a" }, { tag: "b" }], "every document listed, the one the old copy had and the one it missed");
  t.notOk([...lmdb.root.getKeys()].includes("layout.v1:index"), "the old database is dropped");
  t.equal([...lmdb.root.openDB({ name: "layout.v1:index" }).getKeys()].length, 0, "nothing of it is left");
  await model.stop();
  // Started again: the layout is current, nothing is rebuilt (the checkpoint stays).
  const again = new ReadModel<Doc>(lmdb, kv, spec, log);
  const meta = lmdb.root.openDB<number, string>({ name: "layout.v1:meta" });
  const checkpoint = meta.get("checkpoint");
  await again.start();
  t.equal(meta.get("checkpoint"), checkpoint);
  t.equal(meta.get("layout"), 2);
  t.same(again.page(["tag"], { after: null, limit: 10, reverse: false }).items, [{ tag: "a" }, { tag: "b" }]);
  await again.stop();
  await lmdb.close();
  dir.remove();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
