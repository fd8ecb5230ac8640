// Ticker wiring: the curiosity queue's scheduler. Any number of replicas; the one holding the lease runs items.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { AgentDirectory } from "../../shared/agents/directory.js";
import { systemClock } from "../../shared/clock.js";
import { CURIOSITY_BUCKETS, openCuriosityItems, openTickerLease } from "../../shared/curiosity/catalog.js";
import { CuriosityStore } from "../../shared/curiosity/store.js";
import { triggerDeps } from "../../shared/investigations/trigger-deps.js";
import { connectService, runService } from "../../shared/service.js";
import { Registry } from "../../shared/ops/metrics.js";
import { opsComponents } from "../../shared/ops/wire.js";
import { bucketStream, coreStreams } from "../../shared/runtime.js";
import { loadTickerConfig } from "./config.js";
import { tickerMetrics } from "./metrics.js";
import { LeaderLease } from "./leader.js";
import { CuriosityTicker } from "./ticker.js";

/** How late the leader may be before a standby steps in (services/ticker/standby.ts): well inside the 1 s promise. */
const STANDBY_GRACE_MS = 400;
/**
 * How long the ticker's NATS requests wait for an answer (the client's default: 5 s). A request to a stream whose
 * leader died is never answered; the step fails when it times out and is tried again at once (ticker.ts), by then
 * against the new leader. With 5 s, a NATS node killed made every run due meanwhile 6 s late (bench/chaos.md).
 */
const REQUEST_TIMEOUT_MS = 2_000;

await runService("ticker", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadTickerConfig(process.env);
  const clock = systemClock;
  const timeouts = { requestTimeoutMs: REQUEST_TIMEOUT_MS };
  const { nc, life, rt } = await connectService("ticker", config, log, register, timeouts);
  const items = await openCuriosityItems(nc, rt.replicas, timeouts);
  const leaseKv = await openTickerLease(nc, rt.replicas, timeouts);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  let ticker: CuriosityTicker | null = null;
  const registry = new Registry();
  const lease = new LeaderLease({ kv: leaseKv, ttlMs: CURIOSITY_BUCKETS.leader.ttl, holder, log, onChange: () => ticker?.kick() });
  ticker = new CuriosityTicker(
    {
      nc,
      items,
      isLeader: () => lease.isLeader(),
      store: new CuriosityStore(items),
      investigations: rt.investigations,
      trigger: triggerDeps({ rt, listAgents: () => agents.list(), maxBacklog: config.INQUEST_MAX_BACKLOG, clock }),
      clock,
      log,
      metrics: tickerMetrics(registry, () => lease.isLeader()),
    },
    { maxIdleMs: 250, sweepMs: 1_000, concurrency: 32, standbyGraceMs: STANDBY_GRACE_MS },
  );
  const streams = () => [...coreStreams(), bucketStream(CURIOSITY_BUCKETS.items.name), bucketStream(CURIOSITY_BUCKETS.leader.name)];
  await life.start([...opsComponents({ config, nc, rt, life, log, registry, streams, consumers: [] }), agents, lease, ticker]);
  log.info({ holder }, "ticker ready");
});
