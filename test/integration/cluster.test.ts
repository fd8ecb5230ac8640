// `inquest up --cluster` (make cluster) as an operator runs it: three clustered nats-servers on loopback, every
// stream and bucket with 3 replicas, two replicas of every service. An investigation triggered on one gateway is
// read on the other; with one NATS node killed the cluster keeps accepting and completing work; Ctrl-C (SIGTERM)
// stops everything.
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import tap, { test } from "tap";
import { jetstreamManager } from "@nats-io/jetstream";
import { STREAMS } from "../../shared/nats/catalog.js";
import { connectTo } from "../helpers/nats.js";
import { cliAsync } from "../helpers/cli.js";
import { DIST, tempDir } from "../helpers/services.js";
import { api, eventually } from "../helpers/stack.js";

// Three NATS nodes and nine services start, twice an investigation, a node killed: longer than the suite's per-file limit (.taprc), which only the root test can raise.
tap.setTimeout(300_000);

test("make cluster: 3 NATS nodes with R3, two of every service, survives a NATS node's death", async (t) => {
  const dir = tempDir("inquest-cluster-");
  t.teardown(() => dir.remove());
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up", "--cluster"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dir.path, INQUEST_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.teardown(() => {
    if (!t.passing()) t.comment(`the cluster's last output:\n${out.slice(-6_000)}`);
    if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  });
  const urls = await eventually(async () => /base URL:\s+(\S+)\s+(\S+)\n/.exec(out)?.slice(1, 3), 90_000, 200);
  const [gw1, gw2] = urls as [string, string];
  const key = /API key:\s+(\S+)/.exec(out)?.[1] ?? "";
  const natsUrl = /NATS URL:\s+(\S+) \(embedded, 3 clustered nodes/.exec(out)?.[1] ?? "";
  t.equal(natsUrl.split(",").length, 3, "three NATS nodes");
  t.not(gw1, gw2, "two gateways on their own ports");
  t.equal((out.match(/(runner|ticker|dispatcher)-\d http:\/\/127\.0\.0\.1:\d+/g) ?? []).length, 6, "two of each worker, each with its ops port");

  // The embedded cluster requires nkey users: without one a client is refused; the services' seed lets it in.
  await t.rejects(connectTo(natsUrl), "a client without credentials is refused");
  const nc = await connectTo(natsUrl, join(dir.path, "nats-cluster", "auth", "services.nk"));
  t.teardown(() => nc.close());
  // The CLI beside it needs no flags: it reads the URL and the seed `up` wrote into the data dir.
  const listed = await cliAsync(["keys", "list"], { INQUEST_DATA_DIR: dir.path });
  t.equal(listed.status, 0, `inquest keys list with only the data dir: ${listed.stderr.slice(0, 300)}`);
  const jsm = await jetstreamManager(nc);
  for (const s of Object.values(STREAMS)) t.equal((await jsm.streams.info(s.name)).config.num_replicas, 3, `${s.name} has 3 replicas`);

  /** Triggers a live run on `via` and reads it on `readVia` until it completes; up to `runs` runs until one has findings. */
  const ask = async (via: string, readVia: string, what: string, runs = 1) => {
    for (let run = 1; ; run++) {
      // While the cluster moves leaders a client may meet 503 with Retry-After (never another 5xx): it retries.
      const unavailable: string[] = [];
      const posted = await eventually(async () => {
        const r = await api(via, "POST", "/v1/investigations", { key, body: { query: "are any prod hosts running processes that listen on unexpected ports?", mode: "live" } });
        if (r.status === 202) return r;
        unavailable.push(`${r.status} retry-after=${r.headers.get("retry-after")}`);
        return undefined;
      }, 30_000, 500);
      t.ok(unavailable.every((u) => /^503 retry-after=\d+$/.test(u)), `${what}: accepted; before that only 503 with Retry-After (${unavailable.length})`);
      const done = await eventually(async () => {
        const r = await api(readVia, "GET", `/v1/investigations/${posted.json.investigation_id}`, { key });
        return r.status === 200 && r.json.status === "completed" ? r.json : undefined;
      }, 30_000);
      const gaps = (done.report?.coverage_gaps ?? []).slice(0, 3).join(" ");
      if (done.findings.length > 0 || run >= runs) {
        t.ok(done.findings.length > 0, `${what}: completed with findings from the demo fleet (run ${run}; ${gaps || "no coverage gaps"})`);
        return;
      }
      t.comment(`${what}: run ${run} completed without findings while the fleet reconnected (${gaps})`);
    }
  };
  await ask(gw1, gw2, "triggered on gateway 1, read on gateway 2");

  const victim = execFileSync("pgrep", ["-f", join(dir.path, "nats-cluster", "nats-2.conf")], { encoding: "utf8" }).trim().split("\n")[0] as string;
  process.kill(Number(victim), "SIGKILL");
  // Agents connected to the dead node reconnect to another within seconds; a live run that starts before they
  // have answers them as unreachable (a coverage gap, not a failure). One of three runs must find the fleet again.
  await ask(gw2, gw1, "with one NATS node dead", 3);

  process.kill(child.pid as number, "SIGTERM");
  t.equal(await exited, 0, "stops cleanly on SIGTERM");
});
