// shared/nats/lean-requests.ts against a real nats-server: a simple request takes the lean path and ends as
// nats-core's own request does (the reply message, or the same error class, read the same way by
// shared/nats/errors.ts). nats-core's path is reached with an option the lean path leaves to it (`traceOnly:
// undefined`, which changes nothing), so each case runs both ways and is compared.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, headers, type NatsConnection, type RequestOptions } from "@nats-io/transport-node";
import { test } from "tap";
import { leanRequests, leanRequestsPatched } from "../../shared/nats/lean-requests.js";
import { isNoResponders, isTimeout, isUnavailable } from "../../shared/nats/errors.js";
import { failure, startNats, type NatsServer } from "../helpers/nats.js";

let server: NatsServer;
let nc: NatsConnection;
const enc = new TextEncoder();
const dec = new TextDecoder();

const viaLibrary = (opts: Partial<RequestOptions> = {}): RequestOptions => ({ timeout: 1_000, ...opts, traceOnly: undefined }) as RequestOptions;

const reading = (err: Error) => ({ class: err.constructor.name, cause: (err.cause as Error | undefined)?.constructor.name ?? null, none: isNoResponders(err), timeout: isTimeout(err), unavailable: isUnavailable(err) });

test("setup: a service that echoes, one that answers with the headers it got, one that never answers", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url, noAsyncTraces: true });
  nc.subscribe("echo", { callback: (_e, m) => void m.respond(m.data) });
  nc.subscribe("headers", { callback: (_e, m) => void m.respond(enc.encode(m.headers?.get("X-Probe") ?? "none")) });
  nc.subscribe("silent", { callback: () => {} });
  await nc.flush();
});

test("the patch is applied once, by importing the module", async (t) => {
  t.ok(leanRequestsPatched());
});

test("a reply: the message itself, with its data and headers, both ways", async (t) => {
  const lean = await nc.request("echo", enc.encode("ping"), { timeout: 1_000 });
  const library = await nc.request("echo", enc.encode("ping"), viaLibrary());
  t.equal(dec.decode(lean.data), "ping");
  t.equal(dec.decode(library.data), "ping");
  t.equal(dec.decode((await nc.request("echo", "text")).data), "text", "a string body and no options");
  const h = headers();
  h.set("X-Probe", "carried");
  t.equal(dec.decode((await nc.request("headers", enc.encode(""), { timeout: 1_000, headers: h })).data), "carried", "headers are sent");
  t.equal(leanRequests(nc).size, 0, "nothing left waiting");
});

test("the lean path makes no nats-core RequestOne; the library's path makes one", async (t) => {
  const muxed = nc as unknown as { protocol: { muxSubscriptions: { reqs: Map<string, unknown> } } };
  const reqs = muxed.protocol.muxSubscriptions.reqs;
  let made = 0;
  const set = reqs.set.bind(reqs);
  reqs.set = (k: string, v: unknown) => {
    made++;
    return set(k, v);
  };
  try {
    await nc.request("echo", enc.encode("a"), { timeout: 1_000 });
    t.equal(made, 0);
    await nc.request("echo", enc.encode("a"), viaLibrary());
    t.equal(made, 1);
  } finally {
    reqs.set = set;
  }
});

test("nobody subscribes: no responders, as nats-core reports it", async (t) => {
  const lean = await failure(nc.request("nobody.here", enc.encode("x"), { timeout: 1_000 }));
  const library = await failure(nc.request("nobody.here", enc.encode("x"), viaLibrary()));
  t.same(reading(lean), reading(library));
  t.same(reading(lean), { class: "RequestError", cause: "NoRespondersError", none: true, timeout: false, unavailable: true });
});

test("nobody answers in time: a timeout at its deadline, as nats-core reports it", async (t) => {
  const started = performance.now();
  const lean = await failure(nc.request("silent", enc.encode("x"), { timeout: 250 }));
  const took = performance.now() - started;
  t.ok(took >= 245 && took < 1_000, `at its deadline, within the sweep (${Math.round(took)} ms)`);
  const library = await failure(nc.request("silent", enc.encode("x"), viaLibrary({ timeout: 250 })));
  t.same(reading(lean), reading(library));
  t.same(reading(lean), { class: "TimeoutError", cause: null, none: false, timeout: true, unavailable: true });
  t.equal(leanRequests(nc).size, 0, "the timed-out request is forgotten");
});

test("many at once, answered out of order: each gets its own reply", async (t) => {
  const delayed = nc.subscribe("delayed", { callback: (_e, m) => void setTimeout(() => m.respond(m.data), Math.random() * 50) });
  t.teardown(() => delayed.unsubscribe());
  const replies = await Promise.all(Array.from({ length: 300 }, (_, i) => nc.request("delayed", enc.encode(String(i)), { timeout: 5_000 })));
  t.same(replies.map((m) => dec.decode(m.data)), Array.from({ length: 300 }, (_, i) => String(i)));
});

test("JetStream API calls and KV reads work through it", async (t) => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "LEANREQ", subjects: ["leanreq.>"] });
  const info = await jsm.streams.info("LEANREQ");
  t.equal(info.config.name, "LEANREQ");
  const missing = await failure(jsm.streams.info("NO_SUCH_STREAM"));
  t.equal(missing.constructor.name, "StreamNotFoundError");
});

test("the connection closes: what waits fails as nats-core's does; a request after, at once", async (t) => {
  const other = await connect({ servers: server.url, noAsyncTraces: true });
  const lean = failure(other.request("silent", enc.encode("x"), { timeout: 10_000 }));
  const library = failure(other.request("silent", enc.encode("x"), viaLibrary({ timeout: 10_000 })));
  await other.flush();
  await other.close();
  t.same(reading(await lean), reading(await library));
  t.equal((await lean).message, "connection closed");
  const after = await failure(other.request("echo", enc.encode("x"), { timeout: 1_000 }));
  const afterLibrary = await failure(other.request("echo", enc.encode("x"), viaLibrary()));
  t.same(reading(after), reading(afterLibrary));
  t.equal(after.constructor.name, "ClosedConnectionError");
});

test("the connection drains: a new request fails at once, as nats-core's does", async (t) => {
  const other = await connect({ servers: server.url, noAsyncTraces: true });
  await other.request("echo", enc.encode("warm"), { timeout: 1_000 });
  const drained = other.drain();
  const lean = await failure(other.request("echo", enc.encode("x"), { timeout: 1_000 }));
  const library = await failure(other.request("echo", enc.encode("x"), viaLibrary()));
  await drained;
  t.same(reading(lean), reading(library));
  t.equal(lean.constructor.name, "DrainingConnectionError");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
