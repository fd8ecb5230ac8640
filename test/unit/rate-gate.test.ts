// The per-subscription rate limit's counter (services/dispatcher/rate-gate.ts) against a real KV bucket: at most
// `limit` POSTs start in a calendar second however many callers ask at once, refused callers are spread over the
// following seconds instead of all coming back at the next one, and a new second starts a new count.
import { Kvm } from "@nats-io/kv";
import { test } from "tap";
import { RateGate } from "../../services/dispatcher/rate-gate.js";
import { connectTo, startNats, type NatsServer } from "../helpers/nats.js";
import type { NatsConnection } from "@nats-io/transport-node";

let nats: NatsServer;
let nc: NatsConnection;

test("setup", async () => {
  nats = await startNats();
  nc = await connectTo(nats.url);
});

test("at most `limit` admissions per second across gates sharing the bucket; refusals spread; a new second resets", async (t) => {
  const kv = await new Kvm(nc).create("rate_gate_test", { history: 1, ttl: 60_000 });
  let now = 1_000_000_500; // half-way through a second
  const clock = { now: () => now };
  // Two dispatchers' gates, one counter.
  const gates = [new RateGate(kv, clock, () => 0), new RateGate(kv, clock, () => 0)];
  const waits = await Promise.all(Array.from({ length: 12 }, (_, i) => (gates[i % 2] as RateGate).take("sub_a", 3)));
  t.equal(waits.filter((w) => w === 0).length, 3, "three admitted in this second");
  const refused = waits.filter((w) => w > 0).sort((a, b) => a - b);
  t.equal(refused.length, 9);
  t.equal(refused[0], 500, "the first refusals wait for the next second");
  t.ok((refused.at(-1) ?? 0) >= 1_500, `later refusals wait longer (${refused.join(", ")})`);
  t.equal(await gates[0]?.take("sub_b", 1), 0, "another subscription has its own count");
  now += 1_000;
  t.equal(await gates[1]?.take("sub_a", 3), 0, "the next second admits again");
});

test("teardown", async () => {
  await nc.close();
  await nats.stop();
});
