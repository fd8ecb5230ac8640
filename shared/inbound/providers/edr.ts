// `edr`: CrowdStrike-style alert webhooks (docs/api.md#inbound). Signature `X-Cs-Primary-Signature` over
// "<X-Cs-Delivery-Timestamp>.<raw body>", timestamp within 300 s. An alert names a device and describes what
// happened; the receiver resolves the device to the agent registered with that `edr_device_id`.

import { createHash } from "node:crypto";
import { verifyCrowdstrike } from "../../signing.js";
import { at, clip, composeQuery, isObject, text, textOrNumber } from "./payload.js";
import type { Provider } from "./types.js";

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const MAX_TRIGGER_ID_CHARS = 255;
/** `…#sha256:` and 32 hex characters, with room to spare, after a long composite id's head. */
const DIGEST_SUFFIX_CHARS = 65;
/**
 * A seed (hash, command line, user) is kept whole up to this many characters (a report's text bound): the record
 * carries the seeds, and a command line of 700 KB made it too large to store with the run's results.
 */
const MAX_SEED_CHARS = 8192;

/**
 * The alert's composite id as the trigger id, whole up to 255 characters. A longer one keeps its first 190 characters
 * (whole code points) and a digest of the whole (`…#sha256:<32 hex>`): two alerts that differ only after the cut still
 * get two trigger ids (downstream deduplicates on it), and no surrogate pair is split.
 */
export function boundedTriggerId(compositeId: string): string {
  if (compositeId.length <= MAX_TRIGGER_ID_CHARS) return compositeId;
  let head = "";
  for (const c of compositeId) {
    if (head.length + c.length > MAX_TRIGGER_ID_CHARS - DIGEST_SUFFIX_CHARS) break;
    head += c;
  }
  return `${head}…#sha256:${createHash("sha256").update(compositeId).digest("hex").slice(0, 32)}`;
}

/** `edr_` + the first 32 hex characters of SHA-256(raw body): stable across provider retries of the same alert. */
export function edrBodyTriggerId(rawBody: Buffer): string {
  const bytes = new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  return `edr_${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}`;
}

export const edrProvider: Provider<"edr"> = {
  name: "edr",

  verify(req, signingSecret) {
    const ok = verifyCrowdstrike({
      secret: signingSecret,
      body: req.rawBody,
      timestampHeader: req.headers["x-cs-delivery-timestamp"],
      signatureHeader: req.headers["x-cs-primary-signature"],
      nowSeconds: req.nowSeconds,
    });
    return ok ? "ok" : "bad_signature";
  },

  onceOnly(req) {
    const timestamp = req.headers["x-cs-delivery-timestamp"];
    const signature = req.headers["x-cs-primary-signature"];
    // Claimed by the digest the signature decodes to, not its text: base64 leaves spare bits in the last character,
    // so four spellings of one signature decode to the same HMAC, and each would pass the check once.
    return timestamp === undefined || signature === undefined ? null : `${timestamp.trim()}.${Buffer.from(signature.trim(), "base64").toString("base64")}`;
  },

  interpret(req, body, endpoint) {
    if (!isObject(body)) return { kind: "ignored", reason: "not an EDR alert: the body is not a JSON object" };
    const deviceId = text(body["device_id"]) ?? text(at(body, "device", "device_id"));
    const description = text(body["description"]);
    if (deviceId === undefined || description === undefined) {
      return { kind: "ignored", reason: "not a recognised EDR alert: it needs device_id (or device.device_id) and description" };
    }

    const severityName = text(body["severity_name"]);
    const severity = textOrNumber(body["severity"]);
    const tactic = text(body["tactic"]);
    const technique = text(body["technique"]);
    const rawSha = text(body["sha256"]);
    const sha256 = rawSha !== undefined && SHA256_HEX.test(rawSha) ? rawSha.toLowerCase() : undefined;
    const cmdline = text(body["cmdline"]);
    const user = text(body["user_name"]);

    const severityText = severityName !== undefined && severity !== undefined ? `${severityName} (${severity})` : (severityName ?? severity);
    const context = [
      severityText !== undefined ? `severity ${clip(severityText, 60)}` : undefined,
      tactic !== undefined ? `tactic ${clip(tactic, 100)}` : undefined,
      technique !== undefined ? `technique ${clip(technique, 100)}` : undefined,
    ].filter((v): v is string => v !== undefined);
    const evidence = [
      sha256 !== undefined ? `file SHA-256 ${sha256}` : undefined,
      cmdline !== undefined ? `command line: ${clip(cmdline, 600)}` : undefined,
      user !== undefined ? `user ${clip(user, 100)}` : undefined,
    ].filter((v): v is string => v !== undefined);

    const sentences = [
      /[.!?]$/.test(clip(description, 900)) ? clip(description, 900) : `${clip(description, 900)}.`,
      `EDR alert on device ${clip(deviceId, 100)}${context.length > 0 ? `: ${context.join(", ")}` : ""}.`,
      evidence.length > 0 ? `It involves ${evidence.join("; ")}.` : "",
    ];
    const compositeId = text(body["composite_id"]);
    const seeds = [sha256, cmdline, user].filter((v): v is string => v !== undefined).map((v) => v.slice(0, MAX_SEED_CHARS));

    return {
      kind: "trigger",
      query: composeQuery(sentences, "What happened on this host around this alert, and did it spread?"),
      depth: endpoint.default_depth,
      scope: endpoint.default_scope,
      target: { kind: "edr_device", device_id: deviceId },
      trigger_id: compositeId !== undefined ? boundedTriggerId(compositeId) : edrBodyTriggerId(req.rawBody),
      ...(seeds.length > 0 ? { seeds } : {}),
    };
  },
};
