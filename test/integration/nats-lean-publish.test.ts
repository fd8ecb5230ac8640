// shared/nats/lean-publish.ts against a real nats-server: JetStream publishes with a message id or an expected
// sequence take the lean path and answer as the library does: the same acknowledgement, and for every failure the
// same error class, read the same way by shared/nats/errors.ts. The library's own path is reached by an option the
// lean path leaves to it (`ttl: undefined`, which sets no header), so each case is run both ways and compared.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamPublishOptions } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { leanPublishPatched } from "../../shared/nats/lean-publish.js";
import { isCasConflict, isNoResponders, isTimeout, isUnavailable } from "../../shared/nats/errors.js";
import { failure, startNats, type NatsServer } from "../helpers/nats.js";

let server: NatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let kv: KV;
const enc = new TextEncoder();

/** The library's path for the same publish: an option the lean path does not take, that changes nothing. */
const viaLibrary = (opts: Partial<JetStreamPublishOptions> = {}): Partial<JetStreamPublishOptions> => ({ ...opts, ttl: undefined });

/** What errors.ts and the caller see of a failure. */
const reading = (err: Error) => ({ class: err.constructor.name, cas: isCasConflict(err), none: isNoResponders(err), timeout: isTimeout(err), unavailable: isUnavailable(err) });

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url, noAsyncTraces: true });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "LEAN", subjects: ["lean.>"], duplicate_window: 120_000_000_000 });
  js = jetstream(nc);
  kv = await new Kvm(js).create("lean_kv");
});

test("the patch is applied once, by importing the module", async (t) => {
  t.ok(leanPublishPatched());
});

test("the lean path makes no nats-core request; the library's path makes one", async (t) => {
  const impl = nc as unknown as { request: NatsConnection["request"] };
  const request = impl.request;
  let requests = 0;
  impl.request = function (...args: Parameters<NatsConnection["request"]>) {
    requests++;
    return request.apply(this, args);
  };
  try {
    await js.publish("lean.r", enc.encode("x"), { msgID: "r-1" });
    await kv.put("r", enc.encode("x"));
    t.equal(requests, 0, "a message id, a KV put: lean");
    await js.publish("lean.r", enc.encode("x"), viaLibrary({ msgID: "r-2" }));
    t.equal(requests, 1, "an option it does not take: the library");
  } finally {
    impl.request = request;
  }
});

test("a message id: the acknowledgement, then the duplicate with the first copy's sequence", async (t) => {
  const first = await js.publish("lean.a", enc.encode("one"), { msgID: "m-1" });
  t.same({ stream: first.stream, duplicate: first.duplicate }, { stream: "LEAN", duplicate: false });
  const again = await js.publish("lean.a", enc.encode("one"), { msgID: "m-1" });
  t.same({ seq: again.seq, duplicate: again.duplicate }, { seq: first.seq, duplicate: true });
  const library = await js.publish("lean.a", enc.encode("one"), viaLibrary({ msgID: "m-1" }));
  t.same({ seq: library.seq, duplicate: library.duplicate }, { seq: first.seq, duplicate: true }, "the library agrees");
  const stored = await (await jetstreamManager(nc)).streams.getMessage("LEAN", { seq: first.seq });
  t.equal(stored?.header.get("Nats-Msg-Id"), "m-1", "the header is stored as sent");
  const plain = await js.publish("lean.b", "text");
  t.equal(plain.seq, first.seq + 1, "no options, a string body");
});

test("an expected sequence that does not hold: the lost compare-and-set, as the library reports it", async (t) => {
  const lean = await failure(js.publish("lean.c", enc.encode("x"), { expect: { lastSubjectSequence: 999 } }));
  const library = await failure(js.publish("lean.c", enc.encode("x"), viaLibrary({ expect: { lastSubjectSequence: 999 } })));
  t.same(reading(lean), reading(library));
  t.same(reading(lean), { class: "JetStreamApiError", cas: true, none: false, timeout: false, unavailable: false });
  const ok = await js.publish("lean.c", enc.encode("x"), { expect: { lastSubjectSequence: 0 } });
  t.ok(ok.seq > 0, "a check that holds stores it");
});

test("no stream takes the subject: no responders, as the library reports it", async (t) => {
  const lean = await failure(js.publish("nowhere.x", enc.encode("x"), { msgID: "n-1" }));
  const library = await failure(js.publish("nowhere.x", enc.encode("x"), viaLibrary({ msgID: "n-1" })));
  t.same(reading(lean), reading(library));
  t.same(reading(lean), { class: "JetStreamNotEnabled", cas: false, none: true, timeout: false, unavailable: true });
});

test("nobody answers in time: a timeout, as the library reports it", async (t) => {
  const silent = nc.subscribe("silent.x", { callback: () => {} });
  t.teardown(() => silent.unsubscribe());
  const started = performance.now();
  const lean = await failure(js.publish("silent.x", enc.encode("x"), { msgID: "s-1", timeout: 300 }));
  t.ok(performance.now() - started >= 290, "not before its deadline");
  const library = await failure(js.publish("silent.x", enc.encode("x"), viaLibrary({ msgID: "s-1", timeout: 300 })));
  t.same(reading(lean), reading(library));
  t.same(reading(lean), { class: "TimeoutError", cas: false, none: false, timeout: true, unavailable: true });
});

test("KV writes go the lean path too: create, the create that finds the key, update on a stale revision, create over a deleted key", async (t) => {
  const rev = await kv.create("k1", enc.encode("v1"));
  t.ok(rev > 0);
  const taken = await failure(kv.create("k1", enc.encode("v2")));
  t.ok(isCasConflict(taken), "the key exists: a compare-and-set conflict");
  const stale = await failure(kv.update("k1", enc.encode("v3"), rev + 100));
  t.ok(isCasConflict(stale));
  t.ok((await kv.update("k1", enc.encode("v4"), rev)) > rev);
  await kv.delete("k1");
  t.ok((await kv.create("k1", enc.encode("v5"))) > 0, "a deleted key can be created again");
  t.equal(new TextDecoder().decode((await kv.get("k1"))?.value), "v5");
});

test("an empty message id or expectation sets no header, as the library decides", async (t) => {
  const a = await js.publish("lean.f", enc.encode("x"), { msgID: "" });
  const b = await js.publish("lean.f", enc.encode("x"), { msgID: "" });
  t.same([a.duplicate, b.duplicate, b.seq === a.seq + 1], [false, false, true], "two messages, no deduplication on an empty id");
  const c = await js.publish("lean.f", enc.encode("x"), { msgID: "", expect: { streamName: "", lastMsgID: "" } });
  t.equal(c.seq, b.seq + 1);
  const stored = await (await jetstreamManager(nc)).streams.getMessage("LEAN", { seq: c.seq });
  t.same(stored?.header?.keys() ?? [], [], "no header set");
});

test("a header value that cannot be one is refused by the library, not sent", async (t) => {
  const err = await failure(js.publish("lean.d", enc.encode("x"), { msgID: "bad\r\nid" }));
  t.ok(err instanceof Error);
});

test("many at once: every acknowledgement reaches its own publish", async (t) => {
  const acks = await Promise.all(Array.from({ length: 500 }, (_, i) => js.publish(`lean.many.${i % 5}`, enc.encode(String(i)), { msgID: `many-${i}` })));
  const seqs = new Set(acks.map((a) => a.seq));
  t.equal(seqs.size, 500, "500 distinct sequences");
  const jsm = await jetstreamManager(nc);
  const m = await jsm.streams.getMessage("LEAN", { seq: acks[123]!.seq });
  t.equal(new TextDecoder().decode(m?.data), "123", "the 124th acknowledgement is for the 124th message");
});

test("a publish waiting when the connection closes fails as the library's does; one after, as closed, at once", async (t) => {
  const other = await connect({ servers: server.url, noAsyncTraces: true });
  const ojs = jetstream(other);
  const silent = nc.subscribe("silent.y", { callback: () => {} });
  await nc.flush();
  t.teardown(() => silent.unsubscribe());
  const waiting = failure(ojs.publish("silent.y", enc.encode("x"), { msgID: "c-1", timeout: 10_000 }));
  const library = failure(ojs.publish("silent.y", enc.encode("x"), viaLibrary({ msgID: "c-1", timeout: 10_000 })));
  await other.close();
  const err = await waiting;
  t.same(reading(err), reading(await library), "as the library");
  t.equal(err.message, "connection closed");
  t.ok(isUnavailable(err));
  const after = await failure(ojs.publish("lean.e", enc.encode("x"), { msgID: "c-2" }));
  t.equal(after.constructor.name, "ClosedConnectionError");
});

test("the first publish of a connection that closed or drains before any other rejects, never throws, as the library's", async (t) => {
  /** What the call did: threw at once, or returned a promise that rejected (with what). */
  const outcome = async (call: () => Promise<unknown>): Promise<string> => {
    let p: Promise<unknown>;
    try {
      p = call();
    } catch (err) {
      return `threw ${(err as Error).constructor.name}`;
    }
    return `rejected ${(await failure(p)).constructor.name}`;
  };
  for (const [end, expected] of [
    ["close", "ClosedConnectionError"],
    ["drain", "DrainingConnectionError"],
  ] as const) {
    // Fresh connections: the lean path's reply subscription is made by the first request, and that is what throws.
    const lean = await connect({ servers: server.url, noAsyncTraces: true });
    const library = await connect({ servers: server.url, noAsyncTraces: true });
    // Both mark the connection at once (the drain then ends on its own): the publish comes right after.
    const ended = [lean, library].map((c) => (end === "close" ? c.close() : c.drain()));
    const got = await outcome(() => jetstream(lean).publish("lean.f", enc.encode("x"), { msgID: `f-${end}` }));
    t.equal(got, await outcome(() => jetstream(library).publish("lean.f", enc.encode("x"), viaLibrary({ msgID: `f-${end}` }))), `${end}: as the library`);
    t.equal(got, `rejected ${expected}`, end);
    await Promise.all(ended);
  }
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
