// `make bench-fleet`: live investigations over a large simulated fleet (default 10,000 agents, every one with a
// finding), writing bench/fleet.md. A real nats-server, the compiled gateway, runner and agent (fleet simulator,
// services/agent/fleet.ts) as child processes; everything is stopped and removed at the end, on failure and on
// Ctrl-C too. Targets (issue 10): p50 < 2 s per live investigation, runner peak RSS < 150 MiB, simulator < 300 MiB.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunPhases } from "../services/runner/execute.js";
import { cpuSeconds, natsServerVersion, peakRssKb, rssKb, startService } from "./investigations.js";
import { benchProcess, envInt, jsonClient, mib, pct, startCore, waitFor } from "./scale-harness.js";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/bench
const RESULTS = resolve(HERE, "..", "..", "bench", "fleet.md");
const KEY = `inq_bench_${randomBytes(24).toString("hex")}`;
const QUESTION = "are any hosts running processes that listen on unexpected ports?";

const AGENTS = envInt("BENCH_FLEET_AGENTS", 10_000);
const RUNS = envInt("BENCH_FLEET_RUNS", 5);
const RUN_LIMIT_MS = envInt("BENCH_FLEET_RUN_LIMIT_MS", 120_000);
/** How long the fleet is watched idle (online, heartbeating, no investigation) before the runs. */
const IDLE_MS = envInt("BENCH_FLEET_IDLE_MS", 10_000);
/** Service settings to try (INQUEST_ENGINE_WORKERS=1, INQUEST_HEARTBEAT_INTERVAL=30s, ...) reach every service; the results name them. */
const SETTINGS = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith("INQUEST_") && e[1] !== undefined));

const { log, res } = benchProcess("bench-fleet");

/** Every agent runs a backdoor listening on a port (a finding each); half are production hosts. */
function fleetFile(n: number): unknown {
  return {
    agents: Array.from({ length: n }, (_, i) => {
      const id = `sim-${String(i).padStart(5, "0")}`;
      return {
        agent_id: id,
        hostname: `${id}.example`,
        tags: { env: i % 2 === 0 ? "prod" : "dev", role: "web" },
        tables: {
          processes: [
            { pid: 4242, name: "kworker", path: "/tmp/.x/kworker", cmdline: "/tmp/.x/kworker -l 4444", uid: 33, parent: 1, on_disk: 1 },
            { pid: 80, name: "nginx", path: "/usr/sbin/nginx", cmdline: "nginx: master process", uid: 0, parent: 1, on_disk: 1 },
          ],
          listening_ports: [
            { pid: 4242, port: 4444, protocol: 6, address: "0.0.0.0" },
            { pid: 80, port: 443, protocol: 6, address: "0.0.0.0" },
          ],
        },
      };
    }),
  };
}

const http = jsonClient(KEY);

async function onlineAgents(baseUrl: string): Promise<{ registered: number; online: number }> {
  let online = 0;
  let registered = 0;
  let cursor: string | null = null;
  do {
    const r = await http("GET", `${baseUrl}/v1/agents?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    const agents = r.json.agents as Array<{ status: string }>;
    registered += agents.length;
    online += agents.filter((a) => a.status === "online").length;
    cursor = r.json.next_cursor;
  } while (cursor);
  return { registered, online };
}

interface Run {
  id: string;
  mode: string;
  status: string;
  ms: number;
  findingsTotal: number;
  detailBytes: number;
  agentsResponded: number;
}

function settingsLine(): string {
  const set = Object.entries(SETTINGS).map(([k, v]) => `${k}=${v}`);
  return set.length === 0 ? "default settings: 4 runs at once, 2 engine threads, heartbeats every 5 s" : `settings: ${set.join(", ")}`;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  // The runner logs at info so that each run's phase timings ("run ended") can be read from its output.
  const { nats, data, env, gateway, baseUrl, runner } = await startCore(res, "fleet", KEY, SETTINGS, "info");
  const fleetPath = join(data, "fleet.json");
  writeFileSync(fleetPath, JSON.stringify(fleetFile(AGENTS)));
  const agentStart = Date.now();
  const agent = startService(res, "agent", { ...env, INQUEST_FLEET_FILE: fleetPath });
  log(`${AGENTS} simulated agents starting (pid ${agent.proc.pid}); runner pid ${runner.proc.pid}`);
  // On a busy machine a few agents miss heartbeats and flap offline for a moment: 99% online is enough to start.
  // The simulator starts its agents one after another; if registrations stop growing for a minute the bench goes on
  // with the agents it has and says so in the results.
  let seen = { registered: 0, online: 0 };
  let grewAt = Date.now();
  await waitFor(`${AGENTS} agents online`, async () => {
    const now = await onlineAgents(baseUrl);
    if (now.registered > seen.registered) grewAt = Date.now();
    seen = now;
    log(`  ${seen.registered} registered, ${seen.online} online`);
    if (seen.registered >= AGENTS && seen.online >= AGENTS * 0.99) return true;
    return Date.now() - grewAt > 60_000 && seen.registered > 0 ? true : undefined;
  }, 900_000, 5_000);
  if (seen.registered < AGENTS) log(`registrations stalled at ${seen.registered} of ${AGENTS}: going on with them`);
  const onlineMs = Date.now() - agentStart;
  log(`all online in ${(onlineMs / 1000).toFixed(1)} s`);
  const idle = await idleCost({ runner: runner.proc.pid, simulator: agent.proc.pid, gateway: gateway.proc.pid, "nats-server": nats.proc.pid });
  log(`idle: ${idle.map((p) => `${p.name} ${p.cpuPct}% CPU, ${mib(p.rssKb)}`).join("; ")}`);

  const runs: Run[] = [];
  for (const mode of ["live", "cached"]) {
    for (let i = 0; i < RUNS; i++) {
      const started = Date.now();
      const r = await http("POST", `${baseUrl}/v1/investigations`, { query: QUESTION, mode });
      if (r.status !== 202) throw new Error(`trigger: ${r.status} ${JSON.stringify(r.json)}`);
      const id = r.json.investigation_id as string;
      // A run not terminal within the limit is recorded as it stands (status and progress), not thrown.
      let lastSeen = await http("GET", `${baseUrl}/v1/investigations/${id}`);
      const done = await waitFor(`investigation ${id}`, async () => {
        lastSeen = await http("GET", `${baseUrl}/v1/investigations/${id}`);
        return ["completed", "failed", "cancelled"].includes(lastSeen.json.status) ? lastSeen : undefined;
      }, RUN_LIMIT_MS, 20).catch(() => {
        log(`${mode} #${i + 1}: not terminal after ${RUN_LIMIT_MS} ms: ${lastSeen.json.status} ${JSON.stringify(lastSeen.json.progress)}`);
        return { ...lastSeen, json: { ...lastSeen.json, status: `${lastSeen.json.status} (limit)`, findings_total: 0 } };
      });
      const run = { id, mode, status: done.json.status as string, ms: Date.now() - started, findingsTotal: done.json.findings_total, detailBytes: done.bytes, agentsResponded: done.json.progress?.agents_responded ?? 0 };
      runs.push(run);
      log(`${mode} #${i + 1}: ${run.status} in ${run.ms} ms, ${run.findingsTotal} findings, detail ${run.detailBytes} bytes, ${run.agentsResponded} agents answered`);
    }
  }
  // Every finding of the last run through the paginated endpoint.
  const last = runs[runs.length - 1] as Run;
  const lastId = (await http("GET", `${baseUrl}/v1/investigations?limit=1`)).json.investigations[0].investigation_id as string;
  const pageStart = Date.now();
  let paged = 0;
  let pages = 0;
  let cursor: string | null = null;
  do {
    const p = await http("GET", `${baseUrl}/v1/investigations/${lastId}/findings?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    paged += (p.json.findings as unknown[]).length;
    cursor = p.json.next_cursor;
    pages += 1;
  } while (cursor);
  const pageMs = Date.now() - pageStart;
  log(`paged ${paged} findings in ${pages} pages, ${pageMs} ms`);

  const phases = runPhases(runner.output());
  // For a closer look (with BENCH_NODE_ARGS=--trace-gc, say): the runner's output, its tail when it was long.
  if (process.env.BENCH_FLEET_RUNNER_OUT) writeFileSync(process.env.BENCH_FLEET_RUNNER_OUT, runner.output());
  const rss = { runner: peakRssKb(runner.proc.pid), agent: peakRssKb(agent.proc.pid), gateway: peakRssKb(gateway.proc.pid), nats: peakRssKb(nats.proc.pid) };
  const live = runs.filter((r) => r.mode === "live");
  const cached = runs.filter((r) => r.mode === "cached");
  const ok = (xs: Run[]) => xs.filter((r) => r.status === "completed").length;
  const target = (v: number, limit: number) => (v < limit ? "met" : "**missed**");
  const md = `# Fleet-scale bench (\`make bench-fleet\`)

Measured ${new Date().toISOString()} on ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (a shared machine), Node ${process.version}, nats-server ${natsServerVersion()}.

One nats-server (JetStream, file store), one gateway, one runner (${settingsLine()}), one
agent process simulating ${AGENTS} agents (\`services/agent/fleet.ts\`), each with a backdoor listening on a port, so
every agent answers with rows that make a finding. Question: "${QUESTION}", ${RUNS} runs in each mode, one at a
time; time from the POST to the first GET that shows the run terminal (polled every 20 ms).

| | figure | target |
|---|---|---|
| agents registered / online when the runs started | ${seen.registered} / ${seen.online} of ${AGENTS}${seen.registered < AGENTS ? " (registrations stalled: see below)" : ""} | all ${AGENTS} |
| time to that point | ${(onlineMs / 1000).toFixed(1)} s | |
| live runs completed | ${ok(live)} / ${live.length} | all |
| live p50 / max | ${pct(live.map((r) => r.ms), 50)} ms / ${Math.max(...live.map((r) => r.ms))} ms | p50 < 2 s: ${target(pct(live.map((r) => r.ms), 50), 2000)} |
| cached runs completed | ${ok(cached)} / ${cached.length} | all |
| cached p50 / max | ${pct(cached.map((r) => r.ms), 50)} ms / ${Math.max(...cached.map((r) => r.ms))} ms | |
| findings per run (\`findings_total\`) | ${last.findingsTotal} | |
| \`GET /v1/investigations/{id}\` body | ${last.detailBytes} bytes | bounded |
| all findings through \`/findings\` (limit 200) | ${paged} in ${pages} pages, ${pageMs} ms | = findings_total |
| runner peak RSS (VmHWM) | ${mib(rss.runner)} | < 150 MiB: ${rss.runner === null ? "n/a" : target(rss.runner / 1024, 150)} |
| simulator peak RSS | ${mib(rss.agent)} | < 300 MiB: ${rss.agent === null ? "n/a" : target(rss.agent / 1024, 300)} |
| gateway peak RSS | ${mib(rss.gateway)} | |
| nats-server peak RSS | ${mib(rss.nats)} | |

The fleet idle (every agent online and heartbeating, no investigation), over ${IDLE_MS / 1000} s before the runs:

| process | CPU (% of one core) | RSS |
|---|---|---|
${idle.map((p) => `| ${p.name} | ${p.cpuPct} | ${mib(p.rssKb)} |`).join("\n")}

Runs:

| mode | status | ms | findings | detail bytes | agents answered | runner phases, ms: collect / evaluate / store (then announce) |
|---|---|---|---|---|---|---|
${runs.map((r) => `| ${r.mode} | ${r.status} | ${r.ms} | ${r.findingsTotal} | ${r.detailBytes} | ${r.agentsResponded} | ${phaseCell(phases.get(r.id))} |`).join("\n")}

The phases come from the runner's own "run ended" log line: the time between the POST and the end of store that
they do not cover is the trigger, the queue and the poll.

Whole bench: ${((Date.now() - t0) / 1000).toFixed(0)} s.
`;
  writeFileSync(RESULTS, md);
  log(`wrote ${RESULTS}`);
}

/** Each process's CPU use (% of one core) over IDLE_MS, and its RSS at the end of it. */
async function idleCost(pids: Record<string, number | undefined>): Promise<Array<{ name: string; cpuPct: string; rssKb: number | null }>> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  await new Promise((r) => setTimeout(r, IDLE_MS));
  return Object.entries(pids).map(([name, pid]) => {
    const start = before[name];
    const end = cpuSeconds(pid);
    const cpuPct = start == null || end === null ? "n/a" : (((end - start) / (IDLE_MS / 1000)) * 100).toFixed(0);
    return { name, cpuPct, rssKb: rssKb(pid) };
  });
}

/** The phase timings of each run, by investigation, from the runner's JSON log lines ("run ended"). */
function runPhases(output: string): Map<string, RunPhases> {
  const out = new Map<string, RunPhases>();
  for (const line of output.split("\n")) {
    if (!line.includes('"run ended"')) continue;
    try {
      const entry = JSON.parse(line) as { investigation_id?: string; phases_ms?: RunPhases };
      if (entry.investigation_id && entry.phases_ms) out.set(entry.investigation_id, entry.phases_ms);
    } catch {
      // not a whole JSON line (output interleaved): skipped
    }
  }
  return out;
}

const phaseCell = (p: RunPhases | undefined): string => (p ? `${p.collect} / ${p.evaluate} / ${p.store} (${p.announce})` : "n/a");

try {
  await main();
} finally {
  await res.cleanup();
}
