// JsonKv.update with a copy believed current (the registry's heartbeat path): against a fresh copy it writes
// without a read; against a stale one it loses the compare-and-set, reads, and applies the change to the real
// document, never overwriting a newer write. BucketMirror hands out copies with the revision they were written at.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { BucketMirror } from "../../shared/nats/follow.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

interface Doc {
  beats: number;
  tag: string;
}

let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

test("a fresh copy: one write, no read; a stale copy: the change lands on the current document", async (t) => {
  const bucket = await new Kvm(nc).create("known_update");
  const kv = new JsonKv<Doc>(bucket);
  const mirror = new BucketMirror<Doc>(bucket, pino({ level: "silent" }));
  t.teardown(() => mirror.stop());
  await kv.put("a", { beats: 0, tag: "x" });
  await mirror.start();

  const fresh = mirror.versioned("a");
  t.match(fresh, { value: { beats: 0 }, revision: Number });
  let reads = 0;
  const get = kv.get.bind(kv);
  kv.get = async (key) => {
    reads++;
    return get(key);
  };
  const first = await kv.update("a", (d) => ({ ...d, beats: d.beats + 1 }), undefined, fresh);
  t.match(first, { value: { beats: 1, tag: "x" }, changed: true });
  t.equal(reads, 0, "no read against a fresh copy");

  // Another writer changes the tag; the copy we hold is now stale (the mirror may not have seen it yet).
  const stale = fresh;
  await kv.update("a", (d) => ({ ...d, tag: "y" }));
  reads = 0;
  const second = await kv.update("a", (d) => ({ ...d, beats: d.beats + 1 }), undefined, stale);
  t.match(second, { value: { beats: 2, tag: "y" }, changed: true }, "applied to the current document, the other write kept");
  t.ok(reads >= 1, "the lost compare-and-set led to a read");
  t.same((await get("a"))?.value, { beats: 2, tag: "y" });

  // The mirror catches up with the revision of the last write.
  const last = await eventually(async () => {
    const v = mirror.versioned("a");
    return v?.value.beats === 2 ? v : undefined;
  });
  t.equal(last.revision, second?.revision);
  await kv.delete("a");
  await eventually(async () => (mirror.versioned("a") === undefined ? true : undefined));
  t.equal(await kv.update("a", (d) => d, undefined, last), null, "a deleted key is gone, even with a copy in hand");
});

test("a stale copy that calls for no change is not the answer: the change is decided on the current document", async (t) => {
  const bucket = await new Kvm(nc).create("known_update_unchanged");
  const kv = new JsonKv<Doc>(bucket);
  const close = (d: Doc): Doc | null => (d.tag === "closed" ? null : { ...d, tag: "closed" });
  const rev = await kv.put("a", { beats: 0, tag: "closed" });
  const stale = { value: { beats: 0, tag: "closed" }, revision: rev };
  await kv.put("a", { beats: 1, tag: "open" }); // another writer reopened it since the copy was taken

  const result = await kv.update("a", close, undefined, stale);
  const stored = await kv.get("a");
  t.same(stored?.value, { beats: 1, tag: "closed" }, "the current document is closed, the other write kept");
  t.match(result, { value: { beats: 1, tag: "closed" }, revision: stored?.revision, changed: true }, "and the answer is that document");

  // Unchanged for real: the answer is the document as it stands, not the copy.
  const unchanged = await kv.update("a", close, undefined, stale);
  t.same(unchanged, { value: stored?.value, revision: stored?.revision, changed: false });

  await kv.delete("a");
  t.equal(await kv.update("a", close, undefined, stale), null, "a deleted key is gone, even when the copy calls for no change");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
