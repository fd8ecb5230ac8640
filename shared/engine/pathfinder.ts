// Best-first expansion over the entity graph from seed nodes, within a per-depth budget.
import { compareText } from "./order.js";
import type { Adjacent, EdgeType, EntityGraph, NodeKind } from "./graph.js";
import { str } from "./rows.js";
import { sshKeyId } from "./detections/ssh-authorized-key.js";
import { normalizeIp } from "./net.js";
import type { Depth, EvidencePath, QueryEntities, Row } from "./types.js";

export const PATH_BUDGETS: Readonly<Record<Depth, { hops: number; nodes: number; paths: number }>> = {
  quick: { hops: 1, nodes: 50, paths: 5 },
  standard: { hops: 2, nodes: 200, paths: 10 },
  deep: { hops: 4, nodes: 1000, paths: 25 },
};

const EDGE_WEIGHT: Readonly<Record<EdgeType, number>> = {
  reverse_shell: 1,
  same_ssh_key: 0.95,
  same_rare_hash: 0.95,
  connects_to: 0.9,
  ip_of: 0.95,
  at: 0.95,
  logged_in_from: 0.9,
  authorizes: 0.9,
  has_hash: 0.9,
  listens_on: 0.8,
  spawned: 0.8,
  persists: 0.8,
  executes: 0.7,
  on_host: 0.6,
  runs_as: 0.5,
  installed_on: 0.4,
};
/** Node kinds worth ending a path on when nothing else follows them. */
const LEAF_KINDS: ReadonlySet<NodeKind> = new Set(["process", "user", "hash", "sshkey", "ip", "package"]);
/** Edges a (non-seed) host node is expanded along: crossing to other hosts, not into all its processes. */
const HOST_EDGES: ReadonlySet<EdgeType> = new Set(["ip_of", "same_ssh_key", "same_rare_hash"]);

export interface PathfinderResult {
  paths: EvidencePath[];
  seeds: string[];
  visited: number;
  max_hops_used: number;
  /** Agents whose host node was reached. */
  reached_agents: string[];
  choke_points: string[];
  /** True when the node budget stopped the walk. */
  truncated: boolean;
}

interface Visit {
  score: number;
  hops: number;
  prev?: { id: string; edge: Adjacent };
}

/** Common nodes (present on most hosts) are reached but not expanded. */
export function isCommon(graph: EntityGraph, id: string): boolean {
  const n = graph.nodes.get(id);
  if (!n || n.kind === "host" || graph.hostCount < 3) return false;
  return (graph.prevalence.get(n.prevalenceKey) ?? 0) * 2 > graph.hostCount;
}

/** Graph nodes named by the question's entities. */
export function seedsFromEntities(graph: EntityGraph, e: QueryEntities): string[] {
  const seeds = new Set<string>();
  const ips = new Set(e.ips.map(normalizeIp));
  for (const n of graph.nodes.values()) {
    if (n.kind === "ip" && ips.has(n.label)) seeds.add(n.id);
    if (n.kind === "hash" && e.sha256.includes(n.id.slice(5))) seeds.add(n.id);
    if (n.kind === "user" && e.users.includes(n.label.split("@")[0] ?? "")) seeds.add(n.id);
    if (n.kind === "ipport" && e.ports.some((p) => n.id.endsWith(`:${p}`))) seeds.add(n.id);
    if (n.kind === "file") {
      const path = n.prevalenceKey.slice(5);
      if (e.paths.some((p) => path === p || path.startsWith(`${p}/`))) seeds.add(n.id);
    }
  }
  return [...seeds].sort();
}

/** Graph nodes an evidence row refers to (its process, file, hash, key, account or address). */
export function nodesForEvidence(graph: EntityGraph, agent: string, table: string, row: Row): string[] {
  const out: string[] = [];
  const proc = graph.processByPid.get(`${agent}|${str(row, "pid")}`);
  if (proc !== undefined && ["processes", "listening_ports", "process_open_sockets", "process_envs"].includes(table)) out.push(proc);
  const path = str(row, "path");
  if (path !== "" && (table === "hash" || table === "suid_bin") && graph.nodes.has(`file:${agent}:${path}`)) out.push(`file:${agent}:${path}`);
  const sha = str(row, "sha256").toLowerCase();
  if (sha !== "" && graph.nodes.has(`hash:${sha}`)) out.push(`hash:${sha}`);
  if (table === "authorized_keys" && str(row, "key") !== "") out.push(`sshkey:${sshKeyId(str(row, "key"))}`);
  if (table === "users" && graph.nodes.has(`user:${agent}:${str(row, "username")}`)) out.push(`user:${agent}:${str(row, "username")}`);
  if (table === "last" || table === "logged_in_users") {
    const ip = normalizeIp(str(row, "host"));
    if (graph.nodes.has(`ip:${ip}`)) out.push(`ip:${ip}`);
  }
  return out.filter((id) => graph.nodes.has(id));
}

/** Seeds for a walk without entities: processes talking to another fleet host, and hosts sharing keys or rare hashes. */
export function lateralSeeds(graph: EntityGraph): string[] {
  const seeds = new Set<string>();
  for (const [id, list] of graph.adjacency) {
    const n = graph.nodes.get(id);
    if (!n) continue;
    if (n.kind === "host" && list.some((x) => x.type === "same_ssh_key" || x.type === "same_rare_hash")) seeds.add(id);
    if (n.kind !== "process") continue;
    for (const x of list) {
      if (x.type !== "connects_to" || !x.forward) continue;
      const ip = x.to.replace(/^ipport:/, "").replace(/:\d+$/, "");
      const owner = graph.ipToAgent.get(ip);
      if (owner !== undefined && owner !== n.agent) seeds.add(id);
    }
  }
  return [...seeds].sort();
}

function better(a: { id: string; score: number }, b: { id: string; score: number }): boolean {
  return a.score > b.score || (a.score === b.score && a.id < b.id);
}

/** A small binary heap ordered by score desc, then id asc. */
class Frontier {
  private items: Array<{ id: string; score: number }> = [];
  get size(): number {
    return this.items.length;
  }
  push(item: { id: string; score: number }): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p];
      const cur = a[i];
      if (!parent || !cur || !better(cur, parent)) break;
      a[p] = cur;
      a[i] = parent;
      i = p;
    }
  }
  pop(): { id: string; score: number } | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        const lm = a[l];
        const rm = a[r];
        if (lm && better(lm, a[m] ?? lm)) m = l;
        if (rm && better(rm, a[m] ?? rm)) m = r;
        if (m === i) break;
        const tmp = a[i];
        const sw = a[m];
        if (!tmp || !sw) break;
        a[i] = sw;
        a[m] = tmp;
        i = m;
      }
    }
    return top;
  }
}

/** A kept path as people read it: each node's label, each step's relation, and the two told as one sentence. */
function told(graph: EntityGraph, nodes: string[], visits: Map<string, Visit>): Pick<EvidencePath, "explanation"> & Required<Pick<EvidencePath, "labels" | "links">> {
  const labels = nodes.map((id) => graph.nodes.get(id)?.label ?? id);
  const links: Array<{ type: string; forward: boolean }> = [];
  const parts = [labels[0] ?? ""];
  nodes.slice(1).forEach((id, i) => {
    const e = visits.get(id)?.prev?.edge;
    links.push({ type: e?.type ?? "related", forward: e?.forward ?? true });
    const label = labels[i + 1] ?? id;
    parts.push(e ? (e.forward ? ` —${e.type}→ ${label}` : ` ←${e.type}— ${label}`) : ` — ${label}`);
  });
  return { explanation: parts.join(""), labels, links };
}

export function findPaths(graph: EntityGraph, seedsIn: string[], depth: Depth, flagged: ReadonlySet<string> = new Set()): PathfinderResult {
  const budget = PATH_BUDGETS[depth];
  const seeds = [...new Set(seedsIn)].filter((s) => graph.nodes.has(s)).sort().slice(0, budget.nodes);
  const visits = new Map<string, Visit>();
  const frontier = new Frontier();
  for (const s of seeds) {
    visits.set(s, { score: 1, hops: 0 });
    frontier.push({ id: s, score: 1 });
  }
  let truncated = false;
  let maxHops = 0;
  const seedSet = new Set(seeds);
  while (frontier.size > 0 && !truncated) {
    const item = frontier.pop();
    const visit = item ? visits.get(item.id) : undefined;
    if (!item || !visit || visit.hops >= budget.hops) continue;
    const node = graph.nodes.get(item.id);
    if (!seedSet.has(item.id) && isCommon(graph, item.id)) continue;
    for (const adj of graph.adjacency.get(item.id) ?? []) {
      if (node?.kind === "host" && !seedSet.has(item.id) && !HOST_EDGES.has(adj.type)) continue;
      if (visits.has(adj.to)) continue;
      if (visits.size >= budget.nodes) {
        truncated = true;
        break;
      }
      const score = Math.round(visit.score * EDGE_WEIGHT[adj.type] * (flagged.has(adj.to) ? 1 : 0.9) * 1e6) / 1e6;
      visits.set(adj.to, { score, hops: visit.hops + 1, prev: { id: item.id, edge: adj } });
      maxHops = Math.max(maxHops, visit.hops + 1);
      frontier.push({ id: adj.to, score });
    }
  }

  const parents = new Set([...visits.values()].map((v) => v.prev?.id).filter((id): id is string => id !== undefined));
  const seedAgents = new Set(seeds.map((s) => graph.nodes.get(s)?.agent).filter((a): a is string => a !== undefined));
  const candidates: Array<Pick<EvidencePath, "nodes" | "score">> = [];
  for (const [id, v] of visits) {
    if (v.hops === 0) continue;
    const n = graph.nodes.get(id);
    const kind = n?.kind;
    const otherHost = kind === "host" && !seedAgents.has(n?.agent ?? "");
    const leaf = !parents.has(id) && !isCommon(graph, id) && kind !== undefined && LEAF_KINDS.has(kind) && !(kind === "ip" && graph.ipToAgent.has(n?.label ?? ""));
    if (!(otherHost || flagged.has(id) || leaf)) continue;
    const nodes: string[] = [id];
    for (let cur = v.prev; cur; cur = visits.get(cur.id)?.prev) nodes.unshift(cur.id);
    const bonus = (flagged.has(id) ? 1.5 : 1) * (otherHost ? 1.2 : 1);
    candidates.push({ nodes, score: Math.round(v.score * bonus * 1000) / 1000 });
  }
  candidates.sort((a, b) => b.score - a.score || a.nodes.length - b.nodes.length || compareText(a.nodes.join(">"), b.nodes.join(">")));
  // Told only for the paths kept (a deep walk has up to 1,000 candidates): the sentence, and the labels and links
  // the console draws.
  const paths: EvidencePath[] = candidates.slice(0, budget.paths).map((p) => ({ ...p, ...told(graph, p.nodes, visits) }));

  const through = new Map<string, number>();
  for (const p of paths) for (const id of p.nodes.slice(1, -1)) through.set(id, (through.get(id) ?? 0) + 1);
  const choke_points = [...through.entries()]
    .filter(([, n]) => n >= 2)
    .sort(([a, x], [b, y]) => y - x || compareText(a, b))
    .map(([id]) => id);
  const reached_agents = [...visits.keys()]
    .filter((id) => graph.nodes.get(id)?.kind === "host")
    .map((id) => id.slice("host:".length))
    .sort();
  return { paths, seeds, visited: visits.size, max_hops_used: maxHops, reached_agents, choke_points, truncated };
}

