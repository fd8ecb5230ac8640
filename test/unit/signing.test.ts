import { createHmac } from "node:crypto";
import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { test } from "tap";
import {
  crowdstrikeSignature,
  githubSignature,
  SERVICE_SIGNATURE_HEADER,
  signatureHeaders,
  standardWebhookSignature,
  verifyCrowdstrike,
  verifyGithubSignature,
} from "../../shared/signing.js";

// Published vector: https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_PAYLOAD = "Hello, World!";
const GITHUB_EXPECTED = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

// Published vector: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
const SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const SW_TIMESTAMP = 1614265330;
const SW_BODY = '{"test": 2432232314}';
const SW_EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

test("GitHub published vector", async (t) => {
  t.equal(githubSignature(GITHUB_SECRET, GITHUB_PAYLOAD), GITHUB_EXPECTED);
  t.equal(githubSignature(GITHUB_SECRET, Buffer.from(GITHUB_PAYLOAD)), GITHUB_EXPECTED, "Buffer and string bodies agree");
  t.ok(verifyGithubSignature(GITHUB_SECRET, GITHUB_PAYLOAD, GITHUB_EXPECTED));
  t.ok(verifyGithubSignature(GITHUB_SECRET, Buffer.from(GITHUB_PAYLOAD), GITHUB_EXPECTED.toUpperCase().replace("SHA256=", "sha256=")), "hex case-insensitive");
});

test("GitHub signature agrees with @octokit/webhooks-methods both ways", async (t) => {
  const body = JSON.stringify({ action: "completed", n: 1, text: "héllo ✓" });
  const theirs = await octokitSign("s3cret", body);
  t.equal(githubSignature("s3cret", body), theirs);
  t.ok(verifyGithubSignature("s3cret", body, theirs));
  t.ok(await octokitVerify("s3cret", body, githubSignature("s3cret", body)));
});

test("GitHub verification refuses tampering and garbage", async (t) => {
  t.notOk(verifyGithubSignature(GITHUB_SECRET, "Hello, World?", GITHUB_EXPECTED), "tampered body");
  t.notOk(verifyGithubSignature("another secret", GITHUB_PAYLOAD, GITHUB_EXPECTED), "wrong secret");
  const flipped = GITHUB_EXPECTED.slice(0, -1) + (GITHUB_EXPECTED.endsWith("7") ? "8" : "7");
  t.notOk(verifyGithubSignature(GITHUB_SECRET, GITHUB_PAYLOAD, flipped), "one hex digit changed");
  for (const header of [undefined, null, "", "sha256=", "sha1=757107ea0eb2509fc211221cce984b8a37570b6d", "sha256=zz", GITHUB_EXPECTED.slice(7), `${GITHUB_EXPECTED}00`, "garbage"]) {
    t.notOk(verifyGithubSignature(GITHUB_SECRET, GITHUB_PAYLOAD, header), `header ${JSON.stringify(header)}`);
  }
});

test("Standard Webhooks published vector", async (t) => {
  t.equal(standardWebhookSignature(SW_SECRET, SW_ID, SW_TIMESTAMP, SW_BODY), SW_EXPECTED);
  const headers = signatureHeaders({ secret: SW_SECRET, eventId: SW_ID, timestamp: SW_TIMESTAMP, body: SW_BODY });
  t.same(headers, {
    [SERVICE_SIGNATURE_HEADER]: githubSignature(SW_SECRET, SW_BODY),
    "webhook-id": SW_ID,
    "webhook-timestamp": "1614265330",
    "webhook-signature": SW_EXPECTED,
  });
  t.equal(SERVICE_SIGNATURE_HEADER, "X-Service-Signature-256");
});

test("X-Service-Signature-256 is keyed with the whole secret string", async (t) => {
  const headers = signatureHeaders({ secret: SW_SECRET, eventId: SW_ID, timestamp: SW_TIMESTAMP, body: Buffer.from(SW_BODY) });
  const expected = `sha256=${createHmac("sha256", SW_SECRET).update(SW_BODY).digest("hex")}`;
  t.equal(headers[SERVICE_SIGNATURE_HEADER], expected);
});

test("our headers pass the real standardwebhooks and svix verifiers", async (t) => {
  const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
  const body = JSON.stringify({ event_id: "evt_01", type: "investigation.completed", data: { ok: true } });
  const headers = signatureHeaders({ secret, eventId: "evt_01", timestamp: nowSeconds(), body });

  t.same(new StandardWebhook(secret).verify(body, headers), JSON.parse(body), "standardwebhooks accepts");
  t.doesNotThrow(() => new SvixWebhook(secret).verify(body, headers), "svix accepts");
  t.doesNotThrow(() => new StandardWebhook(secret).verify(Buffer.from(body), headers), "Buffer payload too");
});

test("the real verifiers refuse tampered deliveries", async (t) => {
  const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
  const otherSecret = `whsec_${Buffer.from("fedcba9876543210fedcba9876543210").toString("base64")}`;
  const body = JSON.stringify({ event_id: "evt_02", data: { n: 1 } });
  const headers = signatureHeaders({ secret, eventId: "evt_02", timestamp: nowSeconds(), body });
  const tamperedBody = body.replace('"n":1', '"n":2');

  for (const [name, Lib] of [["standardwebhooks", StandardWebhook], ["svix", SvixWebhook]] as const) {
    t.throws(() => new Lib(secret).verify(tamperedBody, headers), `${name}: tampered body`);
    t.throws(() => new Lib(otherSecret).verify(body, headers), `${name}: wrong secret`);
    t.throws(() => new Lib(secret).verify(body, { ...headers, "webhook-id": "evt_03" }), `${name}: other event id`);
    const stale = signatureHeaders({ secret, eventId: "evt_02", timestamp: nowSeconds() - 3600, body });
    t.throws(() => new Lib(secret).verify(body, stale), `${name}: hour-old timestamp`);
  }
});

test("signatureHeaders refuses a timestamp that is not unix seconds", async (t) => {
  for (const timestamp of [1.5, -1, Number.NaN, Date.now()]) {
    t.throws(() => signatureHeaders({ secret: SW_SECRET, eventId: "evt", timestamp, body: "{}" }), RangeError, String(timestamp));
  }
});

test("CrowdStrike-style signature", async (t) => {
  const secret = "cs-shared-secret";
  const text = JSON.stringify({ device_id: "abc", description: "Suspicious PowerShell" });
  const body = Buffer.from(text);
  const now = 1_700_000_000;
  const ts = String(now - 10);
  const expected = createHmac("sha256", secret).update(`${ts}.${text}`).digest("base64");
  t.equal(crowdstrikeSignature(secret, ts, body), expected, "base64 HMAC of <timestamp>.<raw body>");
  t.equal(crowdstrikeSignature(secret, now - 10, body), expected, "numeric timestamp gives the same");

  const input = { secret, body, timestampHeader: ts, signatureHeader: expected, nowSeconds: now };
  t.ok(verifyCrowdstrike(input), "valid");
  t.ok(verifyCrowdstrike({ ...input, timestampHeader: String(now - 300), signatureHeader: crowdstrikeSignature(secret, now - 300, body) }), "exactly 300 s old");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: String(now - 301), signatureHeader: crowdstrikeSignature(secret, now - 301, body) }), "stale (301 s)");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: String(now + 301), signatureHeader: crowdstrikeSignature(secret, now + 301, body) }), "too far in the future");
  t.ok(verifyCrowdstrike({ ...input, nowSeconds: now + 1000, toleranceSeconds: 2000 }), "custom tolerance");
  t.notOk(verifyCrowdstrike({ ...input, body: Buffer.from(text.replace("abc", "abd")) }), "tampered body");
  t.notOk(verifyCrowdstrike({ ...input, secret: "other" }), "wrong secret");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: String(now - 11) }), "timestamp not the signed one");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: undefined }), "missing timestamp");
  t.notOk(verifyCrowdstrike({ ...input, signatureHeader: undefined }), "missing signature");
  t.notOk(verifyCrowdstrike({ ...input, signatureHeader: "not base64 at all" }), "garbage signature");
  t.notOk(verifyCrowdstrike({ ...input, signatureHeader: expected.slice(0, 20) }), "truncated signature");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: `${ts}.5` }), "non-integer timestamp");
  t.notOk(verifyCrowdstrike({ ...input, timestampHeader: "-10" }), "negative timestamp");
});
