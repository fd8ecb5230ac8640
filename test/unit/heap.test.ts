// boundHeapGrowth (shared/heap.ts) set after start-up must change how far V8 lets the heap grow: each case runs in
// its own Node process with the same workload (a live set, then objects that live long enough to be promoted).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "tap";

const heapModule = fileURLToPath(new URL("../../shared/heap.js", import.meta.url));

const WORKLOAD = `
import { getHeapStatistics } from "node:v8";
const { boundHeapGrowth } = await import(process.argv[1]);
boundHeapGrowth(Number(process.argv[2]));
const live = Array.from({ length: 300000 }, (_, i) => ({ i, s: "x".repeat(40) + i }));
const ring = new Array(100000);
let max = 0;
for (let i = 0; i < 3000000; i++) {
  ring[i % ring.length] = { i, s: "y" + i, a: [i, i + 1] };
  if (i % 10000 === 0) max = Math.max(max, getHeapStatistics().total_heap_size);
}
process.stdout.write(JSON.stringify({ maxMb: max / 2 ** 20, kept: live.length }));
`;

function peakHeapMb(percent: number): number {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", WORKLOAD, heapModule, String(percent)], { encoding: "utf8" });
  return (JSON.parse(out) as { maxMb: number }).maxMb;
}

test("a bounded heap growth keeps the heap near its live data; 0 leaves V8's own growth", async (t) => {
  const own = peakHeapMb(0);
  const bounded = peakHeapMb(10);
  t.ok(bounded < own * 0.7, `peak heap with growth bounded at 10 %: ${bounded.toFixed(0)} MiB, with V8's own growth: ${own.toFixed(0)} MiB`);
});

test("the runner bounds its heap growth at 20 % by default, the other services at 50 %; the variable overrides both", async (t) => {
  const { loadRunnerConfig } = await import("../../services/runner/config.js");
  const { commonEnv, loadConfig } = await import("../../shared/config.js");
  const env = { NATS_URL: "nats://127.0.0.1:4222" };
  t.equal(loadRunnerConfig(env).INQUEST_HEAP_GROWTH, 20);
  t.equal(loadConfig(commonEnv, env).INQUEST_HEAP_GROWTH, 50);
  t.equal(loadRunnerConfig({ ...env, INQUEST_HEAP_GROWTH: "50" }).INQUEST_HEAP_GROWTH, 50);
  t.throws(() => loadRunnerConfig({ ...env, INQUEST_HEAP_GROWTH: "500" }), /INQUEST_HEAP_GROWTH/);
});
