import { randomBytes } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { test } from "tap";
import { ConfigError } from "../../shared/errors.js";
import {
  decryptSecret,
  encryptSecret,
  hashToken,
  newApiKey,
  newInboundKey,
  newWebhookSecret,
  parseMasterKey,
  randomToken,
  SecretDecryptError,
  safeEqual,
  digestEqual,
  splitApiKey,
  splitInboundKey,
} from "../../shared/secrets.js";

const KEY_B64 = Buffer.alloc(32, 7).toString("base64");
const masterKey = parseMasterKey(KEY_B64);

/** Replaces one character of part `index` of a sealed value with a different base64url character. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split(".");
  const part = parts[index] ?? "";
  const pos = Math.floor(part.length / 2);
  const replacement = part[pos] === "A" ? "B" : "A";
  parts[index] = part.slice(0, pos) + replacement + part.slice(pos + 1);
  return parts.join(".");
}

test("parseMasterKey accepts exactly 32 bytes of base64", async (t) => {
  t.equal(masterKey.length, 32);
  t.same(parseMasterKey(` ${KEY_B64}\n`), masterKey, "surrounding whitespace is ignored");
  const raw = randomBytes(32);
  t.same(parseMasterKey(raw.toString("base64url")), raw, "URL-safe base64 too");
  t.same(parseMasterKey(raw.toString("base64")), raw);
});

test("parseMasterKey refuses anything else with a ConfigError that names the variable", async (t) => {
  const secretLooking = Buffer.alloc(31, 9).toString("base64");
  for (const bad of ["", "   ", secretLooking, Buffer.alloc(33).toString("base64"), "not base64!!", "a=b=c", "hex:00ff"]) {
    const err = (() => {
      try {
        parseMasterKey(bad);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    t.ok(err instanceof ConfigError, `${JSON.stringify(bad)} throws ConfigError`);
    t.match(err instanceof Error ? err.message : "", /INQUEST_MASTER_KEY.*32 bytes/);
    if (bad.trim() !== "") t.notOk(err instanceof Error && err.message.includes(bad), "message does not echo the key");
  }
});

test("encrypt/decrypt round trip", async (t) => {
  for (const plaintext of ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "", "ünïcødé ✓ 🔐", "x".repeat(10_000)]) {
    const sealed = encryptSecret(masterKey, plaintext);
    t.match(sealed, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/, "compact versioned format");
    t.equal(decryptSecret(masterKey, sealed), plaintext);
  }
  const a = encryptSecret(masterKey, "same");
  const b = encryptSecret(masterKey, "same");
  t.not(a, b, "a fresh IV every time");
  t.not(a.split(".")[1], b.split(".")[1]);
  t.notOk(a.includes(Buffer.from("same").toString("base64url")), "plaintext not visible");
});

test("decrypt fails loudly on tampering, a wrong key or a malformed value", async (t) => {
  const sealed = encryptSecret(masterKey, "provider-signing-secret");
  const cases: Array<[string, string]> = [
    ["iv changed", tamper(sealed, 1)],
    ["tag changed", tamper(sealed, 2)],
    ["ciphertext changed", tamper(sealed, 3)],
    ["unknown version", sealed.replace(/^v1\./, "v2.")],
    ["too few parts", sealed.split(".").slice(0, 3).join(".")],
    ["too many parts", `${sealed}.AAAA`],
    ["truncated tag", sealed.replace(/^(v1\.[^.]+\.)[^.]{4}/, "$1")],
    ["not base64url", sealed.replace(/\.([^.]+)$/, ".+/+/")],
    ["empty", ""],
  ];
  for (const [name, value] of cases) {
    t.throws(() => decryptSecret(masterKey, value), SecretDecryptError, name);
  }
  const otherKey = parseMasterKey(Buffer.alloc(32, 8).toString("base64"));
  try {
    decryptSecret(otherKey, sealed);
    t.fail("wrong key must throw");
  } catch (err) {
    t.ok(err instanceof SecretDecryptError, "wrong key");
    t.equal(err instanceof SecretDecryptError ? err.code : "", "secret_decrypt_failed", "stable code");
    t.ok(err instanceof Error && err.cause !== undefined, "keeps the cause");
  }
  t.throws(() => encryptSecret(Buffer.alloc(16), "x"), ConfigError, "short master key refused");
  t.throws(() => decryptSecret(Buffer.alloc(16), sealed), ConfigError);
});

test("hashToken is sha256 hex", async (t) => {
  t.equal(hashToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "FIPS 180-2 vector");
  t.equal(hashToken(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  t.match(hashToken("whk_abcdefgh_secret"), /^[0-9a-f]{64}$/);
});

test("digestEqual compares hex digests, character for character", async (t) => {
  const h = hashToken("inq_abc");
  t.ok(digestEqual(h, hashToken("inq_abc")));
  t.notOk(digestEqual(h, hashToken("inq_abd")));
  t.notOk(digestEqual(h, `${h.slice(0, 63)}${h[63] === "0" ? "1" : "0"}`), "the last character differs");
  t.notOk(digestEqual(h, h.slice(0, 63)), "different lengths");
  t.notOk(digestEqual(h, h.toUpperCase()), "case matters: digests are lower-case hex");
  t.ok(digestEqual("", ""));
});

test("safeEqual", async (t) => {
  t.ok(safeEqual("inq_abc", "inq_abc"));
  t.ok(safeEqual("", ""));
  t.notOk(safeEqual("inq_abc", "inq_abd"));
  t.notOk(safeEqual("inq_abc", "inq_abc "), "different lengths");
  t.notOk(safeEqual("", "x"));
  t.ok(safeEqual("ünï", "ünï"));
});

test("randomToken", async (t) => {
  t.match(randomToken(32), /^[A-Za-z0-9_-]{43}$/);
  t.match(randomToken(1), /^[A-Za-z0-9_-]{2}$/);
  t.not(randomToken(16), randomToken(16));
  for (const bad of [0, -1, 1.5, 1025, Number.NaN]) t.throws(() => randomToken(bad), RangeError, String(bad));
});

test("newWebhookSecret is whsec_ + base64 of 32 bytes and works with standardwebhooks", async (t) => {
  const secret = newWebhookSecret();
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(Buffer.from(secret.slice(6), "base64").length, 32);
  t.not(secret, newWebhookSecret());
  t.doesNotThrow(() => new StandardWebhook(secret));
});

test("inbound keys: whk_<8 alphanumerics>_<43 base64url>, split strictly", async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const { key, prefix } = newInboundKey();
    t.match(key, /^whk_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    t.match(prefix, /^whk_[A-Za-z0-9]{8}$/);
    t.ok(key.startsWith(`${prefix}_`));
    t.same(splitInboundKey(key), { ok: true, prefix });
    t.same(splitApiKey(key), { ok: false, prefix: null }, "not an API key");
    seen.add(key);
  }
  t.equal(seen.size, 200, "unique");
  // Secrets may contain "_" and "-"; the prefix is always the first 12 characters.
  t.same(splitInboundKey(`whk_AbCd1234_${"_-".repeat(16)}`), { ok: true, prefix: "whk_AbCd1234" });
  const bad = [
    "",
    "whk_",
    "whk_AbCd1234",
    "whk_AbCd1234_",
    `whk_AbCd1234_${"a".repeat(31)}`,
    `whk_AbCd123_${"a".repeat(43)}`,
    `whk_AbCd-234_${"a".repeat(43)}`,
    `whk_AbCd12345${"a".repeat(43)}`,
    `WHK_AbCd1234_${"a".repeat(43)}`,
    `inq_AbCd1234_${"a".repeat(43)}`,
    `whk_AbCd1234_${"a".repeat(42)}=`,
    `whk_AbCd1234_${"a".repeat(43)} `,
    ` whk_AbCd1234_${"a".repeat(43)}`,
    `whk_AbCd1234_${"a".repeat(43)}/x`,
    `whk_AbCd1234_${"a".repeat(129)}`,
  ];
  for (const key of bad) t.same(splitInboundKey(key), { ok: false, prefix: null }, JSON.stringify(key));
});

test("API keys: inq_<8 alphanumerics>_<43 base64url>", async (t) => {
  const { key, prefix } = newApiKey();
  t.match(key, /^inq_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
  t.match(prefix, /^inq_[A-Za-z0-9]{8}$/);
  t.same(splitApiKey(key), { ok: true, prefix });
  t.same(splitInboundKey(key), { ok: false, prefix: null });
  t.same(splitApiKey(`inq_${"a".repeat(43)}`), { ok: false, prefix: null }, "no prefix section");
  t.not(newApiKey().key, newApiKey().key);
});
