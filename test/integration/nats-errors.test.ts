// shared/nats/errors.ts against the errors a real nats-server makes the client throw: each predicate holds
// for its own failure and for no other, and none of them reads the words of a message.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test, type Test } from "tap";
import { isCasConflict, isNoResponders, isNotFound, isTimeout, isUnavailable } from "../../shared/nats/errors.js";
import { startNats, type NatsServer } from "../helpers/nats.js";

let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
});

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error("expected the operation to fail");
}

const PREDICATES = { isCasConflict, isNotFound, isNoResponders, isTimeout, isUnavailable };
type Name = keyof typeof PREDICATES;

/** Exactly the named predicates hold for `err`. */
function holds(t: Test, err: unknown, expected: Name[], what: string): void {
  const actual = (Object.keys(PREDICATES) as Name[]).filter((n) => PREDICATES[n](err));
  t.same(actual, expected, what);
}

test("a lost compare-and-set: KV create of an existing key, KV update and publish on a stale revision", async (t) => {
  const kv = await new Kvm(nc).create("ERRS_CAS");
  await kv.create("k", new Uint8Array([1]));
  holds(t, await thrown(() => kv.create("k", new Uint8Array([2]))), ["isCasConflict"], "kv.create on an existing key");
  holds(t, await thrown(() => kv.update("k", new Uint8Array([2]), 99)), ["isCasConflict"], "kv.update on a stale revision");
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "ERRS_CAS_S", subjects: ["errs.cas.>"] });
  const err = await thrown(() => jetstream(nc).publish("errs.cas.a", new Uint8Array(), { expect: { lastSubjectSequence: 7 } }));
  holds(t, err, ["isCasConflict"], "publish expecting another last sequence");
});

test("not found: a missing stream and a missing consumer", async (t) => {
  const jsm = await jetstreamManager(nc);
  holds(t, await thrown(() => jsm.streams.info("ERRS_NOPE")), ["isNotFound"], "stream info");
  await jsm.streams.add({ name: "ERRS_NF", subjects: ["errs.nf.>"] });
  holds(t, await thrown(() => jsm.consumers.info("ERRS_NF", "nope")), ["isNotFound"], "consumer info");
});

test("no responders: a request nobody listens to, and a JetStream publish no stream takes", async (t) => {
  holds(t, await thrown(() => nc.request("errs.nobody", new Uint8Array(), { timeout: 2_000 })), ["isNoResponders", "isUnavailable"], "core request");
  const err = await thrown(() => jetstream(nc).publish("errs.nostream.x", new Uint8Array(), { timeout: 2_000 }));
  holds(t, err, ["isNoResponders", "isUnavailable"], "js.publish (JetStreamNotEnabled wrapping the no-responders request)");
});

test("timeout: a subscriber that never answers", async (t) => {
  const sub = nc.subscribe("errs.silent");
  holds(t, await thrown(() => nc.request("errs.silent", new Uint8Array(), { timeout: 200 })), ["isTimeout", "isUnavailable"], "request timeout");
  sub.unsubscribe();
});

test("unavailable: the server goes away under a connection, then the connection is closed", async (t) => {
  const other = await startNats();
  const c = await connect({ servers: other.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const kv = await new Kvm(c).create("ERRS_DOWN");
  await other.down();
  const err = await thrown(() => jetstream(c).publish("errs.down", new Uint8Array(), { timeout: 300 }));
  holds(t, err, ["isTimeout", "isUnavailable"], "a JetStream publish while the server is down");
  holds(t, await thrown(() => c.flush()), ["isUnavailable"], "a flush while disconnected (RequestError without a cause)");
  await c.close();
  holds(t, await thrown(() => c.request("x")), ["isUnavailable"], "a request on a closed connection");
  holds(t, await thrown(() => kv.get("k")), ["isUnavailable"], "a KV read on a closed connection");
  await other.stop();
});

test("the words of a message mean nothing", async (t) => {
  for (const text of ["wrong last sequence 10071", "stream not found 10059", "no responders 503", "timeout", "connection closed"]) {
    holds(t, new Error(text), [], text);
  }
  holds(t, "timeout", [], "a thrown string");
  holds(t, null, [], "null");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
