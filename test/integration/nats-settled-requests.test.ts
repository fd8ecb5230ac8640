// shared/nats/settled-requests.ts against a real nats-server: an answered request no longer builds a thrown-away
// "cancelled" Error, and every other ending of a request (timeout, no responders, a closed connection, JetStream
// and KV calls) behaves exactly as before.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { RequestOne } from "@nats-io/nats-core/internal";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { isNoResponders, isTimeout, isUnavailable } from "../../shared/nats/errors.js";
import { settledRequestsPatched } from "../../shared/nats/settled-requests.js";
import { echoClient, startNats, type NatsServer } from "../helpers/nats.js";

let server: NatsServer;
let nc: NatsConnection;

/** Every rejection any request's deferred received while `work` ran (a settled promise ignores them, but each was built). */
async function rejections(work: () => Promise<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const proto = RequestOne.prototype;
  const resolver = proto.resolver;
  proto.resolver = function (this: RequestOne, err, msg) {
    const reject = this.deferred.reject.bind(this.deferred);
    this.deferred.reject = (reason?: unknown) => {
      seen.push(reason);
      reject(reason);
    };
    resolver.call(this, err, msg);
  };
  try {
    await work();
  } finally {
    proto.resolver = resolver;
  }
  return seen;
}

test("setup", async () => {
  server = await startNats();
  nc = await echoClient(server.url);
});

test("the patch is applied once, by importing the module", async (t) => {
  t.ok(settledRequestsPatched());
});

test("an answered request resolves with its answer and builds no 'cancelled' Error", async (t) => {
  let answer = "";
  const seen = await rejections(async () => {
    for (let i = 0; i < 50; i++) answer = (await nc.request("echo", `ping ${i}`, { timeout: 2_000 })).string();
  });
  t.equal(answer, "ping 49");
  t.same(seen, [], "no Error was built to reject an already answered request");
});

test("JetStream publishes and KV reads and writes (requests underneath) work and build no 'cancelled' Error", async (t) => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "SETTLED", subjects: ["settled.>"] });
  const kv = await new Kvm(nc).create("settled_test");
  const seen = await rejections(async () => {
    const ack = await jetstream(nc).publish("settled.one", "x");
    t.equal(ack.seq, 1);
    const rev = await kv.put("k", "v1");
    await kv.update("k", "v2", rev);
    t.equal((await kv.get("k"))?.string(), "v2");
  });
  t.same(seen, []);
});

test("a request nobody answers in time still rejects with a timeout", async (t) => {
  const sub = nc.subscribe("silent", { callback: () => {} });
  t.teardown(() => sub.unsubscribe());
  await nc.flush();
  const err = await nc.request("silent", "hello", { timeout: 200 }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(isTimeout(err), String(err));
});

test("a request to a subject nobody listens on still rejects with no responders", async (t) => {
  const err = await nc.request("nobody.here", "hello", { timeout: 2_000 }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(isNoResponders(err), String(err));
});

test("a request pending when the connection closes still rejects", async (t) => {
  const other = await connect({ servers: server.url, noAsyncTraces: true });
  const sub = other.subscribe("hold", { callback: () => {} });
  await other.flush();
  const pending = other.request("hold", "x", { timeout: 10_000 }).then(
    () => null,
    (e: unknown) => e,
  );
  await other.close();
  const err = await pending;
  t.ok(err instanceof Error, String(err));
  t.ok(isUnavailable(err), "a closed connection counts as unavailable");
  sub.unsubscribe();
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
