// make evaluate: the engine over the whole corpus, both splits; prints the summary and the confusion tables'
// headline, writes docs/evaluation.md. `--check` exits non-zero when the holdout split falls below the committed
// floor in evaluation/holdout-floor.json. `--dev <seed>` evaluates a fresh development corpus instead (same families,
// other variants and phrasings, three times the size): tune on that or on the calibrate split, never on holdout.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCorpus } from "../corpus/generate.js";
import { renderConsole, renderMarkdown, summaries } from "../evaluation/render.js";
import { contractView } from "../evaluation/contract-view.js";
import { evaluate, precision, recall } from "../evaluation/score.js";

const root = process.cwd();
const started = Date.now();
const devAt = process.argv.indexOf("--dev");
if (devAt >= 0) {
  const seed = process.argv[devAt + 1] ?? "inquest-dev-1";
  const dev = evaluate(generateCorpus(seed, 3));
  process.stdout.write(`${renderConsole(dev)}\n(development corpus ${seed}: both of its splits are for tuning)\n`);
  process.exit(0);
}
const corpus = generateCorpus();
const first = evaluate(corpus);
const second = evaluate(generateCorpus());
const deterministic = first.outcomes.every((o, i) => o.fingerprint === second.outcomes[i]?.fingerprint);
const contract = evaluate(contractView(corpus));
process.stdout.write(`${renderConsole(first)}\nidentical on re-run: ${deterministic ? "yes" : "NO"}\n`);
process.stdout.write(`contract tables only: holdout recall ${recall(contract.bySplit.holdout)} precision ${precision(contract.bySplit.holdout)}\n`);
writeFileSync(join(root, "docs", "evaluation.md"), renderMarkdown(first, deterministic, contract));
process.stdout.write(`wrote docs/evaluation.md (${corpus.length} scenarios, ${first.outcomes.length} questions, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

const floor = JSON.parse(readFileSync(join(root, "evaluation", "holdout-floor.json"), "utf8")) as { recall: number; precision: number };
const holdout = summaries(first).find((s) => s.split === "holdout");
if (!holdout || holdout.recall < floor.recall || holdout.precision < floor.precision || holdout.critical_on_clean > 0 || !deterministic) {
  process.stderr.write(`holdout below the committed floor (recall ${floor.recall}, precision ${floor.precision}, no critical on clean, deterministic)\n`);
  if (process.argv.includes("--check")) process.exitCode = 1;
}
