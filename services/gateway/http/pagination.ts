// Cursor pagination (docs/api.md#http): limit 1..200 default 50; an opaque cursor that encodes the last index key.
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

export function encodeCursor(key: IndexKey | null): string | null {
  return key === null ? null : Buffer.from(JSON.stringify(key)).toString("base64url");
}

function decodeCursor(cursor: string, prefix: IndexKey): IndexKey | null {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
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
