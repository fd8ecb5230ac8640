// LD_PRELOAD with a bare library name: ld.so searches the process's LD_LIBRARY_PATH before the system directories,
// so a packaged allocator's name explains the preload only when that path holds system directories alone.
import { test } from "tap";
import { getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const hits = (h: HostData): DetectionHit[] => getDetection("ld-preload")?.evaluate(h, NO_ENTITIES) ?? [];
const redis = (envs: Array<[string, string]>) =>
  host({ process_envs: envs.map(([key, value]) => ({ pid: "7", key, value })), processes: [proc(7, "redis-server", "/usr/bin/redis-server", "redis-server *:6379")] });

test("a bare allocator name with no LD_LIBRARY_PATH, or one of system directories, is the package's", async (t) => {
  for (const envs of [[["LD_PRELOAD", "libjemalloc.so.2"]], [["LD_PRELOAD", "libjemalloc.so.2"], ["LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu"]]] as Array<Array<[string, string]>>) {
    const h = hits(redis(envs));
    t.equal(h.length, 1);
    t.equal(h[0]?.kept_by, "preload:jemalloc", JSON.stringify(envs));
  }
});

test("the same bare name with LD_LIBRARY_PATH in a hidden or temp directory is a finding naming that directory", async (t) => {
  const h = hits(redis([["LD_PRELOAD", "libjemalloc.so.2"], ["LD_LIBRARY_PATH", "/dev/shm/.cache"]]));
  t.equal(h.length, 1);
  t.equal(h[0]?.kept_by, undefined, "not explained");
  t.equal(h[0]?.severity, undefined, "the detection's own severity (high): the library is wherever that directory says");
  t.match(h[0]?.summary, /LD_LIBRARY_PATH=\/dev\/shm\/\.cache/);
  t.ok(h[0]?.evidence.some((e) => e.row.key === "LD_LIBRARY_PATH"), "the path's row is evidence");
  const elsewhere = hits(redis([["LD_PRELOAD", "libjemalloc.so.2"], ["LD_LIBRARY_PATH", "/opt/app/lib"]]));
  t.equal(elsewhere[0]?.kept_by, undefined, "an application directory: not the package's either");
  t.equal(elsewhere[0]?.severity, "medium", "but not a temp, home or hidden one");
});

test("a full path is not searched for: LD_LIBRARY_PATH does not change it", async (t) => {
  const h = hits(redis([["LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"], ["LD_LIBRARY_PATH", "/tmp/lib"]]));
  t.equal(h[0]?.kept_by, "preload:jemalloc");
});

test("an LD_LIBRARY_PATH at the agent's 4096-character cut may hide its last entries: not the package's", async (t) => {
  const long = `${"/usr/lib/x86_64-linux-gnu/nonexistent:".repeat(120)}`.slice(0, 4096);
  t.equal(hits(redis([["LD_PRELOAD", "libjemalloc.so.2"], ["LD_LIBRARY_PATH", long]]))[0]?.kept_by, undefined);
});
