// The pathfinder's evidence paths drawn as one SVG graph: a node's column is its first position on any path,
// shared nodes (choke points) are drawn once, and each step of a path is an arrow. Labels are SVG text nodes.
import { h, svg } from "./dom.js";

const COL = 270;
const ROW = 64;
const NODE_W = 180;
const NODE_H = 40;
const PAD = 16;

interface Placed {
  id: string;
  col: number;
  row: number;
}

/** A path as the report gives it: node ids, and (reports since 2026-11-29) their readable labels and the relations. */
export interface GraphPath {
  nodes: string[];
  labels?: string[];
  links?: Array<{ type: string; forward: boolean }>;
}

export function pathGraph(paths: GraphPath[], chokePoints: string[] = []): SVGSVGElement | HTMLElement {
  const placed = new Map<string, Placed>();
  const rows: number[] = [];
  const edges = new Map<string, [string, string, string]>();
  const labels = new Map<string, string>();
  for (const p of paths) {
    p.nodes.forEach((id, i) => {
      const label = p.labels?.[i];
      if (label !== undefined && !labels.has(id)) labels.set(id, label);
      if (!placed.has(id)) {
        const row = rows[i] ?? 0;
        rows[i] = row + 1;
        placed.set(id, { id, col: i, row });
      }
      const prev = p.nodes[i - 1];
      const link = p.links?.[i - 1];
      // The arrow runs along the path; a relation walked backwards says so (kswapd0 connects_to the address).
      const says = link ? (link.forward ? `${link.type} →` : `← ${link.type}`) : "";
      if (prev !== undefined) edges.set(`${prev}\u0000${id}`, [prev, id, says]);
    });
  }
  if (placed.size === 0) return h("p", { class: "muted" }, "No paths.");
  const cols = Math.max(...[...placed.values()].map((n) => n.col)) + 1;
  // A node met at another position on an earlier path leaves holes in `rows` (Math.max of a hole is NaN).
  const maxRows = Math.max(1, ...Array.from(rows, (r) => r ?? 0));
  const width = PAD * 2 + (cols - 1) * COL + NODE_W;
  const height = PAD * 2 + (maxRows - 1) * ROW + NODE_H;
  const xy = (n: Placed): [number, number] => [PAD + n.col * COL, PAD + n.row * ROW];
  const chokes = new Set(chokePoints);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "graph", role: "img", "aria-label": `Evidence paths: ${placed.size} entities, ${edges.size} links` });
  root.append(
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))),
  );
  for (const [from, to, says] of edges.values()) {
    const a = placed.get(from) as Placed;
    const b = placed.get(to) as Placed;
    const [ax, ay] = xy(a);
    const [bx, by] = xy(b);
    const x1 = ax + NODE_W;
    const y1 = ay + NODE_H / 2;
    const x2 = b.col > a.col ? bx : bx + NODE_W / 2;
    const y2 = b.col > a.col ? by + NODE_H / 2 : by + (by > ay ? 0 : NODE_H);
    const mid = (x1 + x2) / 2;
    root.append(svg("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, class: "edge", "marker-end": "url(#arrow)" }));
    if (says) root.append(svg("text", { x: mid, y: (y1 + y2) / 2 - 5, class: "edge-label", "text-anchor": "middle" }, says.length > 16 ? `${says.slice(0, 15)}…` : says));
  }
  for (const n of placed.values()) {
    const [x, y] = xy(n);
    const kind = n.id.includes(":") ? n.id.slice(0, n.id.indexOf(":")) : "node";
    const label = labels.get(n.id) ?? (n.id.includes(":") ? n.id.slice(n.id.indexOf(":") + 1) : n.id);
    const short = label.length > 26 ? `${label.slice(0, 25)}…` : label;
    root.append(
      svg(
        "g",
        { class: `node node-${kind.replace(/[^a-z]/g, "")}${chokes.has(n.id) ? " choke" : ""}` },
        svg("title", {}, labels.has(n.id) ? `${labels.get(n.id) ?? ""}\n${n.id}` : n.id),
        svg("rect", { x, y, width: NODE_W, height: NODE_H, rx: 6 }),
        svg("text", { x: x + 8, y: y + 15, class: "kind" }, kind),
        svg("text", { x: x + 8, y: y + 31 }, short),
      ),
    );
  }
  return root;
}
