// The gateway's HTTP model, independent of the socket layer: a request in, a reply out.
import type { Static, TObject, TSchema } from "typebox";
import type { ApiKeyRecord } from "../../../shared/auth/keys.js";
import type { ApiScope } from "../../../shared/auth/scopes.js";
import type { IdPrefix } from "../../../shared/ids.js";
import { checker, type Checker } from "../../../shared/validate.js";

/** What a route asks of the caller: a scope, any valid API key (`GET /v1/auth/whoami`), or nothing. */
export type Access = ApiScope | "any_key" | "public";

export type Method = "GET" | "POST" | "PATCH" | "DELETE" | "PUT" | "HEAD" | "OPTIONS";

export interface RawRequest {
  method: string;
  path: string;
  query: string;
  /** Lower-cased header names; a repeated header's values joined by ", " (as HTTP allows for list headers). */
  headers: Record<string, string>;
  /** The names of headers sent more than once (undefined when none): a header that must be single tells its values joined. */
  repeatedHeaders?: string[] | undefined;
  body: Buffer;
  /** The body was longer than the route's limit and was not read in full. */
  bodyTooLarge: boolean;
}

export interface Reply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent as it is (e.g. an idempotent replay, Prometheus text); bytes skip the UTF-8 encoding of a string. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** The query string, readable by the names the route's query schema declares. */
export interface Query<Name extends string = string> {
  get(name: Name): string | null;
}

export interface Ctx<B = unknown, P = Record<string, string>, Q extends string = string> {
  params: P;
  query: Query<Q> & (string extends Q ? URLSearchParams : unknown);
  headers: Record<string, string>;
  repeatedHeaders?: string[] | undefined;
  body: B;
  rawBody: Buffer;
  /** `rawBody` routes only: the body was over the route's limit and was not read (the route answers 413). */
  bodyTooLarge?: boolean;
  auth: ApiKeyRecord | null;
}

export interface RouteDoc {
  summary: string;
  tags: string[];
  responses: Record<number, { description: string; schema?: TSchema }>;
  /** Documents the query when the route declares no `query` schema of its own (prefer `query` on the route). */
  query?: TSchema;
}

/** A route as the router, pipeline and OpenAPI document see it: its types erased (see `route`). */
export interface Route {
  method: Method;
  /** Path with `:param` segments, e.g. /v1/investigations/:id */
  path: string;
  /** Path parameters that are ids of a kind: a malformed one is a 404 before the handler runs. */
  ids?: Record<string, IdPrefix>;
  /** Required scope; `public` routes take no API key (health, inbound receiver); `any_key` takes any valid key. */
  access: Access;
  /** Validates the JSON body; routes without it take no body. */
  body?: Checker<TSchema>;
  /** The query parameters (documented in OpenAPI; the handler reads them by these names). */
  query?: TObject;
  /** Bytes; default 256 KiB. */
  bodyLimit?: number;
  /** Routes that parse their own body and answer 413 themselves (the inbound receiver hands raw bytes on). */
  rawBody?: boolean;
  /** The body may be left out (no bytes, any Content-Type): it is then validated as `{}`. */
  bodyOptional?: boolean;
  doc: RouteDoc;
  handle(ctx: Ctx): Promise<Reply>;
}

/** The parameters of a path pattern: "/v1/things/:id/parts/:part" -> { id: string; part: string }. */
export type PathParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

type BodyOf<B extends TSchema | undefined> = B extends TSchema ? Static<B> : undefined;
type QueryNames<Q extends TObject | undefined> = Q extends TObject ? keyof Static<Q> & string : never;

/** A route as written: the handler's params, query names and body are inferred from its path and schemas. */
export interface RouteDef<Path extends string, B extends TSchema | undefined, Q extends TObject | undefined> {
  method: Method;
  path: Path;
  ids?: { [K in keyof PathParams<Path>]?: IdPrefix };
  access: Access;
  /** The JSON body's schema: validated before the handler runs (400), which receives the typed value. */
  body?: B;
  query?: Q;
  bodyLimit?: number;
  /** The handler reads ctx.rawBody and answers 413 itself (the inbound receiver). */
  rawBody?: boolean;
  /** The body may be left out: it is then validated as `{}` (every field of the schema optional). */
  bodyOptional?: boolean;
  doc: Omit<RouteDoc, "query">;
  handle(ctx: Ctx<BodyOf<B>, PathParams<Path>, QueryNames<Q>>): Promise<Reply>;
}

/**
 * Declares a typed route (as hono's validator and fastify's type providers do): the handler sees
 * `ctx.params.id: string` for a path with `:id`, `ctx.body` as the body schema's static type, and query names
 * checked against the query schema (their values stay strings the handler checks, so each list keeps its own
 * 400 messages). The pipeline validates the body and the id parameters before calling it, which is what makes
 * the handler's types true; the returned Route has them erased so routes of all shapes share one table.
 */
export function route<Path extends string, B extends TSchema | undefined = undefined, Q extends TObject | undefined = undefined>(def: RouteDef<Path, B, Q>): Route {
  const { body, handle, ...rest } = def;
  const erased: Route = { ...rest, ids: def.ids as Record<string, IdPrefix> | undefined, handle: handle as unknown as (ctx: Ctx) => Promise<Reply> };
  if (body !== undefined) erased.body = checker(body);
  return erased;
}
