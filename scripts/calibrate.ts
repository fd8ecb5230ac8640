// make calibrate: recomputes shared/engine/detections/calibration.ts from the calibrate split of the corpus, and
// shared/engine/detections/route-catalog.ts (what the router needs of each detection) from the registry.
// `--check` only compares (exit 1 when either committed file is stale).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCorpus } from "../corpus/generate.js";
import { computeCalibration, renderCalibrationModule } from "../evaluation/calibrate.js";
import { allDetections, type Detection } from "../shared/engine/index.js";

const dir = join(process.cwd(), "shared", "engine", "detections");
const result = computeCalibration(generateCorpus(), allDetections());
const files: Array<[string, string]> = [
  [join(dir, "calibration.ts"), renderCalibrationModule(result)],
  [join(dir, "route-catalog.ts"), renderRouteCatalog(allDetections())],
];
if (process.argv.includes("--check")) {
  for (const [file, text] of files) {
    const current = readFileSync(file, "utf8");
    process.stdout.write(current === text ? `${file} is current\n` : `${file} is stale: run make calibrate\n`);
    if (current !== text) process.exitCode = 1;
  }
} else {
  for (const [file, text] of files) writeFileSync(file, text);
  for (const r of result.rows) process.stdout.write(`${r.id.padEnd(28)} precision ${r.precision.toFixed(3)} recall ${r.recall.toFixed(3)} (tp ${r.tp} fp ${r.fp} fn ${r.fn} tn ${r.tn})\n`);
  process.stdout.write(`wrote ${files.map(([f]) => f).join(" and ")} from ${result.scenarios} calibrate scenarios (${result.hosts} hosts)\n`);
}

function renderRouteCatalog(detections: readonly Detection[]): string {
  return [
    "// Generated from the detection registry by `make calibrate` (scripts/calibrate.ts); do not edit by hand.",
    "// What the router needs of each detection: its id, category and tables. Routing a question (the gateway's trigger",
    "// path, the runner's main thread) reads this, so those threads never load the detections and their baselines",
    "// (2 MiB of heap, and the code); a test holds it equal to the registry.",
    'import type { Category } from "./detection.js";',
    "",
    "export interface RouteEntry {",
    "  id: string;",
    "  category: Category;",
    "  tables: readonly string[];",
    "}",
    "",
    "/** Sorted by id, as `allDetections()`. */",
    "export const ROUTE_CATALOG: readonly RouteEntry[] = [",
    ...detections.map((d) => `  { id: ${JSON.stringify(d.id)}, category: ${JSON.stringify(d.category)}, tables: [${d.tables.map((t) => JSON.stringify(t)).join(", ")}] },`),
    "];",
    "",
  ].join("\n");
}
