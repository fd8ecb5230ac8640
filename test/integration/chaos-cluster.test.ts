// The cluster `make chaos` starts (scripts/chaos/cluster.ts) when its start fails, and its stop with a node gone: what
// was spawned is stopped either way, so the run's directory is never deleted under a running nats-server.
import { join } from "node:path";
import { test } from "tap";
import { startChaosCluster, stopChildren } from "../../scripts/chaos/cluster.js";
import { spawnChild } from "../../scripts/dev/processes.js";
import { hangingNats, running } from "../helpers/hanging-nats.js";
import { tempDir } from "../helpers/services.js";

test("a NATS node that never opens its port: the start fails and stops the nodes it spawned", async (t) => {
  const dir = tempDir("inquest-chaos-start-");
  const nats = hangingNats(dir.path);
  const before = process.env.NATS_SERVER_BIN;
  process.env.NATS_SERVER_BIN = nats.bin;
  t.teardown(() => {
    if (before === undefined) delete process.env.NATS_SERVER_BIN;
    else process.env.NATS_SERVER_BIN = before;
    for (const pid of nats.pids()) if (running(pid)) process.kill(pid, "SIGKILL");
    dir.remove();
  });
  await t.rejects(startChaosCluster(join(dir.path, "run")), /did not open port/);
  t.equal(nats.pids().length, 3, "three nodes were spawned");
  t.same(nats.pids().filter(running), [], "none is left running");
});

test("stopping a process that already exited (a killed node) does not keep the others from stopping", async (t) => {
  const env = { PATH: process.env.PATH ?? "" };
  const dead = spawnChild("dead", "sh", ["-c", "exit 0"], { env });
  await new Promise((resolve) => dead.proc.once("exit", resolve));
  const live = spawnChild("live", "sleep", ["300"], { env });
  const frozen = spawnChild("frozen", "sh", ["-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"], { env });
  t.teardown(() => void [live, frozen].forEach((c) => c.kill("SIGKILL")));
  frozen.proc.kill("SIGSTOP");
  await stopChildren([dead, live, frozen]);
  t.not(live.proc.exitCode ?? live.proc.signalCode, null, "the live one is stopped");
  t.not(frozen.proc.exitCode ?? frozen.proc.signalCode, null, "the frozen one is thawed and stopped");
});
