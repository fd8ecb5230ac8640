// Path matching with `:param` segments; a known path with another method is a 405.
import type { Route } from "./types.js";

interface Compiled {
  route: Route;
  segments: string[];
  /** Segments that are not `:param`: the more, the more specific the pattern. */
  literals: number;
}

export type Match = { kind: "found"; route: Route; params: Record<string, string> } | { kind: "method_not_allowed"; allowed: string[] } | { kind: "not_found" };

export class Router {
  /** Patterns by their number of segments (a path is only ever compared with patterns of its own length). */
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(readonly routes: Route[]) {
    for (const route of routes) {
      const segments = route.path.split("/").filter(Boolean);
      const compiled = { route, segments, literals: segments.filter((seg) => !seg.startsWith(":")).length };
      const same = this.byLength.get(segments.length);
      if (same) same.push(compiled);
      else this.byLength.set(segments.length, [compiled]);
    }
  }

  /** The most specific path pattern wins (more literal segments), so `/endpoints/:id` shadows `/:provider/:key`. */
  match(method: string, path: string): Match {
    const parts = path.split("/").filter(Boolean);
    let best = -1;
    let candidates: Array<{ route: Route; params: Record<string, string> }> = [];
    for (const c of this.byLength.get(parts.length) ?? []) {
      if (c.literals < best) continue;
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.literals > best) {
        best = c.literals;
        candidates = [];
      }
      candidates.push({ route: c.route, params });
    }
    const found = candidates.find((c) => c.route.method === method);
    if (found) return { kind: "found", route: found.route, params: found.params };
    return candidates.length > 0 ? { kind: "method_not_allowed", allowed: candidates.map((c) => c.route.method) } : { kind: "not_found" };
  }
}

/** The pattern's params in `parts` (same length), or null when a literal segment differs or a param is not URI-encoded. */
function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  // Literals first: most patterns are told apart by them, before any param is decoded.
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    if (!p.startsWith(":") && p !== parts[i]) return null;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    if (!p.startsWith(":")) continue;
    const v = parts[i] as string;
    try {
      params[p.slice(1)] = v.includes("%") ? decodeURIComponent(v) : v;
    } catch {
      return null;
    }
  }
  return params;
}
