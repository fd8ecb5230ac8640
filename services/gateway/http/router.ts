// Path matching with `:param` segments; a known path with another method is a 405.
import type { Route } from "./types.js";

interface Compiled {
  route: Route;
  segments: string[];
}

export type Match = { kind: "found"; route: Route; params: Record<string, string> } | { kind: "method_not_allowed"; allowed: string[] } | { kind: "not_found" };

export class Router {
  private compiled: Compiled[];

  constructor(readonly routes: Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split("/").filter(Boolean) }));
  }

  match(method: string, path: string): Match {
    const parts = path.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.route.method === method) return { kind: "found", route: c.route, params };
      allowed.push(c.route.method);
    }
    return allowed.length > 0 ? { kind: "method_not_allowed", allowed } : { kind: "not_found" };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const v = parts[i] as string;
    if (p.startsWith(":")) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(v);
      } catch {
        return null;
      }
      params[p.slice(1)] = decoded;
    } else if (p !== v) {
      return null;
    }
  }
  return params;
}
