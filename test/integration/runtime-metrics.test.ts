// The metrics every service exposes about its NATS side (shared/ops/runtime-metrics.ts) against a real
// nats-server: a consumer's lag is shown while its info can be read and not after, and the reconnect counter is
// there at 0 before the first reconnect.
import { test } from "tap";
import pino from "pino";
import { STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { Registry } from "../../shared/ops/metrics.js";
import { RuntimeMetrics } from "../../shared/ops/runtime-metrics.js";
import { openRuntime } from "../../shared/runtime.js";
import { sample } from "../helpers/metrics.js";
import { connectTo, startNats } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

test("a consumer's lag series goes when its info cannot be read (consumer deleted), rather than keep its last value", async (t) => {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  const rt = await openRuntime(nc, { replicas: 1 });
  const stream = STREAMS.work.name;
  await rt.jsm.consumers.add(stream, { durable_name: "lagged", ack_policy: "explicit" });
  for (let i = 0; i < 7; i++) await rt.js.publish(SUBJECTS.work, new Uint8Array([1]));
  const logged: string[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logged.push(line) });
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry, nc, rt.jsm, [{ stream, durable: "lagged" }], log, 50);
  const series = `inquest_consumer_pending_messages{stream="${stream}",consumer="lagged"} `;
  try {
    await metrics.start();
    t.equal(sample(registry.render(), series), 7, "7 messages not yet delivered");
    await rt.jsm.consumers.delete(stream, "lagged");
    // A refresh that found the consumer gone says so in the log.
    await eventually(async () => (logged.some((l) => l.includes("consumer info unavailable")) ? true : undefined), 5_000, 20);
    const text = registry.render();
    for (const name of ["pending", "ack_pending", "redelivered"]) t.notMatch(text, `inquest_consumer_${name}_messages{`, `no ${name} series for a consumer whose info failed`);
  } finally {
    await metrics.stop();
    await nc.close();
    await nats.stop();
  }
});

test("the reconnect counter is scraped at 0 before the first reconnect, so increase() counts that one", async (t) => {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  const rt = await openRuntime(nc, { replicas: 1 });
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry, nc, rt.jsm, [], pino({ level: "silent" }));
  try {
    await metrics.start();
    t.equal(sample(registry.render(), "inquest_nats_reconnects_total "), 0);
  } finally {
    await metrics.stop();
    await nc.close();
    await nats.stop();
  }
});
