// One outbound POST over node:http(s) with keep-alive, a whole-request deadline, and the private-target guard
// applied to the address actually connected to (the DNS answer is checked inside the socket's lookup, so a
// name that changes to a private address between checks is still refused). Network failures become values.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { AttemptResult, SendError } from "../../shared/webhooks/delivery-state.js";
import { parseRetryAfter } from "../../shared/retry-after.js";
import { keptHeaders, RESPONSE_BODY_LIMIT, truncateBody } from "../../shared/webhooks/delivery-state.js";
import { bareHost, isBlockedName, isPrivateAddress, parseTargetUrl } from "../../shared/webhooks/targets.js";

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

export type Send = (req: OutboundRequest) => Promise<AttemptResult>;

/** Read at most this much of a response to keep the connection reusable; a longer body closes it. */
const DRAIN_LIMIT = 256 * 1024;

class PrivateTargetError extends Error {
  readonly code = "EPRIVATETARGET";
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, "", 0);
      if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) return callback(new PrivateTargetError(hostname), "", 0);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; errors?: unknown[] };
  if (typeof e?.code === "string") return e.code;
  const inner = Array.isArray(e?.errors) ? (e.errors[0] as { code?: unknown } | undefined) : undefined;
  return typeof inner?.code === "string" ? inner.code : "";
}

export function sendErrorOf(err: unknown): SendError {
  const code = errorCode(err);
  if (code === "ETIMEDOUT_DELIVERY") return "timeout";
  if (code === "EPRIVATETARGET") return "private_target";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return "connection_reset";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_FAIL") return "dns_failure";
  if (code === "ETIMEDOUT") return "timeout";
  if (code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL") || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return "tls_error";
  return "network_error";
}

/**
 * Where the request goes, as node:http's own options rather than a URL it would convert on every request
 * (`urlToHttpOptions`). An IPv6 literal is connected to without its brackets.
 */
function targetOf(url: URL, https: boolean): { protocol: string; hostname: string; port: number; path: string } {
  return { protocol: url.protocol, hostname: bareHost(url), port: url.port ? Number(url.port) : https ? 443 : 80, path: `${url.pathname}${url.search}` };
}

/**
 * The request's headers as node:http's flat [name, value, ...] list: written as given (each still validated),
 * without a `setHeader` call per header, which costs the dispatcher about a tenth of its CPU in a burst (bench/README.md).
 * Host and Content-Length are ours to set in this form; custom headers can name neither (custom-headers.ts).
 */
function headerList(url: URL, req: OutboundRequest): string[] {
  const list = ["Host", url.host];
  for (const [name, value] of Object.entries(req.headers)) list.push(name, value);
  list.push("Content-Length", String(req.body.length));
  return list;
}

export interface Sender {
  send: Send;
  close(): void;
}

export function createSender(opts: { allowPrivate: boolean }): Sender {
  const lookup = guardedLookup(opts.allowPrivate);
  // Idle connections are dropped after 4 s, before a typical server's keep-alive timeout (Node's is 5 s), so a
  // request rarely lands on a socket the subscriber is closing (that would cost an attempt).
  const agentOptions = { keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256, timeout: 4_000 };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);

  const send: Send = (req) => {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const parsed = parseTargetUrl(req.url);
    if (!parsed.ok) return Promise.resolve({ kind: "error", error: "invalid_url", durationMs: 0 });
    const url = parsed.url;
    if (!opts.allowPrivate && isBlockedName(bareHost(url))) return Promise.resolve({ kind: "error", error: "private_target", durationMs: 0 });
    const https = url.protocol === "https:";
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (r: AttemptResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const fail = (err: unknown): void => finish({ kind: "error", error: sendErrorOf(err), durationMs: elapsed() });
      // Once the status line is in, the answer counts even if its body is cut short (only the code is inspected).
      let answered: (() => void) | null = null;
      const request = (https ? httpsRequest : httpRequest)(
        {
          ...targetOf(url, https),
          method: "POST",
          agent: https ? httpsAgent : httpAgent,
          lookup,
          headers: headerList(url, req),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          let read = 0;
          res.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (kept < RESPONSE_BODY_LIMIT) {
              chunks.push(chunk);
              kept += chunk.length;
            }
            if (read > DRAIN_LIMIT) {
              res.destroy();
              done();
            }
          });
          const retryAfter = parseRetryAfter(res.headers["retry-after"], Date.now());
          const done = (): void =>
            finish({
              kind: "response",
              status: res.statusCode ?? 0,
              body: truncateBody(Buffer.concat(chunks)),
              durationMs: elapsed(),
              ...(retryAfter === null ? {} : { retryAfterMs: retryAfter }),
              headers: keptHeaders(res.headers),
            });
          answered = done;
          res.on("end", done);
          res.on("error", () => done());
          res.on("aborted", () => done());
        },
      );
      const timer = setTimeout(() => {
        if (answered) {
          answered();
          request.destroy();
          return;
        }
        const err = Object.assign(new Error(`no answer within ${req.timeoutMs} ms`), { code: "ETIMEDOUT_DELIVERY" });
        fail(err);
        request.destroy(err);
      }, req.timeoutMs);
      request.on("error", fail);
      request.end(req.body);
    });
  };

  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
