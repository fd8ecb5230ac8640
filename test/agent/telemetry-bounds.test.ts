// The bounds of one collection on a host whose state is hostile or unusual: a source that never finishes, a process
// with a great many descriptors, a huge shell history. Each is a real file tree in a temporary root.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type Test } from "tap";
import { collectLinux } from "../../services/agent/telemetry/linux.js";
import { DOCKER_SOCKET } from "../../services/agent/telemetry/containers.js";
import { hangingDocker } from "../helpers/hanging-docker.js";

/** A fake root with one user, m (home /home/m); removed after the test. */
function fakeRoot(t: Test): { root: string; at(rel: string): string } {
  // Short: a unix socket's path must fit in 108 bytes.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inq-bounds-"));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const at = (rel: string) => path.join(root, rel);
  fs.mkdirSync(at("etc"), { recursive: true });
  fs.mkdirSync(at("home/m"), { recursive: true });
  fs.writeFileSync(at("etc/passwd"), "m:x:1000:1000::/home/m:/bin/bash\n");
  return { root, at };
}

const within = <T>(ms: number, work: Promise<T>): Promise<T | "still running"> =>
  Promise.race([work, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref())]);

test("a scan stops at its time budget: finished tables are sent, one still being read comes back empty and named", async (t) => {
  const { root, at } = fakeRoot(t);
  const docker = await hangingDocker(at(DOCKER_SOCKET));
  t.teardown(() => docker.close());
  const cut: string[] = [];
  const opts = { root, budgetMs: 500, onCapped: (table: string) => cut.push(table) };
  const started = Date.now();
  const result = await within(10_000, collectLinux(["docker_containers", "users"], opts));
  if (result === "still running") return t.fail("the scan was still running after 10 s (a Docker socket that never finishes its answer)");
  t.ok(Date.now() - started < 3_000, `returned after ${Date.now() - started} ms`);
  t.equal(result.users?.length, 1, "the finished table is sent");
  t.same(result.docker_containers, [], "the unfinished table is empty");
  t.same(cut, ["docker_containers"], "and named: its rows are partial");
});
