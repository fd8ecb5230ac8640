// A subscription whose every attempt fails for INQUEST_DISABLE_FAILING_AFTER is turned off, with
// subscription.disabled (reason failing); a success in between starts the window over. Real gateway, dispatcher,
// nats-server and a scripted receiver; the window is scaled down to a second.
import type { NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { answer, startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { createSub, makeEvent, publish, terminal, waitDelivery } from "../helpers/webhooks.js";

let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({
    services: ["gateway", "dispatcher"],
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "300ms,300ms,300ms,300ms", INQUEST_DELIVERY_TIMEOUT: "500ms", INQUEST_DISABLE_FAILING_AFTER: "1s" },
  });
  nc = await connectTo(stack.nats.url);
});

const sub = async (id: string) => (await api(stack.baseUrl, "GET", `/v1/webhooks/subscriptions/${id}`, { key: stack.key })).json;

test("failing for longer than the window: turned off with subscription.disabled (reason failing)", async (t) => {
  const ops = await createSub(stack, { url: receiver.url("/ops"), events: ["subscription.disabled"] });
  const failing = await createSub(stack, { url: receiver.url("/down"), events: ["agent.registered"] });
  receiver.on("/down", answer(503));
  const ev = makeEvent("agent.registered", { agent_id: "f1", hostname: "f1", tags: {}, status: "online" });
  await publish(nc, ev);
  // The first failure starts the window; the attempts after it (300 ms apart) outlast it.
  const since = await eventually(async () => (await sub(failing.id)).failing_since ?? undefined);
  t.match(since, /^\d{4}-/);
  const off = await eventually(async () => {
    const s = await sub(failing.id);
    return s.active === false ? s : undefined;
  }, 15_000);
  t.equal(off.disabled_reason, "failing");
  await receiver.waitFor((all) => all.some((r) => r.path === "/ops" && r.json?.data?.subscription_id === failing.id));
  const heard = receiver.received("/ops").filter((r) => r.json?.data?.subscription_id === failing.id);
  t.equal(heard.length, 1, "announced once");
  t.match(heard[0]?.json.data, { reason: "failing", url: receiver.url("/down") });
  await waitDelivery(stack, heard[0]?.json.event_id, ops.id, terminal);
  // Turned back on: the window and the reason are cleared.
  const on = await api(stack.baseUrl, "PATCH", `/v1/webhooks/subscriptions/${failing.id}`, { key: stack.key, body: { active: true } });
  t.match(on.json, { active: true, disabled_reason: null, failing_since: null });
});

test("a success ends the run of failures: the window starts over", async (t) => {
  const flaky = await createSub(stack, { url: receiver.url("/flaky"), events: ["agent.registered"] });
  receiver.on("/flaky", answer(503, 503, 200));
  const ev = makeEvent("agent.registered", { agent_id: "f2", hostname: "f2", tags: {}, status: "online" });
  await publish(nc, ev);
  // Two failures (600 ms, under the 1 s window) start a run of failures...
  t.match(await eventually(async () => (await sub(flaky.id)).failing_since ?? undefined, 5_000, 50), /^\d{4}-/);
  // ...which the success ends.
  const d = await waitDelivery(stack, ev.event_id, flaky.id, terminal);
  t.equal(d.status, "delivered");
  const s = await eventually(async () => {
    const x = await sub(flaky.id);
    return x.failing_since === null ? x : undefined;
  });
  t.equal(s.active, true);
  t.equal(s.disabled_reason, null);
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
