import { commonEnv, duration, int, loadConfig, opsEnv } from "../../shared/config.js";

export const runnerEnv = {
  ...commonEnv,
  ...opsEnv,
  // Lower than the other services' 50: a run over 10,000 hosts promotes many short-lived objects, and at 20 % the
  // runner's peak fell by 20-30 MiB for runs about 5-10 % slower (docs/operations.md#memory).
  INQUEST_HEAP_GROWTH: int(20, 0, 400, "how far (%) the heap may grow past what the last full GC kept; 0 = V8's own choice"),
  INQUEST_RUNNER_CONCURRENCY: int(4, 1, 256, "investigations one runner works on at once"),
  INQUEST_RUNNER_ACK_WAIT: duration("30s", "how long a silent runner keeps a run before another takes it over"),
  INQUEST_ENGINE_WORKERS: int(2, 1, 64, "engine worker threads per runner at most (evaluations at once; one kept ready, more while evaluations overlap)"),
  INQUEST_ENGINE_TIME_LIMIT: duration("2m", "how long one unit of an evaluation's work (a batch of hosts, its finish) may hold an engine worker before the worker is stopped and that run fails (evaluation_timeout)"),
  INQUEST_PLAN_TIMEOUT: duration("10s", "live plan deadline at depth standard (quick: half, deep: double)"),
  INQUEST_FINDINGS_INLINE: int(100, 1, 1000, "findings an investigation's detail carries at most (the most severe); all are at /findings"),
  INQUEST_FINDINGS_CHUNK_BYTES: int(262_144, 1024, 524_288, "bytes of findings JSON per entry of the findings bucket at most"),
  INQUEST_LIVENESS_INTERVAL: duration("2s", "how often missed agent heartbeats are checked"),
};

export function loadRunnerConfig(env: Record<string, string | undefined>) {
  return loadConfig(runnerEnv, env);
}
