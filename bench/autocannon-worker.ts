// Runs autocannon in its own process (so the load generator never shares an event loop or a core's time
// slice with the bench driver): argv[2] is the JSON of AutocannonJob; prints one line `RESULT=<json>` with a
// LoadResult. A warm-up run (not counted) precedes the measured run. Loopback targets only.
import { createRequire } from "node:module";
import type { LoadResult } from "./http-load.js";

export interface AutocannonJob {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
}

interface AcResult {
  latency: { p50: number; p99: number };
  requests: { average: number; total: number };
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AcResult>;

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as Autocannon;

const job = JSON.parse(process.argv[2] ?? "{}") as AutocannonJob;
const host = new URL(job.url).hostname;
if (!["127.0.0.1", "localhost", "[::1]"].includes(host)) throw new Error(`loopback targets only (got ${host})`);

const base = { url: job.url, method: job.method, headers: job.headers, body: job.body, connections: job.connections, timeout: 10 };
if (job.warmupMs > 0) await autocannon({ ...base, duration: job.warmupMs / 1000 });
const r = await autocannon({ ...base, duration: job.durationMs / 1000 });
const statuses: Record<string, number> = {};
let bad = 0;
for (const [code, s] of Object.entries(r.statusCodeStats)) {
  statuses[code] = s.count;
  if (Number(code) >= 400) bad += s.count;
}
if (r.errors > 0) statuses.error = r.errors;
const result: LoadResult = {
  requests: Object.values(statuses).reduce((a, b) => a + b, 0),
  errors: r.errors + bad,
  rps: Math.round(r.requests.average * 10) / 10,
  p50_ms: r.latency.p50,
  p99_ms: r.latency.p99,
  statuses,
  elapsed_ms: Math.round(r.duration * 1000),
};
process.stdout.write(`RESULT=${JSON.stringify(result)}\n`);
process.exit(0);
