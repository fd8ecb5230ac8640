// The engine on the corpus's holdout split (never used for tuning) must not fall below the committed floor, must
// put no critical finding on a clean host, and must give the same findings on a re-run. The calibration table the
// detections carry must be the one the calibrate split produces now.
import { readFileSync } from "node:fs";
import { test } from "tap";
import { generateCorpus } from "../../corpus/generate.js";
import { computeCalibration, renderCalibrationModule, smoothedPrecision } from "../../evaluation/calibrate.js";
import { evaluate, precision, recall } from "../../evaluation/score.js";
import { CALIBRATION } from "../../shared/engine/detections/calibration.js";
import { DETECTIONS, allDetections } from "../../shared/engine/index.js";
import { REPO_ROOT } from "../engine/helpers.js";

const floor = JSON.parse(readFileSync(`${REPO_ROOT}evaluation/holdout-floor.json`, "utf8")) as { recall: number; precision: number };


test("holdout split: recall and precision at or above the committed floor, nothing critical on clean hosts", async (t) => {
  const corpus = generateCorpus().filter((s) => s.split === "holdout");
  t.ok(corpus.length >= 80, `${corpus.length} holdout scenarios`);
  const e = evaluate(corpus);
  const c = e.bySplit.holdout;
  t.ok(recall(c) >= floor.recall, `recall ${recall(c)} >= ${floor.recall}`);
  t.ok(precision(c) >= floor.precision, `precision ${precision(c)} >= ${floor.precision}`);
  t.equal(c.critical_on_clean, 0, "no critical finding on a clean host");
  const again = evaluate(generateCorpus().filter((s) => s.split === "holdout"));
  t.same(again.outcomes.map((o) => o.fingerprint), e.outcomes.map((o) => o.fingerprint), "identical findings on re-run");
});

test("the committed calibration table is the one the calibrate split produces", async (t) => {
  const result = computeCalibration(generateCorpus(), allDetections());
  t.equal(readFileSync(`${REPO_ROOT}shared/engine/detections/calibration.ts`, "utf8"), renderCalibrationModule(result), "calibration.ts is stale: run make calibrate");
  for (const d of DETECTIONS) {
    const m = CALIBRATION[d.id];
    t.ok(m, `${d.id} is calibrated`);
    t.equal(d.precision, m?.precision, `${d.id} carries the measured precision`);
  }
});

test("smoothed precision never claims certainty from a few hits", async (t) => {
  t.equal(smoothedPrecision(0, 0), 0.5);
  t.equal(smoothedPrecision(3, 0), 0.8);
  t.ok(smoothedPrecision(100, 0) >= 0.99, "many clean hits approach certainty");
  t.ok(smoothedPrecision(1, 3) < 0.5);
});
