// `inquest up` keeps its services running as a supervisor would: a service killed once it is running is started
// again (`make cluster`'s chaos by hand, a crash in `make run`), and an `up` killed outright leaves its processes to
// the next `up` on the same data dir, which stops them before it starts (cli/leftovers.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { test, type Test } from "tap";
import { childrenOf } from "../helpers/children.js";
import { running } from "../helpers/hanging-nats.js";
import { DIST, tempDir } from "../helpers/services.js";
import { eventually } from "../helpers/stack.js";


interface Up {
  child: ChildProcess;
  out(): string;
  exited: Promise<number | null>;
}

async function up(t: Test, dataDir: string): Promise<Up> {
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dataDir, INQUEST_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.teardown(() => {
    for (const p of childrenOf(child.pid as number)) if (running(p.pid)) process.kill(p.pid, "SIGKILL");
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  await eventually(async () => (/Ctrl-C stops everything/.test(out) ? true : undefined), 60_000);
  return { child, out: () => out, exited };
}

test("a service killed once it is running is started again; up keeps running", async (t) => {
  const dir = tempDir("inquest-up-supervise-");
  t.teardown(() => dir.remove());
  const u = await up(t, dir.path);
  const monitor = /NATS monitoring: (http:\/\/127\.0\.0\.1:\d+\/healthz)/.exec(u.out())?.[1];
  if (t.ok(monitor, "the embedded NATS's monitoring URL is printed") && monitor) t.equal((await fetch(monitor)).status, 200, `${monitor} answers`);
  const runner = childrenOf(u.child.pid as number).find((p) => /services\/runner\/main\.js/.test(p.cmd));
  if (!t.ok(runner, "a runner runs") || !runner) return;
  process.kill(runner.pid, "SIGKILL");
  const again = await eventually(async () => childrenOf(u.child.pid as number).find((p) => /services\/runner\/main\.js/.test(p.cmd) && p.pid !== runner.pid), 15_000, 100);
  t.ok(again, `a new runner (pid ${again.pid})`);
  t.match(u.out(), /runner exited \(SIGKILL\); starting it again in 1s/);
  t.equal(u.child.exitCode, null, "up is still running");
  process.kill(-(u.child.pid as number), "SIGINT");
  t.equal(await u.exited, 0, "and stops cleanly after");
});

test("an up killed outright: the next up on its data dir stops what it left running, then starts", async (t) => {
  const dir = tempDir("inquest-up-leftovers-");
  t.teardown(() => dir.remove());
  const first = await up(t, dir.path);
  const left = childrenOf(first.child.pid as number);
  t.ok(left.some((p) => /nats-server/.test(p.cmd)) && left.some((p) => /services\/gateway/.test(p.cmd)), "NATS and the services run");
  first.child.kill("SIGKILL");
  await first.exited;
  t.ok(left.some((p) => running(p.pid)), "killed, up could not stop them");
  const second = await up(t, dir.path);
  t.match(second.out(), new RegExp(`stopped ${left.length} processes a previous \`inquest up\` on .* left running`));
  t.same(left.filter((p) => running(p.pid)).map((p) => p.cmd), [], "none of the first up's processes is left");
  process.kill(-(second.child.pid as number), "SIGINT");
  t.equal(await second.exited, 0);
});

test("a second up on the data dir of a running one refuses to start and stops nothing", async (t) => {
  const dir = tempDir("inquest-up-twice-");
  t.teardown(() => dir.remove());
  const first = await up(t, dir.path);
  const before = childrenOf(first.child.pid as number);
  const second = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dir.path, INQUEST_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  second.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => second.once("exit", (c) => resolve(c)));
  t.equal(code, 1, err);
  t.match(err, new RegExp(`another \`inquest up\` \\(pid ${first.child.pid}\\) is running on`));
  t.same(before.filter((p) => !running(p.pid)).map((p) => p.cmd), [], "the running stack is untouched");
  process.kill(-(first.child.pid as number), "SIGINT");
  t.equal(await first.exited, 0);
});
