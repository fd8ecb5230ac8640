// The request pipeline, in the contract's order: route (404/405), API key (401), scope (403), id shape (404),
// repeated query parameter (400), media type (415), size (413), JSON (400), schema (400), handler. Unexpected errors
// become 503 when NATS is unreachable (saying "nothing was changed" only when the operation decided so, see
// BusUnavailableError) and 500 otherwise, never a stack trace.
import { Type } from "typebox";
import type { ApiKeyRecord } from "../../../shared/auth/keys.js";
import { BusUnavailableError, LocalStoreUnavailableError } from "../../../shared/errors.js";
import { isId } from "../../../shared/ids.js";
import type { Logger } from "../../../shared/log.js";
import { mediaTypeOf } from "../../../shared/media-type.js";
import { isUnavailable } from "../../../shared/nats/errors.js";
import { checker } from "../../../shared/validate.js";
import { readQuery } from "./query.js";
import { fail } from "./reply.js";
import type { Match, Router } from "./router.js";
import type { RawRequest, Reply, Route } from "./types.js";

export const DEFAULT_BODY_LIMIT = 256 * 1024;
/** Where inbound providers POST (`/v1/webhooks/incoming/<provider>/<url key>`), without an API key. */
const INBOUND_RECEIVERS = "/v1/webhooks/incoming/";

/** Strict UTF-8: a body with invalid bytes is not JSON (a lenient decode would turn them into U+FFFD). */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** What a route without a body schema accepts when a body is sent anyway: {}. */
const NO_FIELDS = checker(Type.Object({}, { additionalProperties: false }));

export interface Authenticator {
  /** The key record for a presented bearer token, or null when missing/unknown/revoked. */
  authenticate(token: string): Promise<ApiKeyRecord | null>;
}

export interface PipelineDeps {
  router: Router;
  auth: Authenticator;
  log: Logger;
  observe?(route: string, status: number, seconds: number): void;
}

/** A request whose route is resolved once: the socket layer needs its body limit before the body arrives. */
export interface PreparedRequest {
  bodyLimit: number;
  handle(req: RawRequest): Promise<Reply>;
}

export function prepareRequest(deps: PipelineDeps, method: string, path: string): PreparedRequest {
  const m = deps.router.match(method, path);
  return {
    bodyLimit: m.kind === "found" ? (m.route.bodyLimit ?? DEFAULT_BODY_LIMIT) : DEFAULT_BODY_LIMIT,
    handle: (req) => dispatch(deps, m, req),
  };
}

export function handleRequest(deps: PipelineDeps, req: RawRequest): Promise<Reply> {
  return prepareRequest(deps, req.method, req.path).handle(req);
}

async function dispatch(deps: PipelineDeps, m: Match, req: RawRequest): Promise<Reply> {
  const started = process.hrtime.bigint();
  let label = "unmatched";
  let reply: Reply;
  try {
    if (m.kind === "found") {
      label = `${m.route.method} ${m.route.path}`;
      reply = await run(deps, m.route, m.params, req);
    } else {
      // The API's shape is not shown to callers without a key: 401 comes before 404/405 under /v1. Except a path in
      // the inbound receivers' namespace that is no receiver URL (`.../generic/%FF`): providers have no API key, so
      // "a valid API key is required" would be wrong advice; the receivers' own answer to a bad URL is a 404.
      const receiverPath = m.kind === "not_found" && req.path.startsWith(INBOUND_RECEIVERS);
      const denied = req.path.startsWith("/v1/") && !receiverPath ? await authenticate(deps, req) : null;
      if (denied && "status" in denied) reply = denied;
      else if (m.kind === "not_found") reply = fail(404, "not_found", `no route for ${req.method} ${req.path}`);
      else {
        // A path that answers GET answers HEAD too (server.ts).
        const allowed = m.allowed.includes("GET") ? [...m.allowed, "HEAD"] : m.allowed;
        reply = fail(405, "method_not_allowed", `${req.method} is not allowed here; use ${allowed.join(", ")}`, undefined, { allow: allowed.join(", ") });
      }
    }
  } catch (err) {
    reply = unexpected(deps.log, err, label, req.method);
  }
  deps.observe?.(label, reply.status, Number(process.hrtime.bigint() - started) / 1e9);
  return reply;
}

/** The caller's key, or the 401 reply. */
async function authenticate(deps: PipelineDeps, req: RawRequest): Promise<ApiKeyRecord | Reply> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  const auth = match ? await deps.auth.authenticate(match[1] as string) : null;
  return auth ?? fail(401, "unauthorized", "a valid API key is required: Authorization: Bearer <API_KEY>", undefined, { "www-authenticate": "Bearer" });
}

/** A value the client sent, quoted in an error message: at most 64 characters of it, so the answer stays small. */
function shown(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

async function run(deps: PipelineDeps, route: Route, params: Record<string, string>, req: RawRequest): Promise<Reply> {
  let auth: ApiKeyRecord | null = null;
  if (route.access !== "public") {
    const found = await authenticate(deps, req);
    if ("status" in found) return found;
    auth = found;
    if (route.access !== "any_key" && !auth.scopes.includes(route.access)) return fail(403, "forbidden", `this API key lacks the ${route.access} scope`);
  }
  for (const [name, prefix] of Object.entries(route.ids ?? {})) {
    if (!isId(params[name] ?? "", prefix)) return fail(404, "not_found", `no ${name} ${shown(params[name] ?? "")}: ids look like ${prefix}_ and 26 characters of Crockford base32 (digits and capital letters except I, L, O, U)`);
  }
  const query = readQuery(req.query, route.query);
  if (!(query instanceof URLSearchParams)) return query;
  if (route.rawBody) {
    // The route answers 413 itself: the inbound receiver checks its provider (404) and URL key (401) first (docs/api.md#inbound).
    return route.handle({ params, query, headers: req.headers, repeatedHeaders: req.repeatedHeaders, body: undefined, rawBody: req.body, bodyTooLarge: req.bodyTooLarge, auth });
  }
  // Any body sent to a management route is JSON within the limit, even where the route ignores it.
  const type = mediaTypeOf(req.headers);
  const sent = req.body.length > 0 || req.bodyTooLarge;
  const required = route.body !== undefined && !(route.bodyOptional === true && !sent);
  if ((required || sent) && type !== "application/json") return fail(415, "unsupported_media_type", "send the body as Content-Type: application/json");
  // A compressed body is not read as JSON by accident (or decompressed: a small gzip can be a very large body).
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (sent && encoding !== "identity") return fail(415, "unsupported_media_type", `Content-Encoding ${shown(encoding)} is not supported: send the body unencoded`);
  if (req.bodyTooLarge) return fail(413, "payload_too_large", `the body is larger than ${route.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes`);
  let body: unknown = undefined;
  // A route that takes no body takes an empty object at most: a body with fields (a typo, a misdirected request)
  // is refused before anything is done, like an unknown field anywhere else (CONTRACT: 400 on unknown fields).
  const schema = route.body ?? (sent ? NO_FIELDS : undefined);
  if (schema) {
    try {
      body = route.bodyOptional === true && !sent ? {} : JSON.parse(utf8.decode(req.body));
    } catch {
      return fail(400, "invalid_json", "the body is not valid JSON");
    }
    const checked = schema.check(body);
    if (!checked.ok) return fail(400, "validation_failed", route.body ? "the request body is not valid" : "this request takes no body fields", checked.details);
    body = route.body ? checked.value : undefined;
  }
  return route.handle({ params, query, headers: req.headers, repeatedHeaders: req.repeatedHeaders, body, rawBody: req.body, auth });
}

const UNAVAILABLE_MESSAGE: Record<BusUnavailableError["changed"] | "unsaid" | "unsaid_write", string> = {
  nothing: "the message bus is unavailable; nothing was changed, retry shortly",
  unknown: "the message bus did not confirm the write, so it may have been applied; a retry with the same Idempotency-Key is safe",
  unsaid: "the message bus is unavailable; retry shortly",
  // A write the bus did not answer may have been stored before the answer was lost (a frozen server, a leader
  // change): a create retried blindly would be made twice.
  unsaid_write: "the message bus did not answer, so the change may have been applied; read or list before retrying",
};

const READS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

function unexpected(log: Logger, err: unknown, route: string, method: string): Reply {
  if (err instanceof LocalStoreUnavailableError) {
    log.warn({ err, route }, "local store unavailable");
    return fail(503, "unavailable", "the gateway's local read model is reopening; retry shortly", undefined, { "retry-after": "1" });
  }
  const changed = err instanceof BusUnavailableError ? err.changed : isUnavailable(err) ? (READS.has(method) ? "unsaid" : "unsaid_write") : null;
  if (changed !== null) {
    log.warn({ err, route }, "NATS unavailable");
    return fail(503, "unavailable", UNAVAILABLE_MESSAGE[changed], undefined, { "retry-after": "1" });
  }
  log.error({ err, route }, "unexpected error");
  return fail(500, "internal", "internal error");
}
