// A bucket watch whose consumer is gone while the connection stays up (in a cluster: the node holding the watch's
// ordered consumer died). The client library notices only after missed idle heartbeats (~90 s seen on a cluster);
// followBucket's watchdog must reopen the watch within seconds, a read model's catchUp must not adopt a head it did
// not apply (read-your-writes), and a live copy must see a revocation without anyone asking it to catch up. On one
// server, deleting the watch's consumer is the lost consumer.
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { BucketMirror } from "../../shared/nats/follow.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

/** Deletes every consumer of the bucket's stream (the watch's, here), as a dead node takes it away. */
async function loseWatchConsumers(bucket: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  let n = 0;
  for await (const c of jsm.consumers.list(`KV_${bucket}`)) {
    await jsm.consumers.delete(`KV_${bucket}`, c.name);
    n++;
  }
  return n;
}

async function within(ms: number, done: () => boolean): Promise<number> {
  const started = Date.now();
  while (!done() && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 50));
  return Date.now() - started;
}

interface Doc {
  id: string;
}

test("a read model whose watch consumer is lost: a list right after a write still has it", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOST_RM");
  await kv.put("a", encodeJson({ id: "a" }));
  const dir = tempDir("inquest-follow-lost-");
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(lmdb, kv, { name: "docs.v1", indexKeys: (d) => [["all", d.id]] }, log);
  await model.start();
  await model.catchUp();
  t.equal(await loseWatchConsumers("FOLLOW_LOST_RM"), 1, "the watch's consumer is gone");
  await kv.put("b", encodeJson({ id: "b" }));
  const started = Date.now();
  await model.catchUp();
  const ids = model.page(["all"], { after: null, limit: 10, reverse: false }).items.map((d) => d.id);
  t.same(ids, ["a", "b"], `the list after catchUp holds the write (catchUp took ${Date.now() - started} ms)`);
  await kv.put("c", encodeJson({ id: "c" }));
  await model.catchUp();
  t.ok(model.get("c"), "and the reopened watch keeps following");
  await model.stop();
  await lmdb.close();
});

test("a live copy whose watch consumer is lost sees a change within seconds, with no catchUp", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOST_MIRROR");
  await kv.put("key", encodeJson({ id: "valid" }));
  const mirror = new BucketMirror<Doc>(kv, log);
  await mirror.start();
  t.equal(mirror.get("key")?.id, "valid");
  t.equal(await loseWatchConsumers("FOLLOW_LOST_MIRROR"), 1, "the watch's consumer is gone");
  await kv.put("key", encodeJson({ id: "revoked" }));
  const took = await within(30_000, () => mirror.get("key")?.id === "revoked");
  t.equal(mirror.get("key")?.id, "revoked", "the change is applied");
  t.ok(took < 10_000, `within seconds (took ${took} ms), not after the library's missed heartbeats`);
  await mirror.stop();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
