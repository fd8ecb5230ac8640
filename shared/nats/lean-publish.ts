// Cheaper JetStream publishes. For every `js.publish`, @nats-io/jetstream 3.4.0 builds a MsgHdrs (a Map and
// canonical header names), copies its options, makes a backoff helper, and sends a nats-core request: a RequestOne
// with its own timer promise, a Promise.race and a catch handler. Measured against one nats-server on this machine
// (40,000 publishes of 1.2 KB, 32 at once): 15-16 µs of client CPU per publish, against 6-8 µs for what the
// publish needs: its header bytes, a reply subject under one wildcard subscription, one entry in a map
// (docs/nats.md#lean-publish). A trigger makes three publishes, a delivery one or two, a large run thousands.
//
// Here `JetStreamClientImpl.prototype.publish` takes that path for the publishes Inquest makes: a message id, the
// expected-sequence checks of KV writes, a timeout, one try. Anything else (retries, schedules, TTLs, batch ids)
// goes to the library as before. Every failure is the library's own error class, so shared/nats/errors.ts reads
// it the same: TimeoutError, JetStreamNotEnabled over a RequestError over NoRespondersError (no stream takes the
// subject), JetStreamApiError and its subclasses (the server refused: a lost compare-and-set is err_code 10071),
// PermissionViolationError, ClosedConnectionError, DrainingConnectionError.
// Applied once, by importing this module (shared/nats/connect.ts does); the test pins the behaviour against a real
// nats-server, so an upgrade of the library that changes it fails there first.
import { JetStreamClientImpl } from "@nats-io/jetstream/internal";
import { JetStreamApiCodes, JetStreamApiError, JetStreamError, jserrors, type PubAck } from "@nats-io/jetstream/internal";
import { ClosedConnectionError, NoRespondersError, PermissionViolationError, RequestError, TimeoutError, nuid, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core/internal";

/** The publish options this path handles; any other option sends the publish to the library. */
interface LeanOptions {
  msgID?: string;
  timeout?: number;
  retries?: number;
  headers?: MsgHdrs;
  expect?: { lastSubjectSequence?: number; lastSequence?: number; lastMsgID?: string; streamName?: string };
}

const OPTION_KEYS: ReadonlySet<string> = new Set(["msgID", "timeout", "retries", "headers", "expect"]);
const EXPECT_HEADERS: Readonly<Record<string, string>> = {
  lastSubjectSequence: "Nats-Expected-Last-Subject-Sequence",
  lastSequence: "Nats-Expected-Last-Sequence",
  lastMsgID: "Nats-Expected-Last-Msg-Id",
  streamName: "Nats-Expected-Stream",
};

/** How often outstanding publishes are checked against their deadlines. */
const SWEEP_MS = 100;

interface Pending {
  subject: string;
  deadline: number;
  resolve(ack: PubAck): void;
  reject(err: Error): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Header bytes for the options, or null when a value cannot be a header value (the library then refuses it). */
function headerBytes(opts: LeanOptions): Uint8Array | null {
  let text = "NATS/1.0\r\n";
  const add = (name: string, value: string): boolean => {
    if (/[\r\n]/.test(value)) return false;
    text += `${name}: ${value}\r\n`;
    return true;
  };
  if (opts.msgID !== undefined && !add("Nats-Msg-Id", opts.msgID)) return null;
  for (const [key, value] of Object.entries(opts.expect ?? {})) {
    if (value === undefined) continue;
    const name = EXPECT_HEADERS[key];
    if (name === undefined || !add(name, String(value))) return null;
  }
  return encoder.encode(`${text}\r\n`);
}

/** Whether this path handles the options (everything else goes to the library). */
function lean(opts: LeanOptions | undefined): boolean {
  if (opts === undefined) return true;
  for (const key of Object.keys(opts)) if (!OPTION_KEYS.has(key)) return false;
  if ((opts.retries ?? 1) > 1) return false;
  if (opts.headers && opts.msgID !== undefined) return false;
  for (const key of Object.keys(opts.expect ?? {})) if (!(key in EXPECT_HEADERS)) return false;
  return !(opts.headers && opts.expect && Object.keys(opts.expect).length > 0);
}

/** The acknowledgement in a reply, or the library's error for what the reply says. */
function ackOf(msg: Msg, subject: string): PubAck {
  if (msg.data.length === 0) {
    if (msg.headers?.code === 503) {
      const none = new NoRespondersError(subject);
      throw new jserrors.JetStreamNotEnabled("jetstream is not enabled", { cause: new RequestError(none.message, { cause: none }) });
    }
    throw new JetStreamError("invalid ack response");
  }
  const reply = JSON.parse(decoder.decode(msg.data)) as PubAck & { error?: { code: number; err_code: number; description: string } };
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

/** One connection's publishes awaiting their acknowledgements, under one wildcard reply subscription. */
class Publisher {
  private readonly prefix: string;
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${(nc as unknown as { options: { inboxPrefix?: string } }).options.inboxPrefix ?? "_INBOX"}.${nuid.next()}.`;
    nc.subscribe(`${this.prefix}*`, { callback: (_err, msg) => this.answer(msg) });
    void this.watch();
    nc.closed().then(
      () => this.failAll(new ClosedConnectionError()),
      () => this.failAll(new ClosedConnectionError()),
    );
  }

  publish(subject: string, data: Uint8Array, headers: Uint8Array | MsgHdrs, timeoutMs: number): Promise<PubAck> {
    const token = (this.next++).toString(36);
    return new Promise<PubAck>((resolve, reject) => {
      this.pending.set(token, { subject, deadline: performance.now() + timeoutMs, resolve, reject });
      try {
        const encoded = headers instanceof Uint8Array ? ({ encode: () => headers } as unknown as MsgHdrs) : headers;
        this.nc.publish(subject, data, { reply: `${this.prefix}${token}`, headers: encoded });
      } catch (err) {
        this.pending.delete(token);
        reject(err as Error);
        return;
      }
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    });
  }

  private answer(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const p = this.pending.get(token);
    if (p === undefined) return; // answered after its deadline: the caller was told it timed out
    this.pending.delete(token);
    try {
      p.resolve(ackOf(msg, p.subject));
    } catch (err) {
      p.reject(err as Error);
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const [token, p] of this.pending) {
      if (p.deadline > now) continue;
      this.pending.delete(token);
      p.reject(new TimeoutError());
    }
    if (this.pending.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** A publish the server refused on permissions fails at once, as the library's requests do. */
  private async watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      const err = (s as { error?: unknown }).error;
      if (s.type !== "error" || !(err instanceof PermissionViolationError) || err.operation !== "publish") continue;
      for (const [token, p] of this.pending) {
        if (p.subject !== err.subject) continue;
        this.pending.delete(token);
        p.reject(err);
      }
    }
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

const publishers = new WeakMap<NatsConnection, Publisher>();

type Client = { nc: NatsConnection; timeout: number; publish(subject: string, data?: Uint8Array | string, opts?: LeanOptions): Promise<PubAck> };

const PATCHED = Symbol.for("inquest.leanPublish");
const proto = JetStreamClientImpl.prototype as unknown as Client & { [PATCHED]?: true };

if (!proto[PATCHED]) {
  const library = proto.publish;
  proto.publish = function (this: Client, subject: string, data?: Uint8Array | string, opts?: LeanOptions): Promise<PubAck> {
    if (!lean(opts)) return library.call(this, subject, data, opts);
    const headers = opts?.headers ?? headerBytes(opts ?? {});
    if (headers === null) return library.call(this, subject, data, opts);
    let publisher = publishers.get(this.nc);
    if (publisher === undefined) {
      publisher = new Publisher(this.nc);
      publishers.set(this.nc, publisher);
    }
    const bytes = data === undefined ? new Uint8Array(0) : typeof data === "string" ? encoder.encode(data) : data;
    return publisher.publish(subject, bytes, headers, opts?.timeout || this.timeout);
  };
  proto[PATCHED] = true;
}

/** True once the patch is in place (the test checks it). */
export const leanPublishPatched = (): boolean => proto[PATCHED] === true;
