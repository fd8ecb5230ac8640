// shared/readmodel.ts against a real nats-server and LMDB: an entry whose LMDB write failed is replayed
// at the next start (the checkpoint never moved past it), even though later entries were applied.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { openLmdb, ReadModel, type ReadModelSpec } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
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
  const lmdb = openLmdb(dir.path);

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

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
