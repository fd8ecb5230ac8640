// The query string of a request (docs/api.md#query-parameters). Every parameter a route declares takes one value: a
// list filters by one status, one subscription, one page size. A repeated one (`?status=queued&status=failed`) was
// read as its first value, so a client that meant "either" silently got half of what it asked for; it is a 400
// validation_failed naming each repeated parameter. Parameters a route does not declare are ignored, as before.
import type { TObject } from "typebox";
import { fail } from "./reply.js";
import type { Reply } from "./types.js";

/** The parameters, or the 400 when one the route declares is given more than once (names compared decoded). */
export function readQuery(raw: string, declared: TObject | undefined): URLSearchParams | Reply {
  const query = new URLSearchParams(raw);
  if (declared === undefined) return query;
  const repeated = Object.keys(declared.properties).filter((name) => query.getAll(name).length > 1);
  if (repeated.length === 0) return query;
  const details = repeated.map((name) => ({ path: `/${name}`, message: `given ${query.getAll(name).length} times; give it once` }));
  const names = repeated.map((name) => `"${name}"`).join(", ");
  return fail(400, "validation_failed", `query parameter ${names} is repeated; each parameter takes one value`, details);
}
