// The labelled scenario corpus (scenarios/*.json) and the precision/recall it measures per detection.
// Pure: the caller reads the files; this module parses, merges bases, evaluates and renders.
import { compareText } from "./order.js";
import type { Detection } from "./detections/detection.js";
import { canonicalJson, stableHash } from "./fingerprint.js";
import type { HostData, QueryEntities, Row } from "./types.js";
import { emptyEntities } from "./entities.js";

export type ScenarioLabel = "benign" | "compromised" | "vulnerable";

export interface ScenarioHost {
  host: HostData;
  label: ScenarioLabel;
  /** Detection ids that should fire on this host. */
  expected: string[];
  notes: string;
  /** Entities as if named in the question (for ioc-match and advisory filtering). */
  entities: QueryEntities;
  file: string;
}

export interface CalibrationRow {
  id: string;
  maturity: string;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  false_positive_hosts: string[];
  missed_hosts: string[];
}

export interface CalibrationResult {
  rows: CalibrationRow[];
  hosts: number;
  compromised: number;
  benign: number;
  digest: string;
}

export class CorpusError extends Error {
  override readonly name = "CorpusError";
  readonly code = "invalid_corpus";
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function tablesOf(v: unknown, where: string): Record<string, Row[]> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new CorpusError(`${where}: tables must be an object`);
  const out: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(v)) {
    if (!Array.isArray(rows) || !rows.every(isObject)) throw new CorpusError(`${where}: table ${table} must be an array of rows`);
    out[table] = rows;
  }
  return out;
}

/** Files are { bases: {name: {extends?, tables}} } or { hosts: [...] }; names sort the order. */
export function parseCorpus(files: ReadonlyArray<{ name: string; json: unknown }>): ScenarioHost[] {
  const sorted = [...files].sort((a, b) => compareText(a.name, b.name));
  const bases = new Map<string, { extends?: string; tables: Record<string, Row[]> }>();
  for (const f of sorted) {
    if (!isObject(f.json)) throw new CorpusError(`${f.name}: not a JSON object`);
    const raw = f.json.bases;
    if (!isObject(raw)) continue;
    for (const [name, b] of Object.entries(raw)) {
      if (!isObject(b)) throw new CorpusError(`${f.name}: base ${name} must be an object`);
      bases.set(name, { ...(typeof b.extends === "string" ? { extends: b.extends } : {}), tables: tablesOf(b.tables, `${f.name} base ${name}`) });
    }
  }
  const resolve = (name: string, seen: string[] = []): Record<string, Row[]> => {
    const b = bases.get(name);
    if (!b) throw new CorpusError(`unknown base ${name}`);
    if (seen.includes(name)) throw new CorpusError(`base cycle: ${[...seen, name].join(" -> ")}`);
    const parent = b.extends !== undefined ? resolve(b.extends, [...seen, name]) : {};
    const merged: Record<string, Row[]> = { ...parent };
    for (const [t, rows] of Object.entries(b.tables)) merged[t] = [...(parent[t] ?? []), ...rows];
    return merged;
  };
  const out: ScenarioHost[] = [];
  const ids = new Set<string>();
  for (const f of sorted) {
    const list = isObject(f.json) ? f.json.hosts : undefined;
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new CorpusError(`${f.name}: hosts must be an array`);
    for (const h of list) {
      if (!isObject(h) || typeof h.agent_id !== "string" || typeof h.hostname !== "string") throw new CorpusError(`${f.name}: host needs agent_id and hostname`);
      const where = `${f.name} ${h.agent_id}`;
      if (ids.has(h.agent_id)) throw new CorpusError(`${where}: duplicate agent_id`);
      ids.add(h.agent_id);
      const label = h.label;
      if (label !== "benign" && label !== "compromised" && label !== "vulnerable") throw new CorpusError(`${where}: label must be benign, compromised or vulnerable`);
      const expected = Array.isArray(h.expected) ? h.expected.filter((x): x is string => typeof x === "string") : [];
      if (label === "benign" && expected.length > 0) throw new CorpusError(`${where}: a benign host expects no detection`);
      const tables = typeof h.base === "string" ? resolve(h.base) : {};
      for (const [t, rows] of Object.entries(tablesOf(h.tables, where))) tables[t] = [...(tables[t] ?? []), ...rows];
      for (const [t, rows] of Object.entries(tablesOf(h.replace_tables, where))) tables[t] = rows;
      const tags = isObject(h.tags) ? Object.fromEntries(Object.entries(h.tags).map(([k, v]) => [k, String(v)])) : {};
      const entities = { ...emptyEntities(), ...(isObject(h.entities) ? (h.entities as Partial<QueryEntities>) : {}) };
      out.push({
        host: { agent_id: h.agent_id, hostname: h.hostname, tags, collected_at: typeof h.collected_at === "string" ? h.collected_at : "2024-11-20T12:00:00Z", tables },
        label,
        expected: [...new Set(expected)].sort(),
        notes: typeof h.notes === "string" ? h.notes : "",
        entities,
        file: f.name,
      });
    }
  }
  return out.sort((a, b) => compareText(a.host.agent_id, b.host.agent_id));
}

function ratio(n: number, d: number): number {
  return d === 0 ? 0 : Math.round((n / d) * 1000) / 1000;
}

/** Host-level confusion counts per detection: fired (any hit) vs expected (label lists the id). */
export function computeCalibration(corpus: readonly ScenarioHost[], detections: readonly Detection[]): CalibrationResult {
  const rows: CalibrationRow[] = [];
  for (const d of [...detections].sort((a, b) => compareText(a.id, b.id))) {
    const r: CalibrationRow = { id: d.id, maturity: d.maturity, tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, false_positive_hosts: [], missed_hosts: [] };
    for (const s of corpus) {
      const fired = d.evaluate(s.host, { entities: s.entities }).length > 0;
      const expected = s.expected.includes(d.id);
      if (fired && expected) r.tp++;
      else if (fired) {
        r.fp++;
        r.false_positive_hosts.push(s.host.agent_id);
      } else if (expected) {
        r.fn++;
        r.missed_hosts.push(s.host.agent_id);
      } else r.tn++;
    }
    r.precision = ratio(r.tp, r.tp + r.fp);
    r.recall = ratio(r.tp, r.tp + r.fn);
    rows.push(r);
  }
  const digest = stableHash(canonicalJson(corpus.map((s) => ({ host: s.host, expected: s.expected, entities: s.entities }))));
  const compromised = corpus.filter((s) => s.label !== "benign").length;
  return { rows, hosts: corpus.length, compromised, benign: corpus.length - compromised, digest };
}

export function renderCalibrationModule(result: CalibrationResult): string {
  const lines = [
    "// GENERATED by scripts/calibrate.ts from scenarios/*.json. Do not edit by hand:",
    "// run `npx tsc -p tsconfig.json && node dist/scripts/calibrate.js` from the repository root.",
    "",
    "export interface CalibrationEntry {",
    "  precision: number;",
    "  recall: number;",
    "  tp: number;",
    "  fp: number;",
    "  fn: number;",
    "  tn: number;",
    "}",
    "",
    `export const CALIBRATION_CORPUS = { hosts: ${result.hosts}, compromised: ${result.compromised}, benign: ${result.benign}, digest: "${result.digest}" } as const;`,
    "",
    "export const CALIBRATION: Readonly<Record<string, CalibrationEntry>> = {",
    ...result.rows.map((r) => `  "${r.id}": { precision: ${r.precision}, recall: ${r.recall}, tp: ${r.tp}, fp: ${r.fp}, fn: ${r.fn}, tn: ${r.tn} },`),
    "};",
    "",
  ];
  return lines.join("\n");
}

export function renderCalibrationMarkdown(result: CalibrationResult): string {
  const lines = [
    "# Detection calibration",
    "",
    "Generated by `scripts/calibrate.ts` from the labelled corpus in `scenarios/` (do not edit by hand).",
    `Corpus: ${result.hosts} simulated hosts (${result.compromised} compromised or vulnerable, ${result.benign} benign), digest \`${result.digest}\`.`,
    "Counts are per host: a detection fires on a host when it returns at least one hit.",
    "Precision = TP / (TP + FP), recall = TP / (TP + FN). Reports use precision as the finding's confidence.",
    "",
    "| detection | maturity | precision | recall | TP | FP | FN | TN | false positives on | missed on |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...result.rows.map(
      (r) =>
        `| ${r.id} | ${r.maturity} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} | ${r.tp} | ${r.fp} | ${r.fn} | ${r.tn} | ${r.false_positive_hosts.join(", ") || "-"} | ${r.missed_hosts.join(", ") || "-"} |`,
    ),
    "",
  ];
  return lines.join("\n");
}
