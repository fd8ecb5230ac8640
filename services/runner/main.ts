// Runner wiring: engine worker threads, work-queue consumer, agent registry and liveness, shutdown.
import { AgentDirectory } from "../../shared/agents/directory.js";
import { DEFAULT_PRESENCE_WRITER, PresenceFollower, PresenceWriter } from "../../shared/agents/presence.js";
import { systemClock } from "../../shared/clock.js";
import { previousRunFindings } from "../../shared/curiosity/previous.js";
import { DEFAULT_FINDINGS_BOUNDS } from "../../shared/investigations/findings.js";
import { FindingsStore } from "../../shared/investigations/findings-store.js";
import { CONSUMERS } from "../../shared/nats/catalog.js";
import { Registry } from "../../shared/ops/metrics.js";
import { opsComponents } from "../../shared/ops/wire.js";
import { coreStreams } from "../../shared/runtime.js";
import { connectService, runService } from "../../shared/service.js";
import { loadRunnerConfig } from "./config.js";
import { routeQuery } from "./engine-adapter.js";
import { EnginePool } from "./engine-pool.js";
import { LivenessMonitor } from "./liveness.js";
import { agentMetrics, droppedReplyMetric, investigationMetrics, phaseMetrics, refusedMessageMetric } from "./metrics.js";
import { AgentRegistry } from "./registry.js";
import { Runner } from "./runner.js";

/** A run started this many times (its runners crashed) is marked failed instead of started again. */
const MAX_RUN_ATTEMPTS = 5;
/**
 * A run that stopped on an error this many times is marked failed. Retried after 1, 2, 4 ... 30 s (the runner's
 * errorRetry), so a NATS outage of several minutes fails no run.
 */
const MAX_RUN_ERRORS = 20;

await runService("runner", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadRunnerConfig(process.env);
  const clock = systemClock;
  const { nc, life, rt } = await connectService("runner", config, log, register);
  const findings = new FindingsStore(rt.buckets.findings);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const metrics = new Registry();
  const engine = new EnginePool({ size: config.INQUEST_ENGINE_WORKERS, workerUrl: new URL("./engine-worker.js", import.meta.url), timeLimitMs: config.INQUEST_ENGINE_TIME_LIMIT, log });
  const t = config.INQUEST_PLAN_TIMEOUT;
  const runner = new Runner(
    {
      nc,
      js: rt.js,
      jsm: rt.jsm,
      investigations: rt.investigations,
      findings,
      findingsBounds: { ...DEFAULT_FINDINGS_BOUNDS, inlineCount: config.INQUEST_FINDINGS_INLINE, chunkBytes: config.INQUEST_FINDINGS_CHUNK_BYTES },
      listAgents: () => agents.list(),
      engine: { routeQuery, open: (plan) => engine.open(plan) },
      clock,
      log,
      deadlines: { quick: Math.ceil(t / 2), standard: t, deep: t * 2 },
      leaseMs: config.INQUEST_RUNNER_ACK_WAIT,
      maxAttempts: MAX_RUN_ATTEMPTS,
      maxErrors: MAX_RUN_ERRORS,
      // Curiosity runs: findings the item's previous completed run did not report carry new_since_last_run.
      previousFindings: (record) => previousRunFindings(rt.investigations, record, findings),
      onSettled: investigationMetrics(metrics),
      onPhases: phaseMetrics(metrics),
    },
    { concurrency: config.INQUEST_RUNNER_CONCURRENCY, ackWaitMs: config.INQUEST_RUNNER_ACK_WAIT },
  );
  const presence = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock });
  const beats = new PresenceWriter(rt.js, DEFAULT_PRESENCE_WRITER, log);
  const liveness = new LivenessMonitor({ agents: rt.agents, listAgents: () => agents.list(), presence, js: rt.js, clock, log }, config.INQUEST_LIVENESS_INTERVAL);
  const registry = new AgentRegistry({ nc, js: rt.js, agents: rt.agents, known: (id) => agents.versioned(id), presence: beats, droppedReplies: droppedReplyMetric(metrics), refused: refusedMessageMetric(metrics), clock, log });
  agentMetrics(metrics, () => agents.list());
  const ops = opsComponents({ config, nc, rt, life, log, registry: metrics, streams: coreStreams, consumers: [CONSUMERS.runner] });
  await life.start([...ops, agents, presence, engine, beats, registry, liveness, runner]);
  log.info({ concurrency: config.INQUEST_RUNNER_CONCURRENCY, engine_workers: config.INQUEST_ENGINE_WORKERS }, "runner ready");
});
