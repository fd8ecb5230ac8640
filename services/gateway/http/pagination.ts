// Cursor pagination (docs/api.md#http): limit 1..200 default 50; an opaque cursor that encodes the last index key.
//
// A cursor is signed (an HMAC of its key with a key derived from the master key, so every gateway of a deployment
// accepts the others'): a list answers 400 invalid_cursor to one it did not issue. Unsigned, a cursor was base64
// JSON that anyone could write, and one whose key held values of the wrong kind was read as the first page.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IndexKey } from "../../../shared/readmodel.js";
import { fail } from "./reply.js";
import type { Query, Reply } from "./types.js";

export interface PageRequest {
  limit: number;
  after: IndexKey | null;
}

export function parsePage(query: Query<"cursor" | "limit">, prefix: IndexKey): PageRequest | Reply {
  const rawLimit = query.get("limit");
  let limit = 50;
  if (rawLimit !== null) {
    if (!/^[0-9]+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 200) {
      return fail(400, "validation_failed", "limit must be an integer from 1 to 200", [{ path: "/limit", message: "must be an integer from 1 to 200" }]);
    }
    limit = Number(rawLimit);
  }
  const cursor = query.get("cursor");
  if (cursor === null || cursor === "") return { limit, after: null };
  const after = decodeCursor(cursor, prefix);
  if (!after) return fail(400, "invalid_cursor", "the cursor is not one this list issued (filters must stay the same while paging)");
  return { limit, after };
}

/** Until the gateway sets it from the master key (useCursorKey): a key of this process alone. */
let cursorKey: Buffer = randomBytes(32);

/** Cursors signed with a key derived from the deployment's master key, so any gateway replica reads another's. */
export function useCursorKey(masterKey: Buffer): void {
  cursorKey = createHmac("sha256", masterKey).update("inquest list cursor v1").digest();
}

const mac = (body: string): Buffer => createHmac("sha256", cursorKey).update(body).digest().subarray(0, 16);

export function encodeCursor(key: IndexKey | null): string | null {
  if (key === null) return null;
  const body = Buffer.from(JSON.stringify(key)).toString("base64url");
  return `${body}.${mac(body).toString("base64url")}`;
}

function decodeCursor(cursor: string, prefix: IndexKey): IndexKey | null {
  const dot = cursor.lastIndexOf(".");
  if (dot <= 0) return null;
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), "base64url");
  const expected = mac(body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const key = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(key) || key.length <= prefix.length) return null;
    if (!key.every((k) => typeof k === "string" || typeof k === "number")) return null;
    if (prefix.some((p, i) => key[i] !== p)) return null;
    return key as IndexKey;
  } catch {
    return null;
  }
}

export function isReply(x: PageRequest | Reply): x is Reply {
  return "status" in x;
}
