// The bench's load generator: autocannon in a child process (bench/autocannon-worker.ts), so that the
// generator is not the bottleneck (the node:http loop of bench/http-load.ts caps near 40k req/s here).
import { join } from "node:path";
import type { AutocannonJob } from "./autocannon-worker.js";
import type { LoadResult } from "./http-load.js";
import { DIST, type Resources } from "./investigations.js";

export async function autocannonLoad(res: Resources, job: AutocannonJob): Promise<LoadResult> {
  const child = res.spawn("autocannon", process.execPath, [join(DIST, "bench", "autocannon-worker.js"), JSON.stringify(job)], { PATH: process.env.PATH ?? "" });
  const line = await child.line("RESULT=", job.warmupMs + job.durationMs + 30_000);
  await child.stop();
  return JSON.parse(line) as LoadResult;
}
