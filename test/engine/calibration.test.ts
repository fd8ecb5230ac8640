import { readdirSync } from "node:fs";
import { test } from "tap";
import {
  computeCalibration,
  parseCorpus,
  renderCalibrationMarkdown,
  renderCalibrationModule,
} from "../../shared/engine/calibration-corpus.js";
import { CALIBRATION, CALIBRATION_CORPUS } from "../../shared/engine/detections/calibration.js";
import { DETECTIONS, allDetections } from "../../shared/engine/index.js";
import { REPO_ROOT, readRepoFile } from "./helpers.js";

function corpus() {
  const files = readdirSync(`${REPO_ROOT}scenarios`)
    .filter((n) => n.endsWith(".json"))
    .sort()
    .map((name) => ({ name, json: JSON.parse(readRepoFile(`scenarios/${name}`)) as unknown }));
  return parseCorpus(files);
}

const FIX = "run `npx tsc -p tsconfig.json && node dist/scripts/calibrate.js` and commit the result";

test("the committed calibration table matches what the corpus produces now", async (t) => {
  const result = computeCalibration(corpus(), allDetections());
  t.equal(readRepoFile("shared/engine/detections/calibration.ts"), renderCalibrationModule(result), `calibration.ts is stale: ${FIX}`);
  t.equal(readRepoFile("scenarios/CALIBRATION.md"), renderCalibrationMarkdown(result), `CALIBRATION.md is stale: ${FIX}`);
  t.equal(CALIBRATION_CORPUS.digest, result.digest, "the compiled table was built from this corpus");
  for (const r of result.rows) t.same(CALIBRATION[r.id], { precision: r.precision, recall: r.recall, tp: r.tp, fp: r.fp, fn: r.fn, tn: r.tn }, r.id);
});

test("the corpus is big enough and exercises every detection", async (t) => {
  const hosts = corpus();
  t.ok(hosts.length >= 30, `${hosts.length} hosts`);
  t.ok(hosts.filter((h) => h.label === "benign").length >= 10, "benign hosts");
  t.ok(hosts.filter((h) => h.label !== "benign").length >= 10, "compromised hosts");
  t.ok(hosts.some((h) => h.host.tags.role === "ci-runner"), "CI runners");
  t.ok(hosts.some((h) => h.host.tags.env === "prod" && h.host.tags.role === "web"), "prod web hosts");
  const known = new Set(DETECTIONS.map((d) => d.id as string));
  for (const h of hosts) for (const id of h.expected) t.ok(known.has(id), `${h.host.agent_id} expects a registered detection (${id})`);
  const result = computeCalibration(hosts, allDetections());
  for (const r of result.rows) {
    t.ok(r.tp + r.fn >= 2, `${r.id}: at least two positive hosts`);
    t.ok(r.tp >= 1, `${r.id}: fires on at least one of them`);
  }
  t.ok(result.rows.some((r) => r.fp > 0), "look-alikes produce measured false positives");
});

test("detections carry the measured numbers", async (t) => {
  for (const d of DETECTIONS) {
    const m = CALIBRATION[d.id];
    t.ok(m, `${d.id} is calibrated`);
    t.equal(d.precision, m?.precision, `${d.id} precision`);
    t.equal(d.recall, m?.recall, `${d.id} recall`);
    t.equal(d.calibrated, true);
  }
});

test("calibration counts are host-level confusion counts", async (t) => {
  const base = { name: "x.json", json: { bases: { b: { tables: { users: [{ uid: "0", username: "root" }] } } } } };
  const hosts = {
    name: "y.json",
    json: {
      hosts: [
        { agent_id: "tp", hostname: "tp", base: "b", label: "compromised", expected: ["non-root-uid0"], tables: { users: [{ uid: "0", username: "toor" }] } },
        { agent_id: "fn", hostname: "fn", base: "b", label: "compromised", expected: ["non-root-uid0"] },
        { agent_id: "fp", hostname: "fp", base: "b", label: "benign", tables: { users: [{ uid: "0", username: "admin0" }] } },
        { agent_id: "tn", hostname: "tn", base: "b", label: "benign" },
      ],
    },
  };
  const detection = DETECTIONS.filter((d) => d.id === "non-root-uid0");
  const [row] = computeCalibration(parseCorpus([hosts, base]), detection).rows;
  t.same({ tp: row?.tp, fp: row?.fp, fn: row?.fn, tn: row?.tn }, { tp: 1, fp: 1, fn: 1, tn: 1 });
  t.equal(row?.precision, 0.5);
  t.equal(row?.recall, 0.5);
  t.same(row?.false_positive_hosts, ["fp"]);
  t.throws(() => parseCorpus([{ name: "z.json", json: { hosts: [{ agent_id: "a", hostname: "a", label: "benign", expected: ["x"] }] } }]), { code: "invalid_corpus" });
  t.throws(() => parseCorpus([{ name: "z.json", json: { hosts: [{ agent_id: "a", hostname: "a", label: "weird" }] } }]), { code: "invalid_corpus" });
  t.throws(() => parseCorpus([{ name: "z.json", json: { hosts: [{ agent_id: "a", hostname: "a", label: "benign", base: "missing" }] } }]), { code: "invalid_corpus" });
});
