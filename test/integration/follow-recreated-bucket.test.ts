// A bucket deleted and created again (or a new NATS store) whose head is already past what a local copy had
// applied: the copy must notice by the stream's identity (its creation time), not only by a head below its
// checkpoint, and start over: at start (a read model's stored checkpoint) and while running (a read model, a live
// copy such as the API keys').
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { BucketMirror } from "../../shared/nats/follow.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel, type ReadModelSpec } from "../../shared/readmodel.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

interface Doc {
  id: string;
}
const spec: ReadModelSpec<Doc> = { name: "docs.v1", indexKeys: (d) => [["all", d.id]] };
const ids = (m: ReadModel<Doc>): string => m.page(["all"], { after: null, limit: 100, reverse: false }).items.map((d) => d.id).join(",");

/** Deletes the bucket and creates it again with `n` new entries (more than it had: its head ends past the old one). */
async function recreate(bucket: string, n: number): Promise<KV> {
  await (await jetstreamManager(nc)).streams.delete(`KV_${bucket}`);
  const kv = await new Kvm(nc).create(bucket);
  for (let i = 0; i < n; i++) await kv.put(`n${i}`, encodeJson({ id: `new${i}` }));
  return kv;
}

async function until(ms: number, done: () => boolean): Promise<void> {
  const started = Date.now();
  while (!done() && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 50));
}

test("a read model started on a recreated bucket whose head is past its checkpoint is rebuilt", async (t) => {
  const old = await new Kvm(nc).create("RECREATED_AT_START");
  for (let i = 0; i < 3; i++) await old.put(`k${i}`, encodeJson({ id: `old${i}` }));
  const dir = tempDir("inquest-recreated-");
  t.teardown(() => dir.remove());
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const first = new ReadModel<Doc>(lmdb, old, spec, log);
  await first.start();
  await first.catchUp();
  t.equal(ids(first), "old0,old1,old2");
  await first.stop();
  const kv = await recreate("RECREATED_AT_START", 5);
  const second = new ReadModel<Doc>(lmdb, kv, spec, log);
  await second.start();
  await second.catchUp();
  t.equal(ids(second), "new0,new1,new2,new3,new4", "only the new bucket's entries, all of them");
  await second.stop();
  await lmdb.close();
});

test("a running read model and live copy follow a bucket recreated under them", async (t) => {
  const old = await new Kvm(nc).create("RECREATED_RUNNING");
  for (let i = 0; i < 3; i++) await old.put(`k${i}`, encodeJson({ id: `old${i}` }));
  const dir = tempDir("inquest-recreated-run-");
  t.teardown(() => dir.remove());
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(lmdb, old, spec, log);
  await model.start();
  const mirror = new BucketMirror<Doc>(old, log);
  await mirror.start();
  await model.catchUp();
  t.equal(ids(model), "old0,old1,old2");
  await recreate("RECREATED_RUNNING", 5);
  const want = "new0,new1,new2,new3,new4";
  const keys = (): string => [...mirror.all()].map(([, d]) => d.id).sort().join(",");
  await until(15_000, () => ids(model) === want && keys() === want);
  t.equal(ids(model), want, "the read model holds the new bucket's entries only");
  t.equal(keys(), want, "so does the live copy (a wiped key store's keys are gone)");
  await mirror.stop();
  await model.stop();
  await lmdb.close();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
