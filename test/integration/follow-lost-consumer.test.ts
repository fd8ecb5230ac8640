// A bucket watch whose consumer is gone while the connection stays up (in a cluster: the node holding the watch's
// ordered consumer died). The client library notices only after missed idle heartbeats (~90 s on a cluster);
// followBucket's watchdog must reopen the watch within seconds, a read model's catchUp must not adopt a head it did
// not apply (read-your-writes), and a live copy must see a change without anyone asking it to catch up. On one
// server, deleting the watch's consumer is the lost consumer.
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import type { Logger } from "../../shared/log.js";
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

/** Waits until `done` holds, for at most `ms` (well under the library's ~90 s of missed heartbeats). */
async function until(ms: number, done: () => boolean): Promise<void> {
  const started = Date.now();
  while (!done() && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 50));
}

interface Doc {
  id: string;
}

test("a live copy whose watch consumer is lost sees the next write within seconds, with no catchUp", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOST_MIRROR");
  await kv.put("key", encodeJson({ id: "valid" }));
  const mirror = new BucketMirror<Doc>(kv, log);
  await mirror.start();
  t.equal(mirror.get("key")?.id, "valid");
  t.equal(await loseWatchConsumers("FOLLOW_LOST_MIRROR"), 1, "the watch's consumer is gone");
  await kv.put("key", encodeJson({ id: "revoked" }));
  await until(20_000, () => mirror.get("key")?.id === "revoked");
  t.equal(mirror.get("key")?.id, "revoked", "the change is applied (the library alone would take ~90 s)");
  await kv.put("other", encodeJson({ id: "later" }));
  await mirror.catchUp();
  t.equal(mirror.get("other")?.id, "later", "and the reopened watch keeps following");
  await mirror.stop();
});

test("a read model whose watch consumer is lost: a list after catchUp holds the write", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOST_RM");
  await kv.put("a", encodeJson({ id: "a" }));
  const dir = tempDir("inquest-follow-lost-");
  t.teardown(() => dir.remove());
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(lmdb, kv, { name: "docs.v1", indexKeys: (d) => [["all", d.id]] }, log);
  await model.start();
  await model.catchUp();
  t.equal(await loseWatchConsumers("FOLLOW_LOST_RM"), 1, "the watch's consumer is gone");
  await kv.put("b", encodeJson({ id: "b" }));
  await model.catchUp();
  const ids = model.page(["all"], { after: null, limit: 10, reverse: false }).items.map((d) => d.id);
  t.same(ids, ["a", "b"], "the list after catchUp holds the write");
  await kv.put("c", encodeJson({ id: "c" }));
  await model.catchUp();
  t.ok(model.get("c"), "and the reopened watch keeps following");
  await model.stop();
  await lmdb.close();
});

interface Counted {
  id: string;
  n: number;
}

/** A logger that keeps what is warned (the watchdog says each reopen). */
function warnings(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: "warn" }, { write: (s: string) => void lines.push(s) }), lines };
}

/** 2,000 writes over 500 keys, 20 at a time, after each of which `between(i)` runs; what each key holds last. */
async function writeLoad(kv: KV, between: (i: number) => Promise<void>): Promise<Map<string, Counted>> {
  const want = new Map<string, Counted>();
  for (let i = 0; i < 2_000; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, j) => {
        const doc = { id: `k${(i + j) % 500}`, n: i + j };
        await kv.put(doc.id, encodeJson(doc));
      }),
    );
    for (let j = 0; j < 20; j++) want.set(`k${(i + j) % 500}`, { id: `k${(i + j) % 500}`, n: i + j });
    await between(i);
  }
  return want;
}

function same(mirror: BucketMirror<Counted>, want: Map<string, Counted>): boolean {
  if (mirror.size !== want.size) return false;
  for (const [k, v] of want) if (mirror.get(k)?.n !== v.n) return false;
  return true;
}

test("under a steady write load a watchdog checking every 20 ms never reopens a watch that keeps up", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOAD");
  const { log: warnLog, lines } = warnings();
  const mirror = new BucketMirror<Counted>(kv, warnLog, undefined, undefined, { watchdogMs: 20 });
  await mirror.start();
  // Bursts with pauses between them: a check often finds the watch idle while a write is landing.
  const want = await writeLoad(kv, () => new Promise((r) => setTimeout(r, 5 + (Math.random() * 20))));
  t.ok(await mirror.catchUp(10_000), "caught up");
  t.ok(same(mirror, want), "the copy equals the bucket");
  t.same(lines.filter((l) => l.includes("stalled")), [], "no watch was reopened");
  await mirror.stop();
});

test("a watch reopened in the middle of a write load leaves the copy equal to the bucket", async (t) => {
  const kv: KV = await new Kvm(nc).create("FOLLOW_LOAD_LOST");
  const { log: warnLog, lines } = warnings();
  const mirror = new BucketMirror<Counted>(kv, warnLog, undefined, undefined, { watchdogMs: 20 });
  await mirror.start();
  const want = await writeLoad(kv, async (i) => {
    if (i === 600 || i === 1_400) await loseWatchConsumers("FOLLOW_LOAD_LOST");
  });
  await until(20_000, () => same(mirror, want));
  t.ok(same(mirror, want), "the copy equals the bucket");
  t.ok(lines.some((l) => l.includes("stalled")), "the lost watch was reopened");
  await mirror.stop();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
