// Ctrl-C in the terminal that runs `inquest up` (make run) sends SIGINT to the whole foreground process group, not
// to `up` alone. Every service must still stop while NATS is up (consumers end their pulls, the last writes land),
// and only then NATS; and closing the terminal (SIGHUP to the group) must leave nothing running.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test, type Test } from "tap";
import { childrenOf } from "../helpers/children.js";
import { running } from "../helpers/hanging-nats.js";
import { DIST, tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";


/** `inquest up` as a shell runs a job: the leader of its own process group. Resolves once it says it is running. */
async function upInItsOwnGroup(t: Test) {
  const dir = tempDir("inquest-up-ctrl-c-");
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dir.path, INQUEST_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await eventually(async () => (/Ctrl-C stops everything/.test(out) ? true : undefined), 60_000);
  const started = childrenOf(child.pid as number);
  t.teardown(() => {
    for (const p of started) if (running(p.pid)) process.kill(p.pid, "SIGKILL");
    if (child.exitCode === null) child.kill("SIGKILL");
    dir.remove();
  });
  return { group: child.pid as number, started, exited, out: () => out };
}

test("Ctrl-C (SIGINT to the whole group): the services stop while NATS is still up, then NATS", async (t) => {
  const up = await upInItsOwnGroup(t);
  t.ok(up.started.some((p) => /nats-server/.test(p.cmd)), "an embedded nats-server runs");
  const before = up.out().length;
  process.kill(-up.group, "SIGINT");
  t.equal(await up.exited, 0, "up exits 0");
  const stopping = up.out().slice(before);
  t.notMatch(stopping, /server shutdown/, "no consumer lost its server while stopping");
  t.notMatch(stopping, /NATS disconnected/, "no service saw NATS go away before it stopped");
  await eventually(async () => (up.started.every((p) => !running(p.pid)) ? true : undefined), 10_000, 100).catch(() => undefined);
  t.same(up.started.filter((p) => running(p.pid)).map((p) => p.cmd), [], "nothing is left running");
});

test("closing the terminal (SIGHUP to the group) leaves nothing running", async (t) => {
  const up = await upInItsOwnGroup(t);
  process.kill(-up.group, "SIGHUP");
  await up.exited;
  await eventually(async () => (up.started.every((p) => !running(p.pid)) ? true : undefined), 15_000, 100).catch(() => undefined);
  t.same(up.started.filter((p) => running(p.pid)).map((p) => p.cmd), [], "nothing is left running");
});

test("an impatient second Ctrl-C while stopping still leaves nothing running", async (t) => {
  const up = await upInItsOwnGroup(t);
  process.kill(-up.group, "SIGINT");
  // The second press comes while the services stop (that takes about 100 ms here, so it comes soon). A group that
  // stopped first has nothing left to interrupt: ESRCH is that, not a failure.
  await new Promise((r) => setTimeout(r, 10));
  try {
    process.kill(-up.group, "SIGINT");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    t.comment("every process had stopped before the second Ctrl-C");
  }
  await up.exited;
  await eventually(async () => (up.started.every((p) => !running(p.pid)) ? true : undefined), 15_000, 100).catch(() => undefined);
  t.same(up.started.filter((p) => running(p.pid)).map((p) => p.cmd), [], "nothing is left running");
});
