// Cheaper request/reply. nats-core 3.4.0 makes, for every `nc.request`, a RequestOne with a timer promise of its own
// (a setTimeout each), a deferred, a `Promise.race` of the two and a catch handler on it. The services make many:
// each KV read, each JetStream API call, each plan a runner sends (10,000 per run over a large fleet), and
// JetStream publishes (lean-publish.ts). Here a connection's simple requests (a timeout, perhaps headers; no
// `noMux`, no reply subject of the caller's) share one wildcard subscription under the connection's inbox prefix,
// one map of what waits, and one timer that checks deadlines every 100 ms (docs/nats.md#lean-publish).
//
// Each outcome is what nats-core's mux gives, so callers and shared/nats/errors.ts read it the same: the reply
// message itself; TimeoutError; RequestError over NoRespondersError when nobody subscribes (a 503 status with no
// data); RequestError over PermissionViolationError when the server refuses the publish (the oldest request to that
// subject, one per refusal, as the mux does) or the reply subscription (every waiting request; the next request
// subscribes again); RequestError("connection closed") for what waits when the connection
// closes. A request on a closed or draining connection throws as nats-core's publish does.
// Applied once, by importing this module (shared/nats/connect.ts does, through lean-publish.ts); the test pins the
// behaviour against a real nats-server and against the library's own path.
import {
  DrainingConnectionError,
  NatsConnectionImpl,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
  nuid,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Payload,
  type RequestOptions,
  type Status,
} from "@nats-io/nats-core/internal";

/** How often waiting requests are checked against their deadlines. */
const SWEEP_MS = 100;
/** nats-core's default request timeout. */
const DEFAULT_TIMEOUT_MS = 1_000;

interface Waiting {
  subject: string;
  deadline: number;
  resolve(msg: Msg): void;
  reject(err: Error): void;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** One connection's requests waiting for their replies, under one wildcard reply subscription. */
export class LeanRequests {
  private readonly prefix: string;
  private readonly waiting = new Map<string, Waiting>();
  /** The connection's status events, watched for refused publishes (stopped if the reply subscription is refused). */
  private readonly statuses: AsyncIterable<Status> & { stop?(): void };
  private next = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly nc: NatsConnectionImpl) {
    this.prefix = `${nc.options.inboxPrefix || "_INBOX"}.${nuid.next()}.`;
    nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => (err ? this.refused(err) : this.answer(msg)) });
    this.statuses = nc.status();
    void this.watch();
  }

  /** Requests waiting for a reply now (for tests). */
  get size(): number {
    return this.waiting.size;
  }

  request(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number): Promise<Msg> {
    // As nats-core: no new request once the connection drains (its publish alone would still be allowed).
    if (this.nc.isDraining() && !this.nc.isClosed()) return Promise.reject(new DrainingConnectionError());
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      this.waiting.set(token, { subject, deadline: performance.now() + timeoutMs, resolve, reject });
      try {
        this.nc.publish(subject, data, { reply: `${this.prefix}${token}`, ...(headers ? { headers } : {}) });
      } catch (err) {
        this.waiting.delete(token);
        reject(err as Error);
        return;
      }
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    });
  }

  private answer(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const w = this.waiting.get(token);
    if (w === undefined) return; // answered after its deadline: the caller was told it timed out
    this.waiting.delete(token);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      const none = new NoRespondersError(w.subject);
      w.reject(new RequestError(none.message, { cause: none }));
      return;
    }
    w.resolve(msg);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [token, w] of this.waiting) {
      if (w.deadline > now) continue;
      this.waiting.delete(token);
      w.reject(new TimeoutError());
    }
    if (this.waiting.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /**
   * The reply subscription itself failed (the server refused it: no permission for the inbox): every waiting request
   * fails with it, and the next request makes a new subscription. As nats-core's mux does.
   */
  private refused(err: Error): void {
    if (mux.get(this.nc) === this) mux.delete(this.nc);
    this.statuses.stop?.(); // nats-core's status iterator (a QueuedIterator) has stop()
    this.failAll(new RequestError(err.message, { cause: err }));
  }

  /** A refused publish fails the oldest request to its subject, one per refusal, as nats-core's mux does. */
  private async watch(): Promise<void> {
    for await (const s of this.statuses) {
      const err = (s as { error?: unknown }).error;
      if (s.type !== "error" || !(err instanceof PermissionViolationError) || err.operation !== "publish") continue;
      for (const [token, w] of this.waiting) {
        if (w.subject !== err.subject) continue;
        this.waiting.delete(token);
        w.reject(new RequestError(err.message, { cause: err }));
        break;
      }
    }
  }

  /** The connection closed: what waits fails as nats-core's mux fails it, a RequestError("connection closed") wrapped once more. */
  connectionClosed(): void {
    this.failAll(new RequestError("connection closed", { cause: new RequestError("connection closed") }));
  }

  private failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

const mux = new WeakMap<NatsConnection, LeanRequests>();
/**
 * Connections whose close is watched: once per connection, for whichever LeanRequests is current when it closes. (One
 * watch per LeanRequests kept every refused one alive until the connection closed, one per request when the server
 * refuses the reply subscription each time.)
 */
const watched = new WeakSet<NatsConnection>();

/** The connection's lean requests (made on first use, and again after the server refused the reply subscription). */
export function leanRequests(nc: NatsConnection): LeanRequests {
  let r = mux.get(nc);
  if (r === undefined) {
    r = new LeanRequests(nc as NatsConnectionImpl);
    mux.set(nc, r);
    if (!watched.has(nc)) {
      watched.add(nc);
      const closed = (): void => mux.get(nc)?.connectionClosed();
      nc.closed().then(closed, closed);
    }
  }
  return r;
}

export const payloadBytes = (data: Payload | undefined): Uint8Array => (data === undefined ? EMPTY : typeof data === "string" ? encoder.encode(data) : data);

/** Requests this path takes: a timeout of at least 1 ms and perhaps headers; anything else is nats-core's. */
function lean(opts: RequestOptions | undefined): boolean {
  if (opts === undefined) return true;
  for (const key of Object.keys(opts)) if (key !== "timeout" && key !== "headers" && !(key === "noMux" && !opts.noMux)) return false;
  return opts.timeout === undefined || opts.timeout >= 1;
}

const PATCHED = Symbol.for("inquest.leanRequests");
const proto = NatsConnectionImpl.prototype as NatsConnectionImpl & { [PATCHED]?: true };

if (!proto[PATCHED]) {
  const library = proto.request;
  proto.request = function (this: NatsConnectionImpl, subject: string, data?: Payload, opts?: RequestOptions): Promise<Msg> {
    if (!lean(opts)) return library.call(this, subject, data, opts);
    try {
      return leanRequests(this).request(subject, payloadBytes(data), opts?.headers, opts?.timeout || DEFAULT_TIMEOUT_MS);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  proto[PATCHED] = true;
}

/** True once the patch is in place (the test checks it). */
export const leanRequestsPatched = (): boolean => proto[PATCHED] === true;
