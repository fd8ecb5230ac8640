// Recomputes the detection calibration table from the scenario corpus.
// Usage (from the repository root): npx tsc -p tsconfig.json && node dist/scripts/calibrate.js [--check]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { computeCalibration, parseCorpus, renderCalibrationMarkdown, renderCalibrationModule } from "../shared/engine/calibration-corpus.js";
import { allDetections } from "../shared/engine/detections/registry.js";

const root = process.cwd();
const scenarioDir = join(root, "scenarios");
const moduleFile = join(root, "shared", "engine", "detections", "calibration.ts");
const markdownFile = join(scenarioDir, "CALIBRATION.md");

const files = readdirSync(scenarioDir)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => ({ name, json: JSON.parse(readFileSync(join(scenarioDir, name), "utf8")) as unknown }));
const result = computeCalibration(parseCorpus(files), allDetections());
const moduleText = renderCalibrationModule(result);
const markdownText = renderCalibrationMarkdown(result);

if (process.argv.includes("--check")) {
  const stale = [moduleFile, markdownFile].filter((f, i) => {
    try {
      return readFileSync(f, "utf8") !== (i === 0 ? moduleText : markdownText);
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    process.stderr.write(`calibration is stale: ${stale.join(", ")}\n`);
    process.exitCode = 1;
  } else process.stdout.write("calibration is current\n");
} else {
  writeFileSync(moduleFile, moduleText);
  writeFileSync(markdownFile, markdownText);
  for (const r of result.rows) {
    process.stdout.write(`${r.id.padEnd(28)} precision ${r.precision.toFixed(3)} recall ${r.recall.toFixed(3)} (tp ${r.tp} fp ${r.fp} fn ${r.fn})\n`);
  }
  process.stdout.write(`wrote ${moduleFile} and ${markdownFile} from ${result.hosts} hosts\n`);
}
