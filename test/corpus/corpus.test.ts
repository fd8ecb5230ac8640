// The evaluation corpus is well-formed: size and balance, osquery schema conformance, determinism,
// artifacts present in their host's rows, both splits covering the families.
import t from "tap";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateCorpus } from "../../corpus/generate.js";
import { PHRASINGS } from "../../corpus/types.js";

const root = join(import.meta.dirname, "..", "..", "..");
const schema = JSON.parse(readFileSync(join(root, "reference", "osquery-linux-schema.json"), "utf8")) as { tables: Record<string, { columns: string[] }> };
const columns = new Map(Object.entries(schema.tables).map(([name, tbl]) => [name, new Set(tbl.columns.map((c) => c.split(":")[0]))]));
const corpus = generateCorpus();

t.test("size and balance", async (t) => {
  t.ok(corpus.length >= 240, `${corpus.length} scenarios`);
  const benign = corpus.filter((s) => s.kind === "benign").length / corpus.length;
  t.ok(benign >= 0.45 && benign <= 0.55, `benign share ${benign.toFixed(3)}`);
  t.equal(new Set(corpus.map((s) => s.id)).size, corpus.length, "ids unique");
  for (const s of corpus) {
    t.ok(s.hosts.length >= 1 && s.hosts.length <= 4, `${s.id}: 1-4 hosts`);
    t.ok(s.questions.length >= 2 && s.questions.length <= 4, `${s.id}: 2-4 questions`);
  }
});

t.test("every table and column exists in the osquery Linux schema", async (t) => {
  const bad = new Set<string>();
  for (const s of corpus) for (const h of s.hosts) for (const [table, rows] of Object.entries(h.tables)) {
    const cols = columns.get(table);
    if (!cols) { bad.add(`table ${table}`); continue; }
    for (const r of rows) for (const [k, v] of Object.entries(r)) {
      if (!cols.has(k)) bad.add(`${table}.${k}`);
      if (typeof v !== "string") bad.add(`${table}.${k} not a string`);
    }
  }
  t.same([...bad], []);
});

t.test("deterministic", async (t) => {
  t.equal(JSON.stringify(generateCorpus()), JSON.stringify(corpus));
});

t.test("sources, artifacts, tags", async (t) => {
  for (const s of corpus) {
    t.ok(s.sources.length >= 1, `${s.id} names a source`);
    if (s.kind === "attack") t.ok(s.hosts.some((h) => h.compromised), `${s.id} has a compromised host`);
    else t.notOk(s.hosts.some((h) => h.compromised), `${s.id} benign has no compromised host`);
    for (const h of s.hosts) {
      t.same(Object.keys(h.tags).sort(), ["env", "os", "role"], `${s.id}/${h.hostname} tags`);
      if (!h.compromised) { t.same(h.artifacts, [], `${s.id}/${h.hostname} clean has no artifacts`); continue; }
      t.ok(h.artifacts.length > 0, `${s.id}/${h.hostname} has artifacts`);
      const values: string[] = [];
      for (const rows of Object.values(h.tables)) for (const r of rows) for (const v of Object.values(r)) values.push(String(v));
      for (const a of h.artifacts) t.ok(values.some((v) => v.includes(a)), `${s.id}/${h.hostname}: artifact ${a.slice(0, 60)} in rows`);
    }
    for (const q of s.questions) t.ok(PHRASINGS.includes(q.phrasing), `${s.id} phrasing`);
    // A look-alike is asked about by indicator only when it was built around one (an analyst's hunt for it): the
    // indicator is then on its hosts.
    if (s.kind === "benign") {
      const rows = JSON.stringify(s.hosts.map((h) => h.tables));
      for (const q of s.questions.filter((x) => x.phrasing === "indicator")) {
        const named = /\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z0-9-]+\.(?:xyz|top|online)\b/.exec(q.text)?.[0] ?? "";
        t.ok(named !== "" && rows.includes(named), `${s.id} benign indicator question names what its hosts hold: ${q.text}`);
      }
    }
  }
});

t.test("both splits hold attack and benign scenarios of most families", async (t) => {
  const families = [...new Set(corpus.map((s) => s.family))];
  let both = 0;
  for (const f of families) {
    const splits = new Set(corpus.filter((s) => s.family === f).map((s) => s.split));
    if (splits.has("holdout") && splits.has("calibrate")) both++;
  }
  t.ok(both / families.length >= 0.8, `${both}/${families.length} families in both splits`);
  for (const split of ["calibrate", "holdout"] as const) {
    const kinds = new Set(corpus.filter((s) => s.split === split).map((s) => s.kind));
    t.ok(kinds.has("attack") && kinds.has("benign"), `${split} has both kinds`);
  }
  const hold = corpus.filter((s) => s.split === "holdout").length / corpus.length;
  t.ok(hold > 0.3 && hold < 0.5, `holdout share ${hold.toFixed(3)}`);
});
