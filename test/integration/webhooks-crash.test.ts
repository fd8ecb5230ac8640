// At-least-once under a crash (docs/api.md#webhooks): during a burst of 1,000 events the dispatcher is killed with
// SIGKILL and started again. Every event_id must reach the subscriber at least once and no delivery may be
// left pending; duplicates are allowed, counted and reported.
import type { NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { connectTo } from "../helpers/nats.js";
import { eventually, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, listDeliveries, makeEvent, publish } from "../helpers/webhooks.js";

const EVENTS = 1_000;
let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({
    services: ["gateway", "dispatcher"],
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "100ms,200ms,300ms,400ms", INQUEST_DELIVERY_TIMEOUT: "1s" },
  });
  nc = await connectTo(stack.nats.url);
});

test("kill -9 the dispatcher mid-burst: every event arrives at least once, nothing stays pending", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/burst"), events: ["agent.connected"] });
  const ids: string[] = [];
  const publishing = (async () => {
    for (let i = 0; i < EVENTS; i += 50) {
      const batch = Array.from({ length: Math.min(50, EVENTS - i) }, (_, k) => makeEvent("agent.connected", { agent_id: `agent-${i + k}`, hostname: "h", tags: {}, status: "online" }));
      ids.push(...batch.map((e) => e.event_id));
      await Promise.all(batch.map((e) => publish(nc, e)));
      await new Promise((r) => setTimeout(r, 10)); // a burst, not a single instant
    }
  })();

  await receiver.waitFor((all) => all.length >= 150, 30_000);
  const killed = stack.services.get("dispatcher");
  if (!killed) throw new Error("no dispatcher");
  await killed.kill("SIGKILL");
  const atKill = receiver.received("/burst").length;
  t.comment(`dispatcher killed (SIGKILL) after ${atKill} receipts`);
  await publishing;
  t.equal(ids.length, EVENTS);
  stack.start("dispatcher");

  await receiver.waitFor((all) => new Set(all.map((r) => r.json?.event_id)).size >= EVENTS, 60_000);
  const received = receiver.received("/burst").map((r) => r.json.event_id as string);
  const unique = new Set(received);
  t.ok(
    ids.every((id) => unique.has(id)),
    "every event_id arrived at least once",
  );
  const duplicates = received.length - unique.size;
  t.comment(`${EVENTS} events, ${received.length} receipts, ${unique.size} distinct, ${duplicates} duplicate receipt(s) (at-least-once)`);

  const deliveries = await eventually(async () => {
    const list = await listDeliveries(stack, `subscription_id=${sub.id}`);
    return list.length >= EVENTS && list.every((d) => d.status !== "pending") ? list : undefined;
  }, 30_000, 250);
  t.equal(deliveries.length, EVENTS, "exactly one delivery per event");
  t.equal(deliveries.filter((d) => d.status === "delivered").length, EVENTS, "all delivered, none pending");
  t.same(await listDeliveries(stack, `subscription_id=${sub.id}&status=pending`), [], "nothing stuck in pending");
  const repeatedAttempts = deliveries.filter((d) => d.attempt_count !== 1).length;
  t.comment(`${repeatedAttempts} deliveries recorded more than one attempt`);
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
