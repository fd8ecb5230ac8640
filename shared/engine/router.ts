// Question -> RoutePlan. The question's words are stemmed and matched against the intent table (intents.ts: the
// phrases, synonyms and slang for each detection) and the category words; entities seed the pathfinder and the exact-indicator match. A
// question that names nothing specific runs the broad sweep: every detection family, never the pathfinder alone.
import { categoryLabel } from "./detections/detection.js";
import { ADVISORIES } from "./detections/advisories.js";
import { ROUTE_CATALOG, type RouteEntry } from "./detections/route-catalog.js";
import { extractEntities, hasIndicatorEntities, hasSeedEntities } from "./entities.js";
import { EXPLOIT_HINT_PHRASES, INTENTS, OPEN_QUESTION_PHRASES, PATHFINDER_PHRASES, WHOLE_REVIEW_PHRASES } from "./intents.js";
import { CATEGORY_LEXICON, matchedPhrases, matchedPositions, words, type Words } from "./lexicon.js";
import { PATHFINDER_TABLES } from "./pathfinder-tables.js";
import type { Depth, QueryEntities, Route, RoutePlan } from "./types.js";

/** Detections the broad sweep leaves out: they need something named in the question to mean anything. */
const NOT_IN_SWEEP: ReadonlySet<string> = new Set(["ioc-match", "vulnerable-package"]);

/** What a local privilege escalation's use leaves on a host: a SUID copy of a shell, a sudoers rule, a second uid 0. */
const ESCALATION_TRACES: readonly string[] = ["non-root-uid0", "sudoers-nopasswd-all", "unexpected-suid"];

/**
 * What a remote exploit's use leaves on a host, whatever the vulnerability: the exploited service's children (a web
 * shell, a shell under a database or JVM), a reverse shell, a fetched payload and a program run from a temp directory.
 */
const EXPLOITATION_TRACES: readonly string[] = ["webshell-shell-spawn", "service-spawned-shell", "reverse-shell", "download-execute", "exec-from-tmp"];

/** Detections that answer "is this indicator here" and nothing about what it means. */
const INDICATOR_ONLY: ReadonlySet<string> = new Set(["ioc-match", "known-bad-hash"]);

/**
 * The detections as routing knows them (route-catalog.ts, generated from the registry): importing the registry here
 * would load every detection and baseline into each thread that routes a question.
 */
const ROUTES: ReadonlyMap<string, RouteEntry> = new Map(ROUTE_CATALOG.map((d) => [d.id, d]));
const routeOf = (id: string): RouteEntry | undefined => ROUTES.get(id);

/** Every detection family except those that need an indicator or an advisory named in the question. */
export function sweepDetections(): string[] {
  return ROUTE_CATALOG.map((d) => d.id)
    .filter((id) => !NOT_IN_SWEEP.has(id))
    .sort();
}

function describeEntities(e: QueryEntities): string[] {
  const parts: string[] = [];
  if (e.ips.length > 0) parts.push(`IPs ${e.ips.join(", ")}`);
  if (e.sha256.length > 0) parts.push(`sha256 ${e.sha256.map((h) => `${h.slice(0, 12)}…`).join(", ")}`);
  if (e.advisories.length > 0) parts.push(`advisories ${e.advisories.join(", ")}`);
  if (e.users.length > 0) parts.push(`users ${e.users.join(", ")}`);
  if (e.ports.length > 0) parts.push(`ports ${e.ports.join(", ")}`);
  if (e.paths.length > 0) parts.push(`paths ${e.paths.join(", ")}`);
  if (e.domains.length > 0) parts.push(`domains ${e.domains.join(", ")}`);
  if ((e.access_keys?.length ?? 0) > 0) parts.push(`access keys ${(e.access_keys ?? []).join(", ")}`);
  return parts;
}

const quote = (list: readonly string[]): string => `"${list.join('", "')}"`;

/**
 * Every intent's phrases in one list, and the intent each belongs to: a question is matched against all of them in
 * one pass over its words (each trigger routes its question; the table has over a thousand phrases).
 */
const INTENT_PHRASES: readonly string[] = INTENTS.flatMap((intent) => intent.phrases);
const INTENT_OF: readonly number[] = INTENTS.flatMap((intent, i) => intent.phrases.map(() => i));

/** Which detections the question's words ask for, with the words that chose each. */
function lexicalMatches(q: Words): { chosen: Set<string>; rationale: string[] } {
  const chosen = new Set<string>();
  const rationale: string[] = [];
  const byDetection = new Map<string, Set<string>>();
  const note = (id: string, phrases: readonly string[]): void => {
    if (routeOf(id) === undefined || phrases.length === 0) return;
    const set = byDetection.get(id) ?? new Set<string>();
    phrases.forEach((p) => set.add(p));
    byDetection.set(id, set);
  };
  for (const at of matchedPositions(q, INTENT_PHRASES)) {
    const intent = INTENTS[INTENT_OF[at] as number];
    for (const id of intent?.detections ?? []) note(id, [INTENT_PHRASES[at] as string]);
  }
  // One line per set of matched phrases, naming every detection it chose: a phrase that several detections list
  // ("cryptominer") is said once, not once per detection.
  const byPhrases = new Map<string, string[]>();
  for (const id of [...byDetection.keys()].sort()) {
    chosen.add(id);
    const said = quote([...(byDetection.get(id) ?? [])].sort());
    byPhrases.set(said, [...(byPhrases.get(said) ?? []), id]);
  }
  for (const [said, ids] of byPhrases) rationale.push(`${said} → ${ids.join(", ")}`);
  for (const entry of CATEGORY_LEXICON) {
    const hit = matchedPhrases(q, entry.phrases);
    if (hit.length === 0) continue;
    const ids = ROUTE_CATALOG.filter((d) => entry.categories.includes(d.category) && !NOT_IN_SWEEP.has(d.id))
      .map((d) => d.id);
    if (ids.length === 0) continue;
    ids.forEach((id) => chosen.add(id));
    rationale.push(`${quote(hit)} → every ${entry.categories.map(categoryLabel).join(" / ")} detection (${ids.join(", ")})`);
  }
  return { chosen, rationale };
}

export function routeQuery(query: string, depth: Depth): RoutePlan {
  const text = query.normalize("NFKC");
  const entities = extractEntities(text);
  const q = words(text);
  const { chosen, rationale } = lexicalMatches(q);
  if (entities.advisories.length > 0 && routeOf("vulnerable-package")) {
    chosen.add("vulnerable-package");
    rationale.push(`advisory ids ${entities.advisories.join(", ")} → vulnerable-package (checked against the engine's advisory list)`);
  }
  // A local privilege escalation named ("is CVE-2023-4911 being used?"): what its use leaves behind is a privilege
  // escalation's trace (a SUID copy, a sudoers rule, a second uid 0), so those detections run beside the version check.
  const escalations = entities.advisories.filter((id) => ADVISORIES.some((a) => a.id.toUpperCase() === id.toUpperCase() && a.attack.includes("T1068")));
  if (escalations.length > 0) {
    const ids = ESCALATION_TRACES.filter((id) => routeOf(id) !== undefined);
    ids.forEach((id) => chosen.add(id));
    rationale.push(`${escalations.join(", ")} ${escalations.length === 1 ? "is a local privilege escalation" : "are local privilege escalations"} → what its use leaves (${ids.join(", ")})`);
  }
  // A remote exploit named, or a CVE the engine has no version check for ("was Solr hit by CVE-2021-44228?"): the
  // question is whether it was used, so what its use leaves runs beside whatever version check there is.
  const exploits = entities.advisories.filter((id) => {
    const known = ADVISORIES.filter((a) => a.id.toUpperCase() === id.toUpperCase());
    return known.length === 0 || known.some((a) => a.attack.includes("T1190"));
  });
  if (exploits.length > 0) {
    const unknown = exploits.filter((id) => !ADVISORIES.some((a) => a.id.toUpperCase() === id.toUpperCase()));
    // A CVE the engine has no version check for may be local or remote: what either's use leaves runs.
    const ids = [...EXPLOITATION_TRACES, ...(unknown.length > 0 ? ESCALATION_TRACES : [])].filter((id) => routeOf(id) !== undefined);
    ids.forEach((id) => chosen.add(id));
    rationale.push(`${exploits.join(", ")} → what ${unknown.length > 0 ? "an exploit's use leaves (no version check for it here)" : "a remote exploit's use leaves"} (${ids.join(", ")})`);
  }
  if (entities.ports.length > 0 && routeOf("unexpected-listener")) {
    chosen.add("unexpected-listener");
    chosen.add("ioc-match");
    rationale.push(`ports ${entities.ports.join(", ")} named → unexpected-listener (what listens there) and ioc-match (what connects out to them)`);
  }
  const pathWords = matchedPhrases(q, PATHFINDER_PHRASES);
  if (pathWords.length > 0) rationale.push(`${quote(pathWords)} → pathfinder`);
  const seeds = hasSeedEntities(entities);
  if (seeds) rationale.push(`entities ${describeEntities(entities).join("; ")} → pathfinder seeds`);
  if (hasIndicatorEntities(entities)) {
    chosen.add("ioc-match");
    rationale.push("IPs, hashes, domains, paths, file names and cloud access key ids named in the question are looked for exactly in the rows (ioc-match); a named path is a place to look, not an indicator of compromise by itself");
  }
  const tagKeys = Object.keys(entities.tags);
  if (tagKeys.length > 0) rationale.push(`tags ${tagKeys.map((k) => `${k}=${entities.tags[k] ?? ""}`).join(", ")} narrow the scope`);

  // Nothing specific asked (an open question, "where did it spread", a user named with no technique): sweep every
  // family. An indicator named alone ("does 1.2.3.4 show up anywhere?") sweeps too, so that whatever carries it is
  // found by the detection that knows what it means (and lifted one step for carrying it).
  const indicatorOnly = chosen.size > 0 && [...chosen].every((id) => INDICATOR_ONLY.has(id));
  const whole = matchedPhrases(q, WHOLE_REVIEW_PHRASES);
  const sweep = chosen.size === 0 || indicatorOnly || whole.length > 0;
  if (indicatorOnly) rationale.push("only an indicator was named, so the broad sweep runs beside the exact match");
  if (sweep) {
    for (const id of sweepDetections()) chosen.add(id);
    const open = matchedPhrases(q, OPEN_QUESTION_PHRASES);
    const why = whole.length > 0 ? `a whole review asked for (${quote(whole)})` : open.length > 0 ? `an open question (${quote(open)})` : "no detection keyword or entity matched";
    rationale.push(`${why}, so the broad sweep ran every detection family at depth ${depth} (${sweepDetections().length} detections; ioc-match and vulnerable-package need an indicator or advisory named)`);
  }

  const hints = matchedPhrases(q, EXPLOIT_HINT_PHRASES);
  if (hints.length > 0) {
    const ids = EXPLOITATION_TRACES.filter((id) => routeOf(id) !== undefined && !chosen.has(id));
    ids.forEach((id) => chosen.add(id));
    if (ids.length > 0) rationale.push(`${quote(hints)} → what an exploit's use leaves, beside the rest (${ids.join(", ")})`);
  }

  const pathfinder = pathWords.length > 0 || seeds;
  const route: Route = pathfinder ? "both" : "detections";
  const detection_ids = [...chosen].sort();
  const tables = new Set<string>();
  for (const id of detection_ids) for (const t of routeOf(id)?.tables ?? []) tables.add(t);
  if (route !== "detections") for (const t of PATHFINDER_TABLES) tables.add(t);
  return { route, detection_ids, tables: [...tables].sort(), entities, routing_rationale: rationale, query, sweep };
}
