// make calibrate: recomputes shared/engine/detections/calibration.ts from the calibrate split of the corpus.
// `--check` only compares (exit 1 when the committed table is stale).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCorpus } from "../corpus/generate.js";
import { computeCalibration, renderCalibrationModule } from "../evaluation/calibrate.js";
import { allDetections } from "../shared/engine/index.js";

const file = join(process.cwd(), "shared", "engine", "detections", "calibration.ts");
const result = computeCalibration(generateCorpus(), allDetections());
const text = renderCalibrationModule(result);
if (process.argv.includes("--check")) {
  const current = readFileSync(file, "utf8");
  process.stdout.write(current === text ? "calibration is current\n" : "calibration is stale: run make calibrate\n");
  if (current !== text) process.exitCode = 1;
} else {
  writeFileSync(file, text);
  for (const r of result.rows) process.stdout.write(`${r.id.padEnd(28)} precision ${r.precision.toFixed(3)} recall ${r.recall.toFixed(3)} (tp ${r.tp} fp ${r.fp} fn ${r.fn} tn ${r.tn})\n`);
  process.stdout.write(`wrote ${file} from ${result.scenarios} calibrate scenarios (${result.hosts} hosts)\n`);
}
