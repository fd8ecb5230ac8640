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

  /** The most specific path pattern wins (more literal segments), so `/endpoints/:id` shadows `/:provider/:key`. */
  match(method: string, path: string): Match {
    const parts = path.split("/").filter(Boolean);
    let best = -1;
    let candidates: Array<{ route: Route; params: Record<string, string> }> = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      const literal = c.segments.filter((seg) => !seg.startsWith(":")).length;
      if (literal > best) {
        best = literal;
        candidates = [];
      }
      if (literal === best) candidates.push({ route: c.route, params });
    }
    const found = candidates.find((c) => c.route.method === method);
    if (found) return { kind: "found", route: found.route, params: found.params };
    return candidates.length > 0 ? { kind: "method_not_allowed", allowed: candidates.map((c) => c.route.method) } : { kind: "not_found" };
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
