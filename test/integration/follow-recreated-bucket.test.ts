// A bucket deleted and created again (or a new NATS store) whose head is already at or past what a local copy had
// applied: the copy must notice by the bucket's identity (set when it is provisioned), not only by a head below its
// checkpoint, and start over: at start (a read model's stored checkpoint) and while running (a read model, a live
// copy such as the API keys').
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import type { Logger } from "../../shared/log.js";
import { BucketMirror } from "../../shared/nats/follow.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { ensureBucket } from "../../shared/nats/provision.js";
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
const bucket = (name: string) => ensureBucket(nc, { name, history: 1, ttl: 0 }, 1);

async function fill(kv: KV, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await kv.put(`${prefix}${i}`, encodeJson({ id: `${prefix}${i}` }));
}

/** Deletes the bucket and provisions it again with `n` new entries (its head ends at or past the old one). */
async function recreate(name: string, n: number): Promise<KV> {
  await (await jetstreamManager(nc)).streams.delete(`KV_${name}`);
  const kv = await bucket(name);
  await fill(kv, "new", n);
  return kv;
}

async function until(ms: number, done: () => boolean): Promise<void> {
  const started = Date.now();
  while (!done() && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 50));
}

test("a read model started on a recreated bucket whose head is at or past its checkpoint is rebuilt", async (t) => {
  for (const more of [0, 2]) {
    const name = `RECREATED_AT_START_${more}`;
    const old = await bucket(name);
    await fill(old, "old", 3);
    const dir = tempDir("inquest-recreated-");
    t.teardown(() => dir.remove());
    const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
    const first = new ReadModel<Doc>(lmdb, old, spec, log);
    await first.start();
    await first.catchUp();
    t.equal(ids(first), "old0,old1,old2");
    await first.stop();
    const kv = await recreate(name, 3 + more);
    const second = new ReadModel<Doc>(lmdb, kv, spec, log);
    await second.start();
    await second.catchUp();
    const want = Array.from({ length: 3 + more }, (_, i) => `new${i}`).join(",");
    t.equal(ids(second), want, `head ${3 + more} over checkpoint 3: only the new bucket's entries, all of them`);
    await second.stop();
    await lmdb.close();
  }
});

test("a running read model and live copy follow a bucket recreated under them", async (t) => {
  const old = await bucket("RECREATED_RUNNING");
  await fill(old, "old", 3);
  const dir = tempDir("inquest-recreated-run-");
  t.teardown(() => dir.remove());
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const model = new ReadModel<Doc>(lmdb, old, spec, log);
  await model.start();
  const mirror = new BucketMirror<Doc>(old, log);
  await mirror.start();
  await model.catchUp();
  t.equal(ids(model), "old0,old1,old2");
  const kv = await recreate("RECREATED_RUNNING", 5);
  const want = "new0,new1,new2,new3,new4";
  const keys = (): string => [...mirror.all()].map(([, d]) => d.id).sort().join(",");
  await until(20_000, () => ids(model) === want && keys() === want);
  t.equal(ids(model), want, "the read model holds the new bucket's entries only");
  t.equal(keys(), want, "so does the live copy (a wiped key store's keys are gone)");
  await kv.put("later", encodeJson({ id: "later" }));
  await model.catchUp();
  t.ok(await mirror.catchUp(), "the live copy catches up with the new bucket");
  t.equal(model.get("later")?.id, "later", "and both go on following it");
  t.equal(mirror.get("later")?.id, "later");
  await mirror.stop();
  await model.stop();
  await lmdb.close();
});

/** A logger that keeps what is warned (a rebuild, a copy starting over). */
function warnings(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: "warn" }, { write: (l: string) => void lines.push(l) }), lines };
}

test("a 2,000-key live copy follows its bucket created again with 2,000 other keys", async (t) => {
  const old = await bucket("RECREATED_BIG");
  await Promise.all(Array.from({ length: 2_000 }, (_, i) => old.put(`old${i}`, encodeJson({ id: `old${i}` }))));
  const mirror = new BucketMirror<Doc>(old, log, undefined, undefined, { watchdogMs: 20 });
  await mirror.start();
  t.equal(mirror.size, 2_000);
  await (await jetstreamManager(nc)).streams.delete("KV_RECREATED_BIG");
  const kv = await bucket("RECREATED_BIG");
  await Promise.all(Array.from({ length: 2_000 }, (_, i) => kv.put(`new${i}`, encodeJson({ id: `new${i}` }))));
  const right = (): boolean => mirror.size === 2_000 && [...mirror.all()].every(([k, d]) => k.startsWith("new") && d.id === k);
  await until(20_000, right);
  t.ok(right(), `the copy holds the new bucket's 2,000 keys and nothing else (${mirror.size} keys)`);
  await mirror.stop();
});

test("a bucket made before identities is given one without its copies starting over", async (t) => {
  const old = await new Kvm(nc).create("BEFORE_IDENTITIES");
  await fill(old, "k", 3);
  const { log: warnLog, lines } = warnings();
  const mirror = new BucketMirror<Doc>(old, warnLog, undefined, undefined, { watchdogMs: 20 });
  await mirror.start();
  const kv = await bucket("BEFORE_IDENTITIES"); // a newer version provisions it
  await new Promise((r) => setTimeout(r, 300));
  await kv.put("k3", encodeJson({ id: "k3" }));
  t.ok(await mirror.catchUp());
  t.equal(mirror.size, 4, "the copy keeps what it had and follows on");
  t.same(lines.filter((l) => l.includes("starts over")), [], "it did not start over");
  await mirror.stop();
});

test("a bucket's identity lasts through a config update and a server restart: its read model is not rebuilt", async (t) => {
  const kv = await bucket("IDENTITY_KEPT");
  await fill(kv, "k", 3);
  const dir = tempDir("inquest-identity-kept-");
  t.teardown(() => dir.remove());
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  const first = new ReadModel<Doc>(lmdb, kv, spec, log);
  await first.start();
  await first.catchUp();
  await first.stop();
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info("KV_IDENTITY_KEPT");
  await jsm.streams.update("KV_IDENTITY_KEPT", { ...info.config, max_msg_size: 1_000_000 });
  await server.restart();
  const again = await bucket("IDENTITY_KEPT");
  const { log: warnLog, lines } = warnings();
  const second = new ReadModel<Doc>(lmdb, again, spec, warnLog);
  await second.start();
  await second.catchUp();
  t.equal(ids(second), "k0,k1,k2");
  t.same(lines.filter((l) => l.includes("rebuilding")), [], "not rebuilt");
  await second.stop();
  await lmdb.close();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
