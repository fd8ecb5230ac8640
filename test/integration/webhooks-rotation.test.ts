// Secret rotation (docs/api.md#secret-rotation) over real HTTP and NATS: during the grace period every delivery is
// signed with the old and the new secret, so receivers verifying with either (standardwebhooks, svix) keep working;
// after it only the new secret signs. Rotating again within a grace period keeps the newest two.
import { createHmac } from "node:crypto";
import { Kvm } from "@nats-io/kv";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { test } from "tap";
import { decryptSecret } from "../../shared/secrets.js";
import { connectTo } from "../helpers/nats.js";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver, type Received } from "../helpers/webhook-receiver.js";
import { createSub, makeEvent, publish, type Json } from "../helpers/webhooks.js";
import type { NatsConnection } from "@nats-io/transport-node";

const SUBS = "/v1/webhooks/subscriptions";
let stack: Stack;
let receiver: Receiver;
let nc: NatsConnection;

test("setup", async () => {
  receiver = await startReceiver();
  stack = await startStack({ services: ["gateway", "dispatcher"], env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true" } });
  nc = await connectTo(stack.nats.url);
});

const rotate = (id: string, body?: unknown) => api(stack.baseUrl, "POST", `${SUBS}/${id}/rotate-secret`, { key: stack.key, body });

/** Publishes one event of the subscription's type and returns the request the receiver got for it. */
async function deliverOne(path: string): Promise<Received> {
  const event = makeEvent("agent.connected", { agent_id: "a-1" });
  await publish(nc, event);
  await receiver.waitFor((all) => all.some((r) => r.path === path && r.json?.event_id === event.event_id));
  return receiver.received(path).find((r) => r.json?.event_id === event.event_id) as Received;
}

function sigHeaders(req: Received): Record<string, string> {
  const h = req.headers;
  return { "webhook-id": String(h["webhook-id"]), "webhook-timestamp": String(h["webhook-timestamp"]), "webhook-signature": String(h["webhook-signature"]) };
}

const verifies = (secret: string, req: Received): { standard: boolean; svix: boolean } => {
  const attempt = (f: () => unknown): boolean => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standard: attempt(() => new StandardWebhook(secret).verify(req.body, sigHeaders(req))),
    svix: attempt(() => new SvixWebhook(secret).verify(req.body, sigHeaders(req))),
  };
};

const hubSig = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

test("during the grace period both secrets verify with standardwebhooks and svix; X-Service-Signature-256 is the new secret's", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/grace"), events: ["agent.connected"] });
  const before = Date.now();
  const r = await rotate(sub.id); // no body: the default grace period
  t.equal(r.status, 200, r.text);
  t.same(Object.keys(r.json).sort(), ["id", "previous_secret_expires_at", "secret"]);
  t.equal(r.json.id, sub.id);
  t.match(r.json.secret, /^whsec_[A-Za-z0-9+/]+=*$/, "the same format as at creation");
  t.not(r.json.secret, sub.secret, "a new secret");
  const expires = Date.parse(r.json.previous_secret_expires_at);
  t.ok(Math.abs(expires - before - 24 * 3600_000) < 60_000, "the default grace period is 24 h");
  const newSecret = r.json.secret as string;

  const req = await deliverOne("/grace");
  const entries = String(req.headers["webhook-signature"]).split(" ");
  t.equal(entries.length, 2, "two space-separated signatures");
  for (const e of entries) t.match(e, /^v1,[A-Za-z0-9+/]{43}=$/);
  t.same(verifies(newSecret, req), { standard: true, svix: true }, "the new secret verifies");
  t.same(verifies(sub.secret, req), { standard: true, svix: true }, "the old secret verifies");
  t.same(verifies("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", req), { standard: false, svix: false }, "another secret does not");
  // The new secret's entry comes first.
  t.same(verifies(newSecret, { ...req, headers: { ...req.headers, "webhook-signature": entries[0] } }), { standard: true, svix: true }, "new first");
  t.equal(req.headers["x-service-signature-256"], hubSig(newSecret, req.body), "X-Service-Signature-256: the new secret only");

  // Rotating again within the grace period: the newest two sign, the oldest stops at once.
  const again = await rotate(sub.id, { grace_period_seconds: 3600 });
  t.equal(again.status, 200, again.text);
  const third = again.json.secret as string;
  const req2 = await deliverOne("/grace");
  t.equal(String(req2.headers["webhook-signature"]).split(" ").length, 2, "still two signatures");
  t.same(verifies(third, req2), { standard: true, svix: true }, "the newest secret verifies");
  t.same(verifies(newSecret, req2), { standard: true, svix: true }, "the one before it verifies");
  t.same(verifies(sub.secret, req2), { standard: false, svix: false }, "the oldest no longer does");
  t.equal(req2.headers["x-service-signature-256"], hubSig(third, req2.body));
});

test("after the grace period only the new secret signs (compared with the clock when signing)", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/expired"), events: ["agent.connected"] });
  const r = await rotate(sub.id, { grace_period_seconds: 1 });
  t.equal(r.status, 200, r.text);
  const newSecret = r.json.secret as string;
  const wait = Date.parse(r.json.previous_secret_expires_at) - Date.now() + 100;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  const req = await deliverOne("/expired");
  t.equal(String(req.headers["webhook-signature"]).split(" ").length, 1, "one signature");
  t.same(verifies(newSecret, req), { standard: true, svix: true }, "the new secret verifies");
  t.same(verifies(sub.secret, req), { standard: false, svix: false }, "the old secret no longer does");

  const zero = await rotate(sub.id, { grace_period_seconds: 0 });
  t.equal(zero.status, 200, zero.text);
  t.equal(zero.json.previous_secret_expires_at, null, "grace 0: the old secret stops at once");
  const req2 = await deliverOne("/expired");
  t.same(verifies(zero.json.secret, req2), { standard: true, svix: true });
  t.same(verifies(newSecret, req2), { standard: false, svix: false }, "the replaced secret is not used");
});

test("the previous secret is stored encrypted, and never shown by get or list", async (t) => {
  const sub = await createSub(stack, { url: receiver.url("/stored"), events: ["agent.connected"] });
  const r = await rotate(sub.id, { grace_period_seconds: 600 });
  t.equal(r.status, 200);
  const kv = await new Kvm(nc).open("inq_webhook_subscriptions");
  const raw = new TextDecoder().decode((await kv.get(sub.id))?.value);
  for (const s of [sub.secret, r.json.secret as string]) {
    t.notOk(raw.includes(s), "no plain secret at rest");
    t.notOk(raw.includes(s.slice(6)), "nor its base64 part");
  }
  const stored = JSON.parse(raw) as Json;
  const key = Buffer.from(stack.env.INQUEST_MASTER_KEY as string, "base64");
  t.equal(decryptSecret(key, stored.secret_sealed), r.json.secret, "the current secret opens with the master key");
  t.equal(decryptSecret(key, stored.previous_secret_sealed), sub.secret, "so does the previous one");
  t.equal(stored.previous_secret_expires_at, r.json.previous_secret_expires_at);
  const one = await api(stack.baseUrl, "GET", `${SUBS}/${sub.id}`, { key: stack.key });
  t.notOk(one.text.includes("secret"), "get shows no secret field");
});

test("404 for an unknown subscription; 400 with the standard error body for a bad grace period", async (t) => {
  const unknown = await rotate("sub_01ARZ3NDEKTSV4RRFFQ69G5FAV", { grace_period_seconds: 60 });
  t.equal(unknown.status, 404);
  t.equal(unknown.json.error.code, "not_found");
  t.equal((await rotate("sub_01ARZ3NDEKTSV4RRFFQ69G5FAV")).status, 404, "without a body too");
  const sub = await createSub(stack, { url: receiver.url("/bad"), events: ["agent.connected"] });
  for (const bad of [{ grace_period_seconds: -1 }, { grace_period_seconds: 7 * 24 * 3600 + 1 }, { grace_period_seconds: 1.5 }, { grace_period_seconds: "60" }, { grace_period_seconds: null }, { grace: 60 }, [], "x"]) {
    const r = await rotate(sub.id, bad);
    t.equal(r.status, 400, `${JSON.stringify(bad)}: ${r.text}`);
    t.equal(r.json.error.code, "validation_failed");
  }
  const notJson = await api(stack.baseUrl, "POST", `${SUBS}/${sub.id}/rotate-secret`, { key: stack.key, rawBody: "{", headers: { "content-type": "application/json" } });
  t.equal(notJson.status, 400);
  t.equal(notJson.json.error.code, "invalid_json");
  t.equal((await rotate(sub.id, { grace_period_seconds: 7 * 24 * 3600 })).status, 200, "7 days is the most");
  const readOnly = await api(stack.baseUrl, "POST", `${SUBS}/${sub.id}/rotate-secret`, { key: null });
  t.equal(readOnly.status, 401, "an API key is needed");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
  await receiver.close();
});
