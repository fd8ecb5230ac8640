// `make bench-check`: compares the ratios of the last `make bench` (bench/results.json) with the committed
// baseline (bench/baseline.json) and fails when one is more than 20 % below it (bench/README.md#guard).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkAgainstBaseline, type Baseline } from "./figures.js";

const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench");
const baseline = JSON.parse(readFileSync(join(BENCH_DIR, "baseline.json"), "utf8")) as Baseline;
const current = JSON.parse(readFileSync(join(BENCH_DIR, "results.json"), "utf8")) as { ratios: Record<string, number | null> };
const result = checkAgainstBaseline(baseline, current.ratios);
for (const line of result.lines) process.stdout.write(`[bench-check] ${line}\n`);
process.stdout.write(`[bench-check] ${result.ok ? "ok" : "a ratio dropped more than 20 % below bench/baseline.json"}\n`);
process.exitCode = result.ok ? 0 : 1;
