import { createHash, createHmac } from "node:crypto";
import { test, type Test } from "tap";
import { edrProvider } from "../../shared/inbound/providers/edr.js";
import type { InboundEndpointView, InboundRequest, Interpretation, Scope } from "../../shared/inbound/providers/types.js";

const SECRET = "edr-signing-secret";
const NOW = 1_700_000_000;
const DEFAULT_SCOPE: Scope = { type: "selector", filter: { tags: { env: "prod" } } };
const endpoint: InboundEndpointView = { id: "iep_02", provider: "edr", default_scope: DEFAULT_SCOPE, default_depth: "quick" };

const SHA = "8F434346648F6B96DF89DDA901C5176B10A6D83961DD3C1AC88B59B2DC327AA4";
const alert = {
  device_id: "4c1f2e8a9b0d4e6f8a1b2c3d4e5f6a7b",
  description: "A process launched an encoded PowerShell command",
  severity: 4,
  severity_name: "High",
  tactic: "Execution",
  technique: "T1059.001 PowerShell",
  sha256: SHA,
  cmdline: "powershell.exe -nop -w hidden -enc SQBFAFgA",
  user_name: "alice",
  composite_id: "cid:ind:4c1f2e8a:12345",
  unrelated: { vendor: "fields are ignored" },
};

/** Signed the way the contract describes, computed here independently of shared/signing.ts. */
function delivery(body: unknown, opts: { secret?: string; timestamp?: number; now?: number } = {}): { req: InboundRequest; body: unknown } {
  const raw = JSON.stringify(body);
  const timestamp = String(opts.timestamp ?? NOW - 5);
  const signature = createHmac("sha256", opts.secret ?? SECRET).update(`${timestamp}.${raw}`).digest("base64");
  return {
    req: {
      headers: { "x-cs-delivery-timestamp": timestamp, "x-cs-primary-signature": signature },
      rawBody: Buffer.from(raw),
      nowSeconds: opts.now ?? NOW,
    },
    body: JSON.parse(raw) as unknown,
  };
}

function asTrigger(t: Test, result: Interpretation) {
  if (result.kind !== "trigger") {
    t.fail(`expected a trigger, got ${JSON.stringify(result)}`);
    throw new Error("not a trigger");
  }
  return result;
}

test("verify: valid, stale, future, tampered, wrong secret, missing headers", async (t) => {
  t.equal(edrProvider.verify(delivery(alert).req, SECRET), "ok");
  t.equal(edrProvider.verify(delivery(alert, { timestamp: NOW - 300 }).req, SECRET), "ok", "300 s old is still inside the window");
  t.equal(edrProvider.verify(delivery(alert, { timestamp: NOW - 301 }).req, SECRET), "bad_signature", "stale (> 300 s)");
  t.equal(edrProvider.verify(delivery(alert, { timestamp: NOW + 400 }).req, SECRET), "bad_signature", "from the future");
  t.equal(edrProvider.verify(delivery(alert, { secret: "other" }).req, SECRET), "bad_signature", "wrong secret");

  const { req } = delivery(alert);
  const tamperedBody = Buffer.from(req.rawBody.toString("utf8").replace("alice", "mallory"));
  t.equal(edrProvider.verify({ ...req, rawBody: tamperedBody }, SECRET), "bad_signature", "tampered body");
  const { "x-cs-primary-signature": _sig, ...noSignature } = req.headers;
  t.equal(edrProvider.verify({ ...req, headers: noSignature }, SECRET), "bad_signature", "no signature header");
  const { "x-cs-delivery-timestamp": _ts, ...noTimestamp } = req.headers;
  t.equal(edrProvider.verify({ ...req, headers: noTimestamp }, SECRET), "bad_signature", "no timestamp header");
  t.equal(edrProvider.verify({ ...req, headers: { ...req.headers, "x-cs-delivery-timestamp": String(NOW - 4) } }, SECRET), "bad_signature", "timestamp swapped");
});

test("a full alert targets the device, with seeds and a descriptive query", async (t) => {
  const { req, body } = delivery(alert);
  const result = asTrigger(t, edrProvider.interpret(req, body, endpoint, "rcp_1"));
  t.same(result.target, { kind: "edr_device", device_id: alert.device_id });
  t.same(result.scope, DEFAULT_SCOPE, "fallback when the device is unknown");
  t.equal(result.depth, "quick", "endpoint default depth");
  t.equal(result.trigger_id, alert.composite_id);
  t.same(result.seeds, [SHA.toLowerCase(), alert.cmdline, "alice"]);
  t.ok(result.query.startsWith(`${alert.description}.`), result.query);
  for (const part of ["High (4)", "Execution", "T1059.001 PowerShell", SHA.toLowerCase(), alert.cmdline, "alice", alert.device_id]) {
    t.ok(result.query.includes(part), `query mentions ${part}`);
  }
  t.ok(result.query.endsWith("?"));
  t.notOk(result.query.includes("vendor"), "unused fields are ignored");
});

test("device.device_id, minimal alerts and the body-hash trigger id", async (t) => {
  const minimal = { device: { device_id: "dev-42", hostname: "web-1" }, description: "Credential dumping detected." };
  const { req, body } = delivery(minimal);
  const result = asTrigger(t, edrProvider.interpret(req, body, endpoint, "rcp_1"));
  t.same(result.target, { kind: "edr_device", device_id: "dev-42" });
  t.equal(result.seeds, undefined, "no seeds without sha256/cmdline/user");
  const expectedId = `edr_${createHash("sha256").update(JSON.stringify(minimal)).digest("hex").slice(0, 32)}`;
  t.equal(result.trigger_id, expectedId, "edr_ + first 32 hex of sha256(raw body)");
  t.match(result.trigger_id, /^edr_[0-9a-f]{32}$/);
  const again = asTrigger(t, edrProvider.interpret(delivery(minimal).req, body, endpoint, "rcp_2"));
  t.equal(again.trigger_id, expectedId, "a provider retry of the same alert has the same trigger id");
  t.ok(result.query.startsWith("Credential dumping detected. EDR alert on device dev-42."), result.query);

  const noDefault = asTrigger(t, edrProvider.interpret(req, body, { ...endpoint, default_scope: null }, "rcp_1"));
  t.equal(noDefault.scope, null);
});

test("only a valid hex sha256 becomes a seed", async (t) => {
  const { req, body } = delivery({ ...alert, sha256: "not-a-hash", cmdline: undefined, user_name: undefined });
  const result = asTrigger(t, edrProvider.interpret(req, body, endpoint, "rcp_1"));
  t.equal(result.seeds, undefined);
  t.notOk(result.query.includes("not-a-hash"));
});

test("anything that is not a recognised alert is ignored", async (t) => {
  const cases: Array<[string, unknown]> = [
    ["no description", { device_id: "d1", severity: 5 }],
    ["no device id", { description: "something" }],
    ["blank description", { device_id: "d1", description: "   " }],
    ["numeric device id", { device_id: 42, description: "x" }],
    ["heartbeat", { event_type: "heartbeat", ts: NOW }],
    ["array", [{ device_id: "d1", description: "x" }]],
    ["string", "alert"],
    ["null", null],
  ];
  for (const [name, body] of cases) {
    const { req } = delivery(body);
    const result = edrProvider.interpret(req, body, endpoint, "rcp_1");
    t.equal(result.kind, "ignored", name);
    t.match(result.kind === "ignored" ? result.reason : "", /alert/);
  }
});

test("long fields still give a query within 2000 characters", async (t) => {
  const long = { ...alert, description: "d".repeat(5000), cmdline: `cmd ${"a".repeat(5000)}`, technique: "t".repeat(3000), composite_id: "c".repeat(1000) };
  const { req, body } = delivery(long);
  const result = asTrigger(t, edrProvider.interpret(req, body, endpoint, "rcp_1"));
  t.ok(result.query.length <= 2000, `length ${result.query.length}`);
  t.ok(result.query.endsWith("?"));
  t.ok(result.trigger_id.length <= 255, `trigger id bounded (${result.trigger_id.length})`);
  t.ok(result.trigger_id.startsWith("c".repeat(190)), "it starts with the composite id");
  const other = asTrigger(t, edrProvider.interpret(delivery({ ...long, composite_id: `${"c".repeat(999)}d` }).req, delivery({ ...long, composite_id: `${"c".repeat(999)}d` }).body, endpoint, "rcp_3"));
  t.not(other.trigger_id, result.trigger_id, "two alerts that differ after the cut keep two trigger ids");
  const emoji = asTrigger(t, edrProvider.interpret(delivery({ ...alert, composite_id: "😀".repeat(300) }).req, delivery({ ...alert, composite_id: "😀".repeat(300) }).body, endpoint, "rcp_4"));
  t.notMatch(emoji.trigger_id, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, "no half of a surrogate pair");
  t.ok(emoji.trigger_id.length <= 255);
  t.equal(result.seeds?.[1], long.cmdline, "seeds keep the full command line");
  const huge = delivery({ ...alert, cmdline: `cmd ${"a".repeat(700_000)}` });
  const cut = asTrigger(t, edrProvider.interpret(huge.req, huge.body, endpoint, "rcp_2"));
  t.equal(cut.seeds?.[1], `cmd ${"a".repeat(8188)}`, "up to 8192 characters: the record carries the seeds");
});
