// Cheaper JetStream publishes. For every `js.publish`, @nats-io/jetstream 3.4.0 builds a MsgHdrs (a Map and
// canonical header names), copies its options and makes a backoff helper before its nats-core request. Measured
// against one nats-server on this machine (40,000 publishes of 1.2 KB, 32 at once), library publish and request
// together cost 15-16 µs of client CPU per publish; the publish needs its header bytes and one lean request
// (lean-requests.ts): 6-8 µs (docs/nats.md#lean-publish). A trigger makes three publishes, a delivery one or two, a
// large run thousands.
//
// Here `JetStreamClientImpl.prototype.publish` takes that path for the publishes Inquest makes: a message id, the
// expected-sequence checks of KV writes (kv.create, update and put pass their own headers), a timeout, one try.
// Anything else (retries, schedules, TTLs, batch ids) goes to the library as before. Every failure is what the
// library throws, so shared/nats/errors.ts reads it the same: JetStreamNotEnabled over the RequestError over
// NoRespondersError when no stream takes the subject; JetStreamApiError and its subclasses when the server refuses
// (a lost compare-and-set is err_code 10071); and the request's own failures (lean-requests.ts) as they are.
// Applied once, by importing this module (shared/nats/connect.ts does); the test pins the behaviour against a real
// nats-server and against the library's own path.
import { JetStreamClientImpl } from "@nats-io/jetstream/internal";
import { JetStreamApiCodes, JetStreamApiError, JetStreamError, jserrors, type PubAck } from "@nats-io/jetstream/internal";
import { RequestError, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core/internal";
import { decodeJson } from "./kvjson.js";
import { leanRequests, payloadBytes } from "./lean-requests.js";

/** The publish options this path handles; any other option sends the publish to the library. */
interface LeanOptions {
  msgID?: string;
  timeout?: number;
  retries?: number;
  headers?: MsgHdrs;
  expect?: { lastSubjectSequence?: number; lastSequence?: number; lastMsgID?: string; streamName?: string };
}

const OPTION_KEYS: ReadonlySet<string> = new Set(["msgID", "timeout", "retries", "headers", "expect"]);
/** The expectations this path writes, and when a value is one (as the library decides: numbers, non-empty text). */
const EXPECT_HEADERS: Readonly<Record<string, { name: string; set(value: unknown): boolean }>> = {
  lastSubjectSequence: { name: "Nats-Expected-Last-Subject-Sequence", set: (v) => typeof v === "number" },
  lastSequence: { name: "Nats-Expected-Last-Sequence", set: (v) => typeof v === "number" },
  lastMsgID: { name: "Nats-Expected-Last-Msg-Id", set: (v) => typeof v === "string" && v !== "" },
  streamName: { name: "Nats-Expected-Stream", set: (v) => typeof v === "string" && v !== "" },
};

const encoder = new TextEncoder();

/** Header bytes for the options, or null when a value cannot be a header value (the library then refuses it). */
function headerBytes(opts: LeanOptions): Uint8Array | null {
  let text = "NATS/1.0\r\n";
  const add = (name: string, value: string): boolean => {
    if (/[\r\n]/.test(value)) return false;
    text += `${name}: ${value}\r\n`;
    return true;
  };
  // As the library: an empty message id sets no header.
  if (opts.msgID && !add("Nats-Msg-Id", opts.msgID)) return null;
  for (const [key, value] of Object.entries(opts.expect ?? {})) {
    const header = EXPECT_HEADERS[key];
    if (header === undefined) return null;
    if (header.set(value) && !add(header.name, String(value))) return null;
  }
  return encoder.encode(`${text}\r\n`);
}

/** Whether this path handles the options (everything else goes to the library). */
function lean(opts: LeanOptions | undefined): boolean {
  if (opts === undefined) return true;
  for (const key of Object.keys(opts)) if (!OPTION_KEYS.has(key)) return false;
  if ((opts.retries ?? 1) > 1) return false;
  if (opts.headers && opts.msgID) return false;
  for (const key of Object.keys(opts.expect ?? {})) if (!(key in EXPECT_HEADERS)) return false;
  return !(opts.headers && opts.expect && Object.keys(opts.expect).length > 0);
}

/** The acknowledgement in a reply, or the library's error for what the reply says. */
function ackOf(msg: Msg): PubAck {
  if (msg.data.length === 0) throw new JetStreamError("invalid ack response");
  const reply = decodeJson<PubAck & { error?: { code: number; err_code: number; description: string } }>(msg.data);
  if (reply.error) {
    switch (reply.error.err_code) {
      case JetStreamApiCodes.StreamNotFound:
        throw new jserrors.StreamNotFoundError(reply.error);
      case JetStreamApiCodes.JetStreamNotEnabledForAccount: {
        const api = new JetStreamApiError(reply.error);
        throw new jserrors.JetStreamNotEnabled(api.message, { cause: api });
      }
      default:
        throw new JetStreamApiError(reply.error);
    }
  }
  if (!reply.stream) throw new JetStreamError("invalid ack response");
  reply.duplicate = reply.duplicate ?? false;
  return reply;
}

type Client = { nc: NatsConnection; timeout: number; publish(subject: string, data?: Uint8Array | string, opts?: LeanOptions): Promise<PubAck> };

const PATCHED = Symbol.for("inquest.leanPublish");
const proto = JetStreamClientImpl.prototype as unknown as Client & { [PATCHED]?: true };

if (!proto[PATCHED]) {
  const library = proto.publish;
  proto.publish = function (this: Client, subject: string, data?: Uint8Array | string, opts?: LeanOptions): Promise<PubAck> {
    if (!lean(opts)) return library.call(this, subject, data, opts);
    const headers = opts?.headers ?? headerBytes(opts ?? {});
    if (headers === null) return library.call(this, subject, data, opts);
    const hdrs = headers instanceof Uint8Array ? ({ encode: () => headers } as unknown as MsgHdrs) : headers;
    let requests;
    try {
      // Made on first use: subscribing throws at once on a closed or draining connection, where the library's async
      // publish rejects instead.
      requests = leanRequests(this.nc);
    } catch (err) {
      return Promise.reject(err);
    }
    return requests
      .request(subject, payloadBytes(data), hdrs, opts?.timeout || this.timeout)
      .then(
        (msg) => ackOf(msg),
        (err: unknown) => {
          // As the library: nobody took the subject means no stream (JetStream "not enabled" for it).
          if (err instanceof RequestError && err.isNoResponders()) throw new jserrors.JetStreamNotEnabled("jetstream is not enabled", { cause: err });
          throw err;
        },
      );
  };
  proto[PATCHED] = true;
}

/** True once the patch is in place (the test checks it). */
export const leanPublishPatched = (): boolean => proto[PATCHED] === true;
