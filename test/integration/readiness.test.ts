// Readiness against a real nats-server that stops: once the client has seen the disconnect, /readyz's check
// answers "not ready" without sending anything (so without waiting for a request to time out), and it is
// ready again after the server comes back.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import pino from "pino";
import { Lifecycle } from "../../shared/lifecycle.js";
import { Readiness } from "../../shared/nats/readiness.js";
import { coreStreams, openRuntime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

let server: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  await openRuntime(nc, { replicas: 1 });
});

test("NATS down: not ready, answered from the connection's status without a request; back up: ready", async (t) => {
  const readiness = new Readiness(nc, () => coreStreams());
  await readiness.start();
  t.same(await readiness.check(), { ok: true });
  const missing = new Readiness(nc, () => [...coreStreams(), "NO_SUCH_STREAM"]);
  await missing.start();
  t.same(await missing.check(), { ok: false, reason: "missing streams: NO_SUCH_STREAM" });

  await server.down();
  await eventually(async () => (readiness.isConnected() ? undefined : true));
  const sent = nc.stats().outMsgs;
  const down = await readiness.check();
  t.equal(down.ok, false);
  t.equal(down.reason, "NATS disconnected");
  t.equal(nc.stats().outMsgs, sent, "no request was sent, so none had to time out");

  await server.up();
  const back = await eventually(async () => {
    const r = await readiness.check();
    return r.ok ? r : undefined;
  });
  t.same(back, { ok: true });
});

test("a shutdown that has begun is not ready at once, while its components are still stopping", async (t) => {
  const log = pino({ level: "silent" });
  const life = new Lifecycle({ log });
  const readiness = new Readiness(nc, () => coreStreams(), 1_000, () => life.draining);
  let release: () => void = () => undefined;
  const slow = { name: "slow", start: async () => undefined, stop: () => new Promise<void>((r) => (release = r)) };
  await life.start([readiness, slow]);
  t.same(await readiness.check(), { ok: true }, "ready while running");
  const stopping = life.stop();
  t.same(await readiness.check(), { ok: false, reason: "shutting down" }, "not ready while a component still finishes its work");
  release();
  await stopping;
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
