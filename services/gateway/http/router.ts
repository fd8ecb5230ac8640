// Path matching with `:param` segments; a known path with another method is a 405.
import type { Route } from "./types.js";

interface Compiled {
  route: Route;
  /** The literal segments and where they stand: the more, the more specific the pattern. */
  literals: Array<[at: number, segment: string]>;
  /** The `:param` segments: where they stand and their names. */
  params: Array<[at: number, name: string]>;
}

export type Match = { kind: "found"; route: Route; params: Record<string, string> } | { kind: "method_not_allowed"; allowed: string[] } | { kind: "not_found" };

export class Router {
  /** Patterns by their number of segments (a path is only ever compared with patterns of its own length). */
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(readonly routes: Route[]) {
    for (const route of routes) {
      const segments = route.path.split("/").filter(Boolean);
      const compiled: Compiled = { route, literals: [], params: [] };
      segments.forEach((seg, at) => {
        if (seg.startsWith(":")) compiled.params.push([at, seg.slice(1)]);
        else compiled.literals.push([at, seg]);
      });
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
      if (c.literals.length < best) continue;
      const params = matchSegments(c, parts);
      if (!params) continue;
      if (c.literals.length > best) {
        best = c.literals.length;
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
function matchSegments(pattern: Compiled, parts: string[]): Record<string, string> | null {
  // Literals first: most patterns are told apart by them, before any param is decoded.
  for (const [at, segment] of pattern.literals) if (parts[at] !== segment) return null;
  const params: Record<string, string> = {};
  for (const [at, name] of pattern.params) {
    const v = parts[at] as string;
    try {
      params[name] = v.includes("%") ? decodeURIComponent(v) : v;
    } catch {
      return null;
    }
  }
  return params;
}
