// The gateway's side of the receiver: hand the request to an ingestor over NATS request/reply and return its
// outcome. No answer (no ingestor running, timeout, NATS down) is `unavailable`, which the gateway answers 503.
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Clock } from "../clock.js";
import type { Logger } from "../log.js";
import { decodeJson, encodeJson } from "../nats/kvjson.js";
import { inlineBody, spillBody } from "./body.js";
import { INBOUND_REQUEST_TIMEOUT_MS, INBOUND_SUBJECT } from "./catalog.js";
import { receiptOutcomeChecker, type ReceiptOutcome, type ReceiptRequest } from "./messages.js";

/** Credentials meant for us or for proxies in between, never for a provider's signature check. */
const DROPPED_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);
/** Room kept in a NATS message for its own framing. */
const PAYLOAD_MARGIN_BYTES = 1024;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

export interface ForwardDeps {
  nc: NatsConnection;
  spill: KV;
  clock: Clock;
  log: Logger;
  timeoutMs?: number;
}

export interface Receipt {
  provider: string;
  key: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: Buffer;
  bodyTooLarge: boolean;
}

export async function forwardReceipt(deps: ForwardDeps, receipt: Receipt): Promise<ReceiptOutcome> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(receipt.headers)) if (!DROPPED_HEADERS.has(name)) headers[name] = value;
  const request: ReceiptRequest = { provider: receipt.provider, key: receipt.key, headers, body: { kind: "too_large" } };
  let payload: Uint8Array;
  try {
    payload = await encodeRequest(deps, request, receipt);
  } catch (err) {
    deps.log.warn({ err }, "inbound: could not spill a large body");
    return { kind: "unavailable", message: "could not hand the body to the ingestor" };
  }
  let reply: Uint8Array;
  try {
    reply = (await deps.nc.request(INBOUND_SUBJECT, payload, { timeout: deps.timeoutMs ?? INBOUND_REQUEST_TIMEOUT_MS })).data;
  } catch (err) {
    deps.log.warn({ err }, "inbound: no ingestor answered");
    return { kind: "unavailable", message: "no ingestor answered; retry shortly" };
  }
  let decoded: unknown;
  try {
    decoded = decodeJson<unknown>(reply);
  } catch {
    decoded = undefined;
  }
  const checked = receiptOutcomeChecker.check(decoded);
  if (!checked.ok) {
    deps.log.error({ details: checked.details }, "inbound: the ingestor's answer does not match the schema");
    return { kind: "internal" };
  }
  return checked.value;
}

async function encodeRequest(deps: ForwardDeps, request: ReceiptRequest, receipt: Receipt): Promise<Uint8Array> {
  if (receipt.bodyTooLarge) return encodeJson(request);
  const inline = encodeJson({ ...request, body: inlineBody(receipt.body) });
  const maxPayload = deps.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  if (inline.length <= maxPayload - PAYLOAD_MARGIN_BYTES) return inline;
  return encodeJson({ ...request, body: await spillBody(deps.spill, receipt.body, maxPayload, deps.clock.now()) });
}
