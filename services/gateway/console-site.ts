// The browser console's static files (docs/console.md): read once at start from the built directory, served at
// `/` and `/console/...` with their content type, a strict Content-Security-Policy and revalidation by ETag.
// Only files present at start can be named (a map lookup, so no path ever reaches the filesystem).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fail } from "./http/reply.js";
import type { Reply } from "./http/types.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};

/** No inline script or style, nothing from elsewhere, no framing (docs/console.md#security). */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Asset {
  body: string;
  type: string;
  etag: string;
}

export interface ConsoleSite {
  /** The reply for a console path, or null when the path is not the console's (the API answers it). */
  serve(method: string, path: string, ifNoneMatch: string | undefined): Reply | null;
}

/** Loads every servable file under `dir`; a missing directory (no `make build` of the console) serves nothing. */
export function loadConsoleSite(dir: string): ConsoleSite | null {
  if (!existsSync(dir)) return null;
  const assets = new Map<string, Asset>();
  for (const file of walk(dir)) {
    const type = TYPES[extname(file)];
    if (!type) continue;
    const body = readFileSync(file, "utf8");
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    assets.set(`/console/${relative(dir, file).split(sep).join("/")}`, { body, type, etag });
  }
  const index = assets.get("/console/index.html");
  if (index) assets.set("/", index);
  return {
    serve(method, path, ifNoneMatch) {
      if (path !== "/" && !path.startsWith("/console/")) return null;
      const asset = assets.get(path);
      if (!asset) return null;
      // HEAD comes here as GET; the server sends no body (http/server.ts). A file of the console is a known path: any
      // other method is 405 with what it allows, as on the API's own paths.
      if (method !== "GET") return fail(405, "method_not_allowed", `${method} is not allowed here; use GET, HEAD`, undefined, { allow: "GET, HEAD" });
      const headers = {
        "content-type": asset.type,
        "content-security-policy": CONSOLE_CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        // Names are not content-hashed: the browser keeps a copy but asks (cheaply, by ETag) before using it.
        "cache-control": "no-cache",
        etag: asset.etag,
      };
      if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((t) => t.trim() === asset.etag)) return { status: 304, raw: "", headers };
      return { status: 200, raw: asset.body, headers };
    },
  };
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (!name.endsWith(".map")) yield path;
  }
}
