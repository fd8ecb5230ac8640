// Runner wiring: work-queue consumer, agent liveness, shutdown.
import { AgentDirectory } from "../../shared/agents/directory.js";
import { systemClock } from "../../shared/clock.js";
import { Lifecycle } from "../../shared/lifecycle.js";
import { connectNats } from "../../shared/nats/connect.js";
import { openRuntime } from "../../shared/runtime.js";
import { runService } from "../../shared/service.js";
import { loadRunnerConfig } from "./config.js";
import { engine } from "./engine-adapter.js";
import { LivenessMonitor } from "./liveness.js";
import { Runner } from "./runner.js";

await runService("runner", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadRunnerConfig(process.env);
  const clock = systemClock;
  const nc = await connectNats({ servers: config.NATS_URL, name: "inquest-runner", log });
  const life = new Lifecycle({ log, nc });
  register(life);
  const rt = await openRuntime(nc);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const t = config.INQUEST_PLAN_TIMEOUT;
  const runner = new Runner(
    {
      nc,
      js: rt.js,
      jsm: rt.jsm,
      investigations: rt.investigations,
      listAgents: () => agents.list(),
      engine,
      clock,
      log,
      publicUrl: config.INQUEST_PUBLIC_URL,
      deadlines: { quick: Math.ceil(t / 2), standard: t, deep: t * 2 },
    },
    { concurrency: config.INQUEST_RUNNER_CONCURRENCY, ackWaitMs: config.INQUEST_RUNNER_ACK_WAIT, maxAttempts: 5 },
  );
  const liveness = new LivenessMonitor({ agents: rt.agents, listAgents: () => agents.list(), js: rt.js, clock, log }, config.INQUEST_LIVENESS_INTERVAL);
  await life.start([agents, liveness, runner]);
  log.info({ concurrency: config.INQUEST_RUNNER_CONCURRENCY }, "runner ready");
});
