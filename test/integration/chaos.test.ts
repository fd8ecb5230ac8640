// The short chaos run (one fault of each kind) as `make test` runs it: a 3-node NATS cluster with two replicas of
// every service under steady load while a gateway, a runner, a ticker and a dispatcher are each killed with
// SIGKILL and restarted, one NATS node is killed and restarted and one is frozen. The run itself checks that nothing
// was lost (docs/operations.md#chaos); this test holds it to its exit code and its report.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import tap, { test } from "tap";
import { DIST, tempDir } from "../helpers/services.js";

// Start, 60 s of load, up to 2 minutes to settle, stop: longer than the suite's per-file limit (.taprc), which only the root test can raise.
tap.setTimeout(420_000);

test("make chaos --short: every fault recovered, nothing lost, no bad 5xx, no curiosity run doubled or skipped", async (t) => {
  const dir = tempDir("inquest-chaos-test-");
  t.teardown(() => dir.remove());
  const out = join(dir.path, "chaos.md");
  const child = spawn(process.execPath, [join(DIST, "scripts", "chaos", "main.js"), "--short", "--out", out], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const last = stdout.trim().split("\n").pop() ?? "";
  // What was lost and every process's log lines naming it (the report's "Lost" section), in the failure itself: the
  // run's directory goes with the test's, and a loss seen once in CI is otherwise not known beyond its count.
  const report = existsSync(out) ? readFileSync(out, "utf8") : "";
  const lostAt = report.indexOf("## Lost");
  const lostSection = lostAt < 0 ? "" : report.slice(lostAt, lostAt + 12_000);
  t.match(last, /^chaos: 6 faults, 0 lost, \d+ duplicates, 0 bad 5xx, 0 curiosity runs doubled, 0 skipped, [1-9]\d* investigations, [1-9]\d* deliveries, \d+ acknowledged NATS writes lost/, `${last}\n${lostSection}\n${stderr.slice(-3000)}`);
  // nats-server 2.9 under these faults has been seen to lose an acknowledged KV write (docs/operations.md#chaos-findings):
  // the run says so and exits 1; what Inquest itself loses must be nothing.
  const brokerLost = Number(/(\d+) acknowledged NATS writes lost/.exec(last)?.[1] ?? "0");
  if (brokerLost > 0) t.comment(`the broker lost ${brokerLost} acknowledged writes in this run (reported, not Inquest's loss)`);
  t.equal(code, brokerLost > 0 ? 1 : 0, "exit 0 unless the broker lost a write");
  for (const fault of ["kill-gateway", "kill-runner", "kill-ticker", "kill-dispatcher", "kill-nats", "freeze-nats"]) t.match(report, new RegExp(`\\| ${fault} \\|`), `${fault} in the report`);
});
