// A pooled consumer started while JetStream is unavailable (a cluster electing a leader, a node restarting or
// frozen) waits for it instead of failing its service's start; anything else still fails at once.
import type { Consumer, JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { TimeoutError } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { PooledConsumer } from "../../shared/nats/pooled-consumer.js";

/** A consumer whose pulls end at once with nothing (the pool then waits a little and pulls again). */
const idleConsumer = {
  fetch: async () => {
    const batch = { stop: () => {}, async *[Symbol.asyncIterator]() {} };
    return batch;
  },
} as unknown as Consumer;

function pool(add: () => Promise<unknown>): PooledConsumer {
  const jsm = { consumers: { add } } as unknown as JetStreamManager;
  const js = { consumers: { get: async () => idleConsumer } } as unknown as JetStreamClient;
  return new PooledConsumer({
    name: "test",
    js,
    jsm,
    stream: "S",
    config: { durable_name: "d", ack_wait: 30_000_000_000 },
    concurrency: 1,
    buffer: 1,
    log: pino({ level: "silent" }),
    handle: async () => {},
  });
}

test("start waits out an unavailable JetStream and then pulls", async (t) => {
  let calls = 0;
  const p = pool(async () => {
    calls++;
    if (calls < 3) throw new TimeoutError();
    return {};
  });
  await p.start();
  t.equal(calls, 3, "asked again until JetStream answered");
  await p.stop();
});

test("any other error fails the start at once", async (t) => {
  let calls = 0;
  const p = pool(async () => {
    calls++;
    throw new Error("consumer config is invalid");
  });
  await t.rejects(p.start(), /consumer config is invalid/);
  t.equal(calls, 1);
});
