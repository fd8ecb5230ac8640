// GET /v1/auth/whoami (docs/api.md#whoami): the calling key's id, name and scopes, so a client (the console)
// can offer only what the key may do. Any valid key may ask; nothing secret is shown.
import { Type } from "typebox";
import { SCOPES } from "../../../shared/auth/scopes.js";
import { ok } from "../http/reply.js";
import { route, type Route } from "../http/types.js";

const Whoami = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  display_prefix: Type.String(),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s)))),
});

export function whoamiRoutes(): Route[] {
  return [
    route({
      method: "GET",
      path: "/v1/auth/whoami",
      access: "any_key",
      doc: { summary: "The calling API key: its id, name, prefix and scopes (any valid key)", tags: ["auth"], responses: { 200: { description: "The key", schema: Whoami } } },
      async handle(ctx) {
        const key = ctx.auth;
        if (key === null) throw new Error("whoami without a key"); // the pipeline authenticates any_key routes
        return ok({ key_id: key.id, name: key.name, display_prefix: key.display_prefix, scopes: [...key.scopes].sort() });
      },
    }),
  ];
}
