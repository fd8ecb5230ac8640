// A read model whose commits fail (the file may not grow: a full disk) logs the failure, keeps its checkpoint back
// for a replay, and goes on: the process must not die of lmdb's rejected write promises (it did: every write in a
// transaction, and the error's commitError, were unhandled rejections, so a full disk took the gateway down).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "tap";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

let nats: NatsServer;
test("setup", async () => {
  nats = await startNats();
});

test("a failed commit is logged and the process lives on", async (t) => {
  const dir = tempDir("inquest-full-disk-");
  const script = fileURLToPath(new URL("../helpers/readmodel-full-disk.js", import.meta.url));
  // 4 MiB at most per file: forty 200 KB documents do not fit.
  const run = spawnSync("bash", ["-c", `ulimit -f 4096; exec "${process.execPath}" "${script}" "$@"`, "full-disk", nats.url, dir.path, `full${Date.now()}`], { encoding: "utf8", timeout: 60_000 });
  t.equal(run.status, 0, `exits 0 (stderr: ${run.stderr.slice(0, 400)})`);
  t.match(run.stdout, /failed writes: [1-9]/, "commits failed, and said so");
  t.match(run.stdout, /alive/, "the process outlived them");
  dir.remove();
});

test("teardown", async () => {
  await nats.stop();
});
