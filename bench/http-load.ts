// A small closed-loop HTTP load generator on node:http: `concurrency` workers each send one request, wait
// for the whole response, and send the next, for `warmupMs + durationMs`. Only requests that START after
// the warm-up and FINISH before the end are measured. Loopback targets only; bounded in time and count.
import { Agent, request } from "node:http";

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** A fixed body sent with every request. */
  body?: string | Buffer;
  /** A body per request (`i` counts from 0 over the whole run, warm-up included); wins over `body`. */
  bodyFn?: (i: number) => string | Buffer;
  concurrency: number;
  durationMs: number;
  warmupMs?: number;
  /** Per-request timeout (a timed-out request counts as an error). Default 10 s. */
  timeoutMs?: number;
  /** Hard cap on the number of requests sent (warm-up included). Default 5,000,000. */
  maxRequests?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
  /** Measured window actually used (ms), from the end of the warm-up to the end of the run. */
  elapsed_ms: number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
const MAX_DURATION_MS = 120_000;

/** The value at quantile `q` (0..1) of ascending `sorted` (nearest rank); 0 when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length);
  const idx = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[idx] ?? 0;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.url);
  if (url.protocol !== "http:") throw new Error(`runLoad: only http: URLs (got ${url.protocol})`);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`runLoad: loopback targets only (got ${url.hostname})`);
  const concurrency = Math.max(1, Math.min(1024, Math.floor(opts.concurrency)));
  const durationMs = Math.max(1, Math.min(MAX_DURATION_MS, opts.durationMs));
  const warmupMs = Math.max(0, Math.min(MAX_DURATION_MS, opts.warmupMs ?? 0));
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxRequests = opts.maxRequests ?? 5_000_000;
  const method = opts.method ?? "GET";
  const path = `${url.pathname}${url.search}`;

  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const t0 = process.hrtime.bigint();
  const measureFrom = t0 + BigInt(warmupMs) * 1_000_000n;
  const endAt = measureFrom + BigInt(durationMs) * 1_000_000n;

  let sent = 0;
  let measured = 0;
  let errors = 0;
  const statuses: Record<string, number> = {};
  let samples = new Float64Array(65_536);

  const record = (startedAt: bigint, finishedAt: bigint, status: string, isError: boolean): void => {
    if (startedAt < measureFrom || finishedAt > endAt) return; // warm-up, or ran past the end
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (isError) errors++;
    if (status === "error") return; // no latency for a request that never got an answer
    if (measured === samples.length) {
      const bigger = new Float64Array(samples.length * 2);
      bigger.set(samples);
      samples = bigger;
    }
    samples[measured++] = Number(finishedAt - startedAt) / 1e6;
  };

  const once = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const payload = opts.bodyFn ? opts.bodyFn(i) : opts.body;
      const headers: Record<string, string | number> = { ...opts.headers };
      if (payload !== undefined) headers["content-length"] = Buffer.byteLength(payload);
      const startedAt = process.hrtime.bigint();
      let settled = false;
      const done = (status: string, isError: boolean): void => {
        if (settled) return;
        settled = true;
        record(startedAt, process.hrtime.bigint(), status, isError);
        resolve();
      };
      const req = request(
        { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port || 80, path, method, headers, agent, timeout: timeoutMs },
        (res) => {
          res.on("data", () => {});
          res.on("end", () => {
            const code = res.statusCode ?? 0;
            done(String(code), code >= 400 || code === 0);
          });
          res.on("error", () => done("error", true));
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => done("error", true));
      if (payload !== undefined) req.end(payload);
      else req.end();
    });

  const worker = async (): Promise<void> => {
    while (process.hrtime.bigint() < endAt && sent < maxRequests) {
      const i = sent++;
      await once(i);
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    agent.destroy();
  }

  const finishedAt = process.hrtime.bigint();
  const windowEnd = finishedAt < endAt ? finishedAt : endAt;
  const elapsedMs = Math.max(1, Number(windowEnd - measureFrom) / 1e6);
  const sorted = samples.subarray(0, measured).sort();
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    requests,
    errors,
    rps: Math.round((requests / elapsedMs) * 1000 * 10) / 10,
    p50_ms: round3(percentile(sorted, 0.5)),
    p99_ms: round3(percentile(sorted, 0.99)),
    statuses,
    elapsed_ms: Math.round(elapsedMs),
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
