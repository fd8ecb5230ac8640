// Cursor pagination (docs/api.md#http): limit 1..200 default 50; an opaque cursor that encodes the last index key.
//
// A cursor is signed (an HMAC of its key with a key derived from the master key, so every gateway of a deployment
// accepts the others'): a list answers 400 invalid_cursor to one it did not issue. Unsigned, a cursor was base64
// JSON that anyone could write, and one whose key held values of the wrong kind was read as the first page.
// The signature also covers the list and its filters (`ListId`), which the cursor does not carry: index prefixes
// overlap (the unfiltered investigations and deliveries lists both walk ["all"]; every delivery list filtered by an
// event walks that event's entries, whatever its status and subscription filters), so a cursor checked by its
// prefix alone was taken by another list, or by the same list with other filters, as a position in it: the page
// started part-way, items skipped, no error.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IndexKey } from "../../../shared/readmodel.js";
import { fail } from "./reply.js";
import type { Query, Reply } from "./types.js";

export interface PageRequest {
  limit: number;
  after: IndexKey | null;
}

/** Which list, with which filters, a cursor belongs to: `listId("deliveries", {status, ...})`. */
export type ListId = string & { readonly __list: unique symbol };

export function listId(name: string, filters: Record<string, string | null> = {}): ListId {
  const used = Object.keys(filters)
    .sort()
    .map((k) => [k, filters[k] ?? null]);
  return `${name}?${JSON.stringify(used)}` as ListId;
}

export function parsePage(query: Query<"cursor" | "limit">, prefix: IndexKey, list: ListId): PageRequest | Reply {
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
  const after = decodeCursor(cursor, prefix, list);
  if (!after) return fail(400, "invalid_cursor", "the cursor is not one this list issued (filters must stay the same while paging)");
  return { limit, after };
}

/** Until the gateway sets it from the master key (useCursorKey): a key of this process alone. */
let cursorKey: Buffer = randomBytes(32);

/** Cursors signed with a key derived from the deployment's master key, so any gateway replica reads another's. */
export function useCursorKey(masterKey: Buffer): void {
  cursorKey = createHmac("sha256", masterKey).update("inquest list cursor v1").digest();
}

const mac = (list: ListId, body: string): Buffer => createHmac("sha256", cursorKey).update(list).update("\n").update(body).digest().subarray(0, 16);

export function encodeCursor(key: IndexKey | null, list: ListId): string | null {
  if (key === null) return null;
  const body = Buffer.from(JSON.stringify(key)).toString("base64url");
  return `${body}.${mac(list, body).toString("base64url")}`;
}

function decodeCursor(cursor: string, prefix: IndexKey, list: ListId): IndexKey | null {
  const dot = cursor.lastIndexOf(".");
  if (dot <= 0) return null;
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), "base64url");
  const expected = mac(list, body);
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
