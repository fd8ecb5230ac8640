// The gateway's HTTP model, independent of the socket layer: a request in, a reply out.
import type { TSchema } from "typebox";
import type { ApiKeyRecord } from "../../../shared/auth/keys.js";
import type { ApiScope } from "../../../shared/auth/scopes.js";
import type { IdPrefix } from "../../../shared/ids.js";
import type { Checker } from "../../../shared/validate.js";

export type Method = "GET" | "POST" | "PATCH" | "DELETE" | "PUT" | "HEAD" | "OPTIONS";

export interface RawRequest {
  method: string;
  path: string;
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than the route's limit and was not read in full. */
  bodyTooLarge: boolean;
}

export interface Reply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  /** Bytes to send as they are (e.g. an idempotent replay, Prometheus text). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Ctx<B = unknown> {
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string>;
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
  query?: TSchema;
}

export interface Route {
  method: Method;
  /** Path with `:param` segments, e.g. /v1/investigations/:id */
  path: string;
  /** Path parameters that are ids of a kind: a malformed one is a 404 before the handler runs. */
  ids?: Record<string, IdPrefix>;
  /** Required scope; `public` routes take no API key (health, inbound receiver). */
  access: ApiScope | "public";
  /** Validates the JSON body; routes without it take no body. */
  body?: Checker<TSchema>;
  /** Bytes; default 256 KiB. */
  bodyLimit?: number;
  /** Routes that parse their own body and answer 413 themselves (the inbound receiver hands raw bytes on). */
  rawBody?: boolean;
  doc: RouteDoc;
  handle(ctx: Ctx): Promise<Reply>;
}
