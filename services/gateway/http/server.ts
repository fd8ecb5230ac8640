// uWebSockets.js glue: reads the request synchronously, buffers the body up to the route's limit, runs
// the pipeline, and writes the reply corked (never after the client went away).
import uWS from "uWebSockets.js";
import type { Logger } from "../../../shared/log.js";
import type { RawRequest, Reply } from "./types.js";

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized",
  403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 413: "Payload Too Large",
  415: "Unsupported Media Type", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
};

/** The body of a request that has none (shared: nothing writes into a request's body). */
const NO_BODY = Buffer.alloc(0);

export interface HttpServerOptions {
  host: string;
  port: number;
  log: Logger;
  /** Resolves the route once: its body limit before the body is read, then its handling. */
  prepare(method: string, path: string): { bodyLimit: number; handle(req: RawRequest): Promise<Reply> };
}

export interface HttpServer {
  port: number;
  /**
   * Stops taking connections, answers any request that still comes on an open connection with 503 and
   * `Retry-After` (closing it), waits up to `graceMs` for the requests in hand to be answered, then closes every
   * connection. Closing at once cut off requests being handled: a POST already queued was answered with a reset.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long a closing server waits for the requests in hand by default. */
export const CLOSE_GRACE_MS = 5_000;

const SHUTTING_DOWN = JSON.stringify({ error: { code: "unavailable", message: "the gateway is shutting down; try again" } });

const UNFRAMABLE = JSON.stringify({
  error: {
    code: "invalid_json",
    message:
      "the body cannot be read: Content-Length must be one decimal number (given once, or repeated with the same value) and Transfer-Encoding must be chunked alone (no other transfer coding is decoded)",
  },
});

/**
 * Whether uWS frames the body as the headers say (repeated headers joined by ", "): a Content-Length absent, or
 * digits repeated only with the same value (an empty one uWS takes for none, different ones by the first); a
 * Transfer-Encoding absent, or chunked alone. uWS reads any body with chunked in it as chunked, and decodes no other
 * coding: chunked not last is a framing a proxy may read otherwise, and a body under another coding (`gzip, chunked`)
 * would reach the routes still encoded.
 */
function framable(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  if (contentLength !== undefined) {
    const values = contentLength.split(",").map((v) => v.trim());
    if (!values.every((v) => /^[0-9]+$/.test(v) && Number(v) === Number(values[0]))) return false;
  }
  if (transferEncoding !== undefined) {
    const codings = transferEncoding.split(",").map((c) => c.trim().toLowerCase());
    if (codings.length !== 1 || codings[0] !== "chunked") return false;
  }
  return true;
}

/** uWS.LIBUS_LISTEN_EXCLUSIVE_PORT (1): listen without SO_REUSEPORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1;

export function isNativeUws(): boolean {
  return typeof (uWS as unknown as { getParts?: unknown }).getParts === "function";
}

export function listen(opts: HttpServerOptions): Promise<HttpServer> {
  const app = uWS.App();
  let inHand = 0;
  let closing = false;
  let idle: (() => void) | null = null;
  app.any("/*", (res, req) => {
    if (closing) {
      endAndClose(res, "503 Service Unavailable", SHUTTING_DOWN, { "retry-after": "1" });
      return;
    }
    // Headers first: whether the body can be framed at all decides what comes next.
    const headers: Record<string, string> = {};
    let repeatedHeaders: string[] | undefined;
    req.forEach((k, v) => {
      if (Object.hasOwn(headers, k)) {
        headers[k] = `${headers[k]}, ${v}`;
        (repeatedHeaders ??= []).push(k);
      } else headers[k] = v;
    });
    if (!framable(headers["content-length"], headers["transfer-encoding"])) {
      refuseUnframable(res);
      return;
    }
    inHand++;
    let aborted = false;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      if (--inHand === 0) idle?.();
    };
    res.onAborted(() => {
      aborted = true;
      settle();
    });
    // HEAD is GET without the body (RFC 9110 9.3.2): the same route, status and headers, Content-Length included.
    const asked = req.getCaseSensitiveMethod().toUpperCase();
    const head = asked === "HEAD";
    const method = head ? "GET" : asked;
    const path = req.getUrl();
    const query = req.getQuery() ?? "";
    const prepared = opts.prepare(method, path);
    const limit = prepared.bodyLimit;
    const declared = Number(headers["content-length"] ?? "0");
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;

    const finish = (): void => {
      const body = chunks.length === 0 ? NO_BODY : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const request: RawRequest = { method: asked, path, query, headers, repeatedHeaders, body, bodyTooLarge: tooLarge };
      prepared
        .handle(request)
        .then(
          (reply) => write(res, reply, () => aborted, head),
          (err: unknown) => {
            opts.log.error({ err }, "unhandled gateway error");
            write(res, { status: 500, body: { error: { code: "internal", message: "internal error" } } }, () => aborted, head);
          },
        )
        .finally(settle);
    };

    if (tooLarge) {
      // Answer without keeping a body we will refuse anyway. uWS still frames it by its Content-Length, reading the
      // rest and dropping it, so the connection stays usable; it is not closed at once, which could reset it before
      // a client still sending had read the 413.
      finish();
      return;
    }
    if (declared === 0 && headers["transfer-encoding"] === undefined) {
      // No body to read (a GET, a DELETE): no chunk to wait for and copy.
      finish();
      return;
    }
    res.onData((chunk, isLast) => {
      if (!tooLarge) {
        size += chunk.byteLength;
        if (size > limit) {
          tooLarge = true;
          chunks.length = 0;
        } else {
          chunks.push(Buffer.from(chunk.slice(0)));
        }
      }
      if (isLast) finish();
    });
  });

  return new Promise((resolve, reject) => {
    // Exclusive: uWS listens with SO_REUSEPORT by default, so a second gateway on a port in use would start
    // "successfully" and take half the connections. The types lack this overload (ListenOptions is no runtime value).
    const listenExclusive = app.listen as unknown as (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => void;
    listenExclusive.call(app, opts.host, opts.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${opts.host}:${opts.port} (in use?)`));
      const port = uWS.us_socket_local_port(socket);
      resolve({
        port,
        async close(graceMs = CLOSE_GRACE_MS) {
          closing = true;
          uWS.us_listen_socket_close(socket);
          if (inHand > 0) {
            await new Promise<void>((done) => {
              const timer = setTimeout(done, graceMs);
              idle = () => {
                clearTimeout(timer);
                done();
              };
            });
          }
          (app as unknown as { close(): void }).close();
        },
      });
    });
  });
}

/**
 * A Content-Length uWS frames by differently than it says (an empty one, taken for none; repeated values, of which
 * uWS takes the first) left the bytes the client (or a proxy framing by another value) sent as the body to be read
 * as the next request on the connection: request smuggling. So did a Transfer-Encoding whose last coding is not
 * chunked (uWS reads the body as chunked, a proxy may not). RFC 9112 6.3 makes it an unrecoverable framing error:
 * 400, then the connection closed. The answer waits one turn of the event loop: once a response has ended, uWS
 * goes on to parse the rest of the packet as the next request even when told to close, but it closes a connection
 * whose next request arrives while one is unanswered (the 400 is then not sent; no request after it is handled).
 * A Content-Length that is not digits, or both headers, uWS refuses itself, closing the connection before any
 * handler runs.
 */
function refuseUnframable(res: uWS.HttpResponse): void {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  setImmediate(() => {
    if (aborted) return;
    endAndClose(res, "400 Bad Request", UNFRAMABLE);
  });
}

/** One of the server's own JSON answers (no route's), with the headers every answer carries; then the connection closes. */
function endAndClose(res: uWS.HttpResponse, status: string, body: string, headers: Record<string, string> = {}): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader("content-type", "application/json").writeHeader("x-content-type-options", "nosniff");
    for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
    res.end(body, true);
  });
}

function write(res: uWS.HttpResponse, reply: Reply, isAborted: () => boolean, head = false): void {
  if (isAborted()) return;
  const body = reply.raw ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
  res.cork(() => {
    res.writeStatus(`${reply.status} ${STATUS_TEXT[reply.status] ?? ""}`.trim());
    const empty = reply.status === 204 || reply.status === 304;
    const names = reply.headers ? Object.keys(reply.headers).map((k) => k.toLowerCase()) : [];
    if (!empty && !names.includes("content-type")) res.writeHeader("content-type", "application/json");
    // Bodies carry text agents and webhook senders wrote: no browser may read them as anything but their type.
    if (!names.includes("x-content-type-options")) res.writeHeader("x-content-type-options", "nosniff");
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    if (empty) res.endWithoutBody();
    // endWithoutBody(length) closes the connection after a HEAD (uWS 20: the length it was told is never written);
    // the header written by hand keeps it open for the next request.
    else if (head) res.writeHeader("content-length", String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength)).endWithoutBody();
    else res.end(body);
  });
}
