// The error body of docs/api.md#http, in one place.
import type { ValidationDetail } from "../../../shared/validate.js";
import type { Reply } from "./types.js";

export type ErrorCode =
  | "invalid_json"
  | "validation_failed"
  | "invalid_cursor"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "not_replayable"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "unavailable"
  | "internal";

export function fail(status: number, code: ErrorCode, message: string, details?: ValidationDetail[], headers?: Record<string, string>): Reply {
  const error: Record<string, unknown> = { code, message };
  if (details && details.length > 0) error.details = details;
  return headers ? { status, body: { error }, headers } : { status, body: { error } };
}

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): Reply => (headers ? { status, body, headers } : { status, body });

export const noContent = (): Reply => ({ status: 204 });

export const notFound = (what: string): Reply => fail(404, "not_found", `${what} not found`);

export function invalid(details: ValidationDetail[], message = "the request is not valid"): Reply {
  return fail(400, "validation_failed", message, details);
}
