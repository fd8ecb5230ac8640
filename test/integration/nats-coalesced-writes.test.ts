// shared/nats/coalesced-writes.ts against a real nats-server: commands issued from many async continuations within
// one event-loop turn leave in one socket write, in order; a buffer past nats-core's threshold is written at once;
// requests, JetStream and KV work as before, and a drain still delivers what was buffered.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { coalescedWritesPatched } from "../../shared/nats/coalesced-writes.js";
import { echoClient, startNats, type NatsServer } from "../helpers/nats.js";

let server: NatsServer;
let nc: NatsConnection;

interface Internals {
  protocol: { transport: { send(frame: Uint8Array): void }; pendingLimit: number };
}

/** Counts the frames `conn` hands to its socket while `work` runs. */
async function socketWrites(conn: NatsConnection, work: (sofar: () => number) => Promise<void>): Promise<number> {
  const transport = (conn as unknown as Internals).protocol.transport;
  const send = transport.send;
  let writes = 0;
  transport.send = function (frame: Uint8Array) {
    writes++;
    send.call(this, frame);
  };
  try {
    await work(() => writes);
  } finally {
    transport.send = send;
  }
  return writes;
}

test("setup", async () => {
  server = await startNats();
  nc = await echoClient(server.url);
});

test("the patch is applied once, by importing the module", async (t) => {
  t.ok(coalescedWritesPatched());
});

test("200 publishes from 200 async continuations of one turn leave in one write, in order", async (t) => {
  const got: string[] = [];
  const sub = nc.subscribe("coalesce.order", { callback: (_e, m) => void got.push(m.string()) });
  t.teardown(() => sub.unsubscribe());
  await nc.flush();
  const writes = await socketWrites(nc, async () => {
    // Each publish after its own await: without the patch each one is flushed by its own microtask.
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        for (let k = 0; k < i % 50; k++) await Promise.resolve();
        nc.publish("coalesce.order", String(i));
      }),
    );
    await new Promise((r) => setImmediate(r));
  });
  t.ok(writes <= 2, `${writes} socket writes for 200 publishes`);
  await nc.flush();
  const deadline = Date.now() + 5_000;
  while (got.length < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const expected = Array.from({ length: 200 }, (_, i) => i)
    .sort((a, b) => (a % 50) - (b % 50) || a - b)
    .map(String);
  t.same(got, expected, "every message arrived, in the order they were published");
});

test("a buffer past nats-core's threshold is written before the publishing code returns", async (t) => {
  const limit = (nc as unknown as Internals).protocol.pendingLimit;
  const payload = new Uint8Array(1024);
  let during = 0;
  await socketWrites(nc, async (sofar) => {
    for (let sent = 0; sent <= limit * 3; sent += payload.length) nc.publish("coalesce.big", payload);
    during = sofar();
  });
  t.ok(during >= 2, `${during} socket writes before the publishing loop returned (${limit * 3} bytes, threshold ${limit})`);
  await nc.flush();
});

test("requests, JetStream publishes and KV reads and writes work", async (t) => {
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => nc.request("echo", `ping ${i}`, { timeout: 2_000 })));
  t.same(
    answers.map((m) => m.string()),
    Array.from({ length: 50 }, (_, i) => `ping ${i}`),
  );
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "COALESCED", subjects: ["coalesced.>"] });
  const acks = await Promise.all(Array.from({ length: 20 }, (_, i) => jetstream(nc).publish("coalesced.one", String(i))));
  t.same(acks.map((a) => a.seq).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
  const kv = await new Kvm(nc).create("coalesced_test");
  const rev = await kv.put("k", "v1");
  await kv.update("k", "v2", rev);
  t.equal((await kv.get("k"))?.string(), "v2");
});

test("what was buffered before a drain reaches the server", async (t) => {
  const other = await connect({ servers: server.url, noAsyncTraces: true });
  const got: string[] = [];
  const sub = nc.subscribe("coalesce.drain", { callback: (_e, m) => void got.push(m.string()) });
  await nc.flush();
  for (let i = 0; i < 10; i++) other.publish("coalesce.drain", String(i));
  await other.drain();
  await nc.flush();
  const deadline = Date.now() + 5_000;
  while (got.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  t.equal(got.length, 10);
  sub.unsubscribe();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
