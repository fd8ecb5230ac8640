// `inquest up --cluster` whose NATS does not come up: one node hangs (a nats-server wrapper that never opens its
// port). Whether the start fails on its own or is stopped by SIGTERM meanwhile, no nats-server it started is left.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "tap";
import { hangingNats, running } from "../helpers/hanging-nats.js";
import { DIST, tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";

function up(dataDir: string, bin: string) {
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up", "--cluster"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dataDir, INQUEST_PORT: "0", LOG_LEVEL: "warn", NATS_SERVER_BIN: bin },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => out };
}

test("a node that never opens its port: up fails and stops the nodes it started", async (t) => {
  const dir = tempDir("inquest-up-fail-");
  const nats = hangingNats(dir.path);
  t.teardown(() => {
    for (const pid of nats.pids()) if (running(pid)) process.kill(pid, "SIGKILL");
    dir.remove();
  });
  const run = up(join(dir.path, "data"), nats.bin);
  const code = await run.exited;
  t.not(code, 0, "up fails");
  t.match(run.output(), /did not open port/, "saying why");
  t.equal(nats.pids().length, 3, "three nodes were started");
  t.same(nats.pids().filter(running), [], "none is left running");
});

test("SIGTERM while the cluster is still starting stops the nodes already started", async (t) => {
  const dir = tempDir("inquest-up-term-");
  const nats = hangingNats(dir.path);
  t.teardown(() => {
    for (const pid of nats.pids()) if (running(pid)) process.kill(pid, "SIGKILL");
    dir.remove();
  });
  const run = up(join(dir.path, "data"), nats.bin);
  await eventually(async () => (nats.pids().length === 3 ? true : undefined), 10_000, 50);
  run.child.kill("SIGTERM");
  await run.exited;
  await eventually(async () => (nats.pids().filter(running).length === 0 ? true : undefined), 10_000, 100).catch(() => undefined);
  t.same(nats.pids().filter(running), [], "no node is left running");
});
