// Periodic work in the runner never queues up behind a slow tick: the liveness sweep and the progress writes skip
// (or coalesce) ticks while one is in flight, so a slow bucket costs one write at a time, not a growing chain.
import { test } from "tap";
import type { JetStreamClient } from "@nats-io/jetstream";
import pino from "pino";
import type { AgentRecord } from "../../shared/agents/record.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import { startPeriodic } from "../../shared/periodic.js";
import { LivenessMonitor } from "../../services/runner/liveness.js";
import { startProgressFlusher } from "../../services/runner/progress.js";

const log = pino({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gate(): { wait: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

test("a liveness sweep slower than its interval skips the ticks meanwhile; stop() does not run a backlog of sweeps", async (t) => {
  const slow = gate();
  let sweeps = 0;
  const overdue: AgentRecord = {
    agent_id: "a-1", hostname: "a-1", tags: {}, edr_device_id: null, status: "online", registered_at: "2026-01-01T00:00:00.000Z",
    last_seen_at: "2026-01-01T00:00:00.000Z", snapshot_collected_at: null, heartbeat_interval_ms: 1_000,
  };
  const agents = {
    update: async () => {
      await slow.wait;
      return null;
    },
    get: async () => null,
  } as unknown as JsonKv<AgentRecord>;
  const monitor = new LivenessMonitor(
    {
      agents,
      listAgents: () => {
        sweeps++;
        return [overdue];
      },
      js: {} as JetStreamClient,
      clock: { now: () => Date.now() },
      log,
    },
    5,
  );
  await monitor.start();
  await sleep(300); // dozens of ticks while the first sweep waits on the bucket
  t.equal(sweeps, 1, "one sweep at a time");
  slow.open();
  await monitor.stop();
  t.ok(sweeps <= 2, `the ticks that came during the slow sweep were skipped, not queued (${sweeps} sweeps)`);
});

test("progress writes slower than their interval: one in flight, the changes meanwhile coalesce into one next write", async (t) => {
  const slow = gate();
  let writes = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const flusher = startProgressFlusher(
    async () => {
      writes++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (writes === 1) await slow.wait;
      inFlight--;
    },
    log,
    5,
  );
  const answers = setInterval(() => flusher.dirty(), 2);
  await sleep(300);
  clearInterval(answers);
  t.equal(writes, 1, "no second write starts while the first is in flight");
  slow.open();
  await flusher.stop();
  t.equal(maxInFlight, 1);
  t.ok(writes <= 3, `the first write, at most one coalesced follow-up, the final write (${writes} writes)`);
});

test("startPeriodic: runNow shares the run in flight; stop waits for it and ends the ticks", async (t) => {
  const slow = gate();
  let runs = 0;
  const p = startPeriodic(
    60_000,
    async () => {
      runs++;
      await slow.wait;
    },
    () => {},
  );
  const a = p.runNow();
  const b = p.runNow();
  t.equal(p.busy, true);
  slow.open();
  await Promise.all([a, b]);
  t.equal(runs, 1, "a call during a run joins it");
  await p.stop();
  await p.runNow();
  t.equal(runs, 1, "nothing runs after stop");
});
