// `node dist/corpus/write.js <out-dir>`: one JSON file per scenario, for people to read.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCorpus } from "./generate.js";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: node dist/corpus/write.js <out-dir>\n");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const scenarios = generateCorpus();
for (const s of scenarios) writeFileSync(join(out, `${s.id}.json`), `${JSON.stringify(s, null, 2)}\n`);
process.stdout.write(`wrote ${scenarios.length} scenarios to ${out}\n`);
