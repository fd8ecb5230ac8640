import { test } from "tap";
import { DETECTIONS, detectionCatalog, getDetection } from "../../shared/engine/index.js";

import { readRepoFile } from "./helpers.js";

/** osquery's Linux tables (reference/osquery-linux-schema.json); detections read nothing else. */
const OSQUERY_TABLES = new Set(Object.keys((JSON.parse(readRepoFile("reference/osquery-linux-schema.json")) as { tables: Record<string, unknown> }).tables));

test("the catalog: at least 40 well-formed Linux detections", async (t) => {
  t.ok(DETECTIONS.length >= 40, `${DETECTIONS.length} detections`);
  const ids = DETECTIONS.map((d) => d.id as string);
  t.equal(new Set(ids).size, ids.length, "ids are unique");
  for (const d of DETECTIONS) {
    t.match(d.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, `${d.id} is kebab-case`);
    t.ok(d.title.length > 5);
    t.ok(d.tables.length > 0 && d.tables.every((x) => OSQUERY_TABLES.has(x)), `${d.id} reads osquery tables only`);
    t.ok(d.attack.length > 0 || d.id === "ioc-match" || d.id === "vulnerable-package", `${d.id} names ATT&CK techniques`);
    t.ok(d.attack.every((a) => /^T\d{4}(?:\.\d{3})?$/.test(a)), `${d.id} ATT&CK ids`);
    t.ok(["experimental", "test", "stable"].includes(d.maturity));
    t.ok(["info", "low", "medium", "high", "critical"].includes(d.severity));
    t.ok(d.false_positives.length > 10, `${d.id} documents false positives`);
    t.ok(Object.values(d.advice).flat().length >= 2, `${d.id} gives advice`);
    t.ok(d.precision >= 0 && d.precision <= 1 && d.recall >= 0 && d.recall <= 1);
    t.equal(getDetection(d.id), d);
  }
  t.equal(getDetection("no-such-detection"), undefined);
});

test("the catalog as plain data", async (t) => {
  const catalog = detectionCatalog();
  t.equal(catalog.length, DETECTIONS.length);
  t.same(catalog.map((c) => c.id), [...catalog.map((c) => c.id)].sort(), "sorted by id");
  t.equal(JSON.parse(JSON.stringify(catalog)).length, catalog.length, "serialisable");
});

test("the README says how many detections there are", async (t) => {
  const said = /\*\*(\d+) detections\*\*/.exec(readRepoFile("README.md"))?.[1];
  t.equal(Number(said), DETECTIONS.length, "README.md's count is the catalog's");
});
