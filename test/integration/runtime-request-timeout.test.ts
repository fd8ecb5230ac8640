// A runtime opened with `requestTimeoutMs` (shared/runtime.ts; the ticker's: services/ticker/main.ts) gives up on
// its JetStream calls after that long: stream info, bucket reads and writes, publishes. A request to a stream whose
// leader died is never answered, so how soon the caller can try again, against the new leader, is this timeout.
// A frozen nats-server (SIGSTOP) answers nothing while it keeps its sockets: the same silence, on one server.
import { test, type Test } from "tap";
import { isTimeout } from "../../shared/nats/errors.js";
import { STREAMS } from "../../shared/nats/catalog.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { connectTo, failure, startNats, type NatsServer } from "../helpers/nats.js";

const TIMEOUT_MS = 400;

/** Each JetStream call the trigger path makes, started now. */
function calls(rt: Runtime): Array<[string, Promise<unknown>]> {
  return [
    ["stream info (the backlog check)", rt.jsm.streams.info(STREAMS.work.name)],
    ["bucket read", rt.investigations.get("inv_01TIMEOUTTEST0000000000000")],
    ["bucket write", rt.buckets.idempotency.put("timeout-test", "v")],
    ["publish", rt.js.publish("events.test.timeout", "{}")],
  ];
}

/** A runtime opened with `opts` on a nats-server of its own, which is then frozen (thawed at teardown at the latest). */
async function frozenRuntime(t: Test, opts: { requestTimeoutMs?: number }): Promise<{ rt: Runtime; nats: NatsServer }> {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  t.teardown(async () => {
    nats.thaw();
    await nc.close();
    await nats.stop();
  });
  const rt = await openRuntime(nc, { replicas: 1, ...opts });
  await nats.freeze();
  return { rt, nats };
}

test("with requestTimeoutMs, every JetStream call fails with a timeout after about that long while the server is silent", async (t) => {
  const { rt, nats } = await frozenRuntime(t, { requestTimeoutMs: TIMEOUT_MS });
  // Thawed after 3 s whatever happens: a call without the timeout is then answered, and the test fails, not hangs.
  const thaw = setTimeout(() => nats.thaw(), 3_000);
  const started = performance.now();
  const outcomes = await Promise.all(calls(rt).map(async ([name, p]) => ({ name, err: await failure(p), ms: performance.now() - started })));
  clearTimeout(thaw);
  nats.thaw();
  for (const { name, err, ms } of outcomes) {
    t.ok(isTimeout(err), `${name}: a timeout (${err.message})`);
    // The client checks deadlines every 100 ms; its default would be 5,000 ms.
    t.ok(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 1_500, `${name}: gave up after ${Math.round(ms)} ms`);
  }
  t.ok(await rt.jsm.streams.info(STREAMS.work.name), "answered again once the server is thawed");
});

test("without it, the same calls wait out a silence shorter than the client's default and are answered", async (t) => {
  const { rt, nats } = await frozenRuntime(t, {});
  const pending = calls(rt);
  setTimeout(() => nats.thaw(), 1_000);
  for (const [name, p] of pending) await t.resolves(p, `${name}: answered after the thaw`);
});
