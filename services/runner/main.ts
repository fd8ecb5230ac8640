// Runner wiring: work-queue consumer, agent liveness, shutdown.
import { AgentDirectory } from "../../shared/agents/directory.js";
import { systemClock } from "../../shared/clock.js";
import { connectService, runService } from "../../shared/service.js";
import { loadRunnerConfig } from "./config.js";
import { diffFindings, engine } from "./engine-adapter.js";
import { openCuriosityItems } from "../../shared/curiosity/catalog.js";
import { previousRunFindings } from "../../shared/curiosity/previous.js";
import type { CuriosityRecord } from "../../shared/curiosity/record.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { LivenessMonitor } from "./liveness.js";
import { Runner } from "./runner.js";

await runService("runner", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadRunnerConfig(process.env);
  const clock = systemClock;
  const { nc, life, rt } = await connectService("runner", config, log, register);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const curiosityItems = new JsonKv<CuriosityRecord>(await openCuriosityItems(nc));
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
      // Curiosity runs: findings the item's previous completed run did not report carry new_since_last_run.
      previousFindings: (record) => previousRunFindings({ items: curiosityItems, investigations: rt.investigations }, record),
      markNew: (previous, current) => diffFindings(previous, current).map((d) => d.is_new),
    },
    { concurrency: config.INQUEST_RUNNER_CONCURRENCY, ackWaitMs: config.INQUEST_RUNNER_ACK_WAIT, maxAttempts: 5 },
  );
  const liveness = new LivenessMonitor({ agents: rt.agents, listAgents: () => agents.list(), js: rt.js, clock, log }, config.INQUEST_LIVENESS_INTERVAL);
  await life.start([agents, liveness, runner]);
  log.info({ concurrency: config.INQUEST_RUNNER_CONCURRENCY }, "runner ready");
});
