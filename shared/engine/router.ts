// Question -> RoutePlan: lexicon matches pick detections, entities seed the pathfinder, else the posture bundle.
import { categoryLabel } from "./detections/detection.js";
import { allDetections, getDetection } from "./detections/registry.js";
import { extractEntities, hasIndicatorEntities, hasSeedEntities } from "./entities.js";
import { CATEGORY_LEXICON, PATHFINDER_PHRASES, matchesPhrase } from "./lexicon.js";
import { PATHFINDER_TABLES } from "./graph.js";
import type { Depth, QueryEntities, Route, RoutePlan } from "./types.js";

/** High-value detections run when nothing in the question matched, widest at `deep`. */
export const POSTURE_BUNDLE: Readonly<Record<Depth, readonly string[]>> = {
  quick: ["cryptominer", "known-bad-hash", "non-root-uid0", "reverse-shell", "unexpected-listener"],
  standard: [
    "cryptominer", "deleted-binary-running", "download-execute", "exec-from-tmp", "known-bad-hash", "ld-preload", "non-root-uid0",
    "process-masquerading", "reverse-shell", "ssh-authorized-key", "suspicious-cron", "unexpected-listener",
  ],
  deep: [],
};

function postureBundle(depth: Depth): string[] {
  const listed = POSTURE_BUNDLE[depth];
  const ids = listed.length > 0 ? [...listed] : allDetections().map((d) => d.id).filter((id) => id !== "ioc-match");
  return ids.filter((id) => getDetection(id) !== undefined).sort();
}

function describeEntities(e: QueryEntities): string[] {
  const parts: string[] = [];
  if (e.ips.length > 0) parts.push(`IPs ${e.ips.join(", ")}`);
  if (e.sha256.length > 0) parts.push(`sha256 ${e.sha256.map((h) => `${h.slice(0, 12)}…`).join(", ")}`);
  if (e.advisories.length > 0) parts.push(`advisories ${e.advisories.join(", ")}`);
  if (e.users.length > 0) parts.push(`users ${e.users.join(", ")}`);
  if (e.ports.length > 0) parts.push(`ports ${e.ports.join(", ")}`);
  if (e.paths.length > 0) parts.push(`paths ${e.paths.join(", ")}`);
  return parts;
}

export function routeQuery(query: string, depth: Depth): RoutePlan {
  const text = query.normalize("NFKC");
  const entities = extractEntities(text);
  const rationale: string[] = [];
  const chosen = new Set<string>();

  for (const d of allDetections()) {
    const words = d.keywords.filter((k) => matchesPhrase(text, k));
    if (words.length === 0) continue;
    chosen.add(d.id);
    rationale.push(`"${words.join('", "')}" → ${d.id}`);
  }
  for (const entry of CATEGORY_LEXICON) {
    const words = entry.phrases.filter((p) => matchesPhrase(text, p));
    if (words.length === 0) continue;
    const ids = allDetections()
      .filter((d) => entry.categories.includes(d.category) && d.id !== "ioc-match")
      .map((d) => d.id);
    ids.forEach((id) => chosen.add(id));
    rationale.push(`"${words.join('", "')}" → every ${entry.categories.map(categoryLabel).join(" / ")} detection (${ids.join(", ")})`);
  }
  if (entities.advisories.length > 0) {
    chosen.add("vulnerable-package");
    rationale.push(`advisory ids ${entities.advisories.join(", ")} → vulnerable-package (checked against the engine's advisory list)`);
  }
  const lexiconMatched = chosen.size > 0;

  const pathWords = PATHFINDER_PHRASES.filter((p) => matchesPhrase(text, p));
  if (pathWords.length > 0) rationale.push(`"${pathWords.join('", "')}" → pathfinder`);
  const seeds = hasSeedEntities(entities);
  if (seeds) rationale.push(`entities ${describeEntities(entities).join("; ")} → pathfinder seeds`);
  if (hasIndicatorEntities(entities)) {
    chosen.add("ioc-match");
    rationale.push("IPs, hashes and paths named in the question are matched exactly against the rows (ioc-match)");
  }
  const tagKeys = Object.keys(entities.tags);
  if (tagKeys.length > 0) rationale.push(`tags ${tagKeys.map((k) => `${k}=${entities.tags[k] ?? ""}`).join(", ")} narrow the scope`);

  const pathfinder = pathWords.length > 0 || seeds;
  let route: Route;
  if (lexiconMatched && pathfinder) route = "both";
  else if (pathfinder) route = "pathfinder";
  else if (lexiconMatched) route = "detections";
  else {
    route = "detections";
    for (const id of postureBundle(depth)) chosen.add(id);
    rationale.push(`no detection keyword or entity matched, so the standard posture bundle ran for depth ${depth} (${[...chosen].sort().join(", ")})`);
  }

  const detection_ids = [...chosen].sort();
  const tables = new Set<string>();
  for (const id of detection_ids) for (const t of getDetection(id)?.tables ?? []) tables.add(t);
  if (route !== "detections") for (const t of PATHFINDER_TABLES) tables.add(t);

  return { route, detection_ids, tables: [...tables].sort(), entities, routing_rationale: rationale, query };
}
