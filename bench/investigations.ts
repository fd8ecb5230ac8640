// The investigation bench: a real nats-server (JetStream, temp store, free port), the compiled gateway and
// runner as child processes, and the raw uWebSockets.js hello-world as the ceiling. Everything it starts is
// registered in a `Resources` so that it is stopped and removed even when a step fails.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { canConnect, freePort } from "../shared/net.js";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { natsServerBin, spawnChild, type Child } from "../scripts/dev/processes.js";
import { createHash } from "node:crypto";
import type { LoadResult } from "./http-load.js";
import { serviceArgs, serviceEnv, type ServiceName } from "../shared/launch.js";
import { autocannonLoad } from "./load.js";

/** dist/ (this file runs from dist/bench). */
export const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const BENCH_KEY = `inq_bench_${randomBytes(24).toString("hex")}`;
export const CREATE_BODY = JSON.stringify({ query: "are any prod hosts listening on unexpected ports?", mode: "cached" });

export interface BenchSettings {
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

/** Defaults from the brief; BENCH_CONCURRENCY / BENCH_DURATION_MS / BENCH_WARMUP_MS override them for quick runs. */
export function benchSettings(env: Record<string, string | undefined> = process.env): BenchSettings {
  const num = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}: expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}`);
    return n;
  };
  return {
    concurrency: num("BENCH_CONCURRENCY", 32, 1, 1024),
    durationMs: num("BENCH_DURATION_MS", 10_000, 500, 60_000),
    warmupMs: num("BENCH_WARMUP_MS", 2_000, 0, 30_000),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Processes and temp dirs

export type { Child };

export class Resources {
  private readonly children: Child[] = [];
  private readonly dirs: string[] = [];

  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  spawn(label: string, command: string, args: string[], env: Record<string, string>): Child {
    const child = spawnChild(label, command, args, { env, maxOutputChars: 256 * 1024, lineTimeoutMs: 20_000 });
    this.children.push(child);
    return child;
  }

  /**
   * Stops every child, last started first (SIGTERM, SIGKILL after 5 s), so services drain while nats-server still
   * runs and a profiled service (BENCH_CPU_PROF) exits cleanly and writes its profile; then removes every temp dir.
   * Safe to call twice.
   */
  async cleanup(): Promise<void> {
    const children = this.children.splice(0);
    for (const c of children.reverse()) await c.stop();
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  /** Last-resort synchronous cleanup for process exit handlers. */
  killAllSync(): void {
    for (const c of this.children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    }
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export { freePort };

export { natsServerBin };

export function natsServerVersion(): string {
  try {
    const r = spawnSync(natsServerBin(), ["--version"], { encoding: "utf8", timeout: 5_000 });
    return (r.stdout || r.stderr).trim().replace(/^nats-server:\s*/, "") || "unknown";
  } catch {
    return "unknown";
  }
}

/** A kB figure of /proc/<pid>/status (VmHWM, VmRSS) of a live process, or null. */
function statusKb(pid: number | undefined, field: "VmHWM" | "VmRSS"): number | null {
  if (pid === undefined) return null;
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Peak resident set size (VmHWM) of a live process in KiB, or null. */
export const peakRssKb = (pid: number | undefined): number | null => statusKb(pid, "VmHWM");

/** A process's resident set now (VmRSS), in KiB, or null. */
export const rssKb = (pid: number | undefined): number | null => statusKb(pid, "VmRSS");

/** CPU seconds (user + system) a process has used so far, from /proc; null when it cannot be read. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticksPerSecond = 100; // USER_HZ on Linux
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** A process that exited instead of starting: waiting longer cannot help. */
class StartFailed extends Error {
  override name = "StartFailed";
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      if (err instanceof StartFailed) throw err;
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${String(last)})` : ""}`);
}

// ---------------------------------------------------------------------------------------------------------
// Starting things

async function startNats(res: Resources): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const store = res.tempDir("inquest-bench-nats-");
  const child = res.spawn("nats-server", natsServerBin(), ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], { PATH: process.env.PATH ?? "" });
  const url = `nats://127.0.0.1:${port}`;
  await waitFor(`nats-server on ${port}`, async () => {
    if (child.proc.exitCode !== null || child.output().includes("[spawn error]")) throw new StartFailed(`nats-server did not start: ${child.output()}`);
    return (await canConnect(port)) ? true : undefined;
  }, 10_000, 50);
  return { url, child };
}

/**
 * `BENCH_CPU_PROF=<dir>`: every service and peer runs with `--cpu-prof` into that directory (bench/README.md#profiles).
 * `BENCH_NODE_ARGS="<flags>"`: extra Node flags for every service and peer (say `--heapsnapshot-signal=SIGUSR2`).
 */
export function profileArgs(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  const extra = (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  return [...extra, ...(dir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(dir)}`, `--cpu-prof-name=${name}.${Date.now()}.cpuprofile`] : [])];
}

export function startService(res: Resources, name: ServiceName, env: Record<string, string>): Child {
  return res.spawn(name, process.execPath, [...profileArgs(name), ...serviceArgs(name, DIST)], serviceEnv(name, { PATH: process.env.PATH ?? "", ...env }));
}

/** The Fastify peer (bench/peers/fastify-app.ts); without a NATS url it serves only GET /hello. */
export async function startFastify(res: Resources, natsUrl: string | null): Promise<{ base: string; child: Child }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", PEER_BEARER_SHA256: createHash("sha256").update(BENCH_KEY).digest("hex") };
  if (natsUrl) env.NATS_URL = natsUrl;
  const child = res.spawn("fastify-peer", process.execPath, [...profileArgs("fastify-peer"), join(DIST, "bench", "peers", "fastify-app.js")], env);
  const port = await child.line("PORT=");
  return { base: `http://127.0.0.1:${port}`, child };
}

export async function startHello(res: Resources): Promise<{ url: string; child: Child; uws: string }> {
  const child = res.spawn("hello-uws", process.execPath, [join(DIST, "bench", "hello-uws.js"), "--exit-with-parent"], { PATH: process.env.PATH ?? "" });
  const port = await child.line("PORT=");
  const uws = await child.line("UWS=");
  return { url: `http://127.0.0.1:${port}/hello`, child, uws };
}

async function http(method: string, url: string, body?: string): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers: Record<string, string> = { authorization: `Bearer ${BENCH_KEY}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: r.status, json };
}

// ---------------------------------------------------------------------------------------------------------
// The bench

export interface InvestigationBench {
  settings: BenchSettings;
  create: LoadResult;
  get: LoadResult;
  ceiling: LoadResult;
  /** The Fastify peer (bench/peers/fastify-app.ts) on the same nats-server, same load. */
  peerCreate: LoadResult;
  peerGet: LoadResult;
  peerHello: LoadResult;
  /** uWS build the hello-world loaded (the gateway uses the same package). */
  uws: string;
  natsVersion: string;
  /** Status of the investigation read in (b) when the read bench started. */
  getTargetStatus: string;
  /** Investigations created in (a) that the runner had not finished when (a) ended (INQ_WORK messages), or null. */
  workQueueAfterCreate: number | null;
  /** VmHWM of each process at the end of the bench, KiB. */
  peakRssKb: { gateway: number | null; runner: number | null; nats: number | null; fastify: number | null };
  /** Wall time of the whole investigation bench. */
  wallMs: number;
}

export async function benchInvestigations(res: Resources, log: (line: string) => void = () => {}): Promise<InvestigationBench> {
  const t0 = Date.now();
  const settings = benchSettings();
  const load = (url: string, method: "GET" | "POST", body?: string): Promise<LoadResult> =>
    autocannonLoad(res, {
      url,
      method,
      headers: { authorization: `Bearer ${BENCH_KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body } : {}),
      connections: settings.concurrency,
      durationMs: settings.durationMs,
      warmupMs: settings.warmupMs,
    });

  // The ceilings first, while nothing else runs on the machine: raw uWS and Fastify hello worlds.
  log(`ceiling: raw uWebSockets.js hello-world, autocannon ${settings.concurrency} connections, ${settings.warmupMs} ms warm-up + ${settings.durationMs} ms`);
  const hello = await startHello(res);
  const ceiling = await load(hello.url, "GET");
  await hello.child.stop();
  log(`  ${fmt(ceiling)}`);
  const fastifyHello = await startFastify(res, null);
  const peerHello = await load(`${fastifyHello.base}/hello`, "GET");
  await fastifyHello.child.stop();
  log(`fastify hello-world: ${fmt(peerHello)}`);

  // The stack: nats-server + gateway + runner.
  const nats = await startNats(res);
  const data = res.tempDir("inquest-bench-data-");
  const env: Record<string, string> = {
    NATS_URL: nats.url,
    INQUEST_DATA_DIR: data,
    INQUEST_MASTER_KEY: randomBytes(32).toString("base64"),
    INQUEST_BOOTSTRAP_KEY: BENCH_KEY,
    INQUEST_PORT: "0",
    INQUEST_MAX_BACKLOG: "10000000",
    LOG_LEVEL: "warn",
  };
  const gateway = startService(res, "gateway", env);
  const baseUrl = await gateway.line("INQUEST_GATEWAY_URL=");
  const runner = startService(res, "runner", env);
  await waitFor("gateway /readyz", async () => ((await fetch(`${baseUrl}/readyz`)).status === 200 ? true : undefined));
  log(`stack: ${nats.url}, gateway ${baseUrl} (pid ${gateway.proc.pid}), runner (pid ${runner.proc.pid})`);

  // (b) needs one existing investigation; let the runner finish it so the record no longer changes.
  const created = await http("POST", `${baseUrl}/v1/investigations`, CREATE_BODY);
  if (created.status !== 202 || typeof created.json?.investigation_id !== "string") {
    throw new Error(`POST /v1/investigations answered ${created.status}: ${JSON.stringify(created.json)}\ngateway output:\n${gateway.output()}`);
  }
  const id: string = created.json.investigation_id;
  let getTargetStatus = "unknown";
  try {
    getTargetStatus = await waitFor(`investigation ${id} terminal`, async () => {
      const r = await http("GET", `${baseUrl}/v1/investigations/${id}`);
      const status = String(r.json?.status ?? "");
      return ["completed", "failed", "cancelled"].includes(status) ? status : undefined;
    }, 15_000, 100);
  } catch {
    const r = await http("GET", `${baseUrl}/v1/investigations/${id}`);
    getTargetStatus = `${String(r.json?.status ?? r.status)} (not terminal after 15 s)`;
  }
  // No runner while the HTTP paths are measured (as in issue 9): both servers get the same quiet machine.
  const runnerPeak = peakRssKb(runner.proc.pid);
  await runner.stop();
  const fastify = await startFastify(res, nats.url);
  const peerCheck = await fetch(`${fastify.base}/v1/investigations/${id}`, { headers: { authorization: `Bearer ${BENCH_KEY}` } });
  if (peerCheck.status !== 200) throw new Error(`fastify peer GET answered ${peerCheck.status}: ${await peerCheck.text()}\n${fastify.child.output()}`);

  log(`read: GET /v1/investigations/${id} (${getTargetStatus})`);
  const get = await load(`${baseUrl}/v1/investigations/${id}`, "GET");
  log(`  inquest ${fmt(get)}`);
  const peerGet = await load(`${fastify.base}/v1/investigations/${id}`, "GET");
  log(`  fastify ${fmt(peerGet)}`);

  log("create: POST /v1/investigations (mode cached)");
  const create = await load(`${baseUrl}/v1/investigations`, "POST", CREATE_BODY);
  log(`  inquest ${fmt(create)}`);
  const workQueueAfterCreate = await workQueueDepth(nats.url);
  // The peer writes the same bucket, which the gateway follows into its read model: left running, the gateway would
  // index the peer's records on the same two cores while the peer is measured. It is stopped first.
  if (gateway.proc.exitCode !== null) throw new Error(`gateway exited during the bench:\n${gateway.output()}`);
  const gatewayPeak = peakRssKb(gateway.proc.pid);
  await gateway.stop();
  const peerCreate = await load(`${fastify.base}/v1/investigations`, "POST", CREATE_BODY);
  log(`  fastify ${fmt(peerCreate)} (gateway stopped)`);

  const peak = { gateway: gatewayPeak, runner: runnerPeak, nats: peakRssKb(nats.child.proc.pid), fastify: peakRssKb(fastify.child.proc.pid) };
  return { settings, create, get, ceiling, peerCreate, peerGet, peerHello, uws: hello.uws, natsVersion: natsServerVersion(), getTargetStatus, workQueueAfterCreate, peakRssKb: peak, wallMs: Date.now() - t0 };
}

async function workQueueDepth(url: string): Promise<number | null> {
  try {
    const nc = await natsConnect({ servers: url, timeout: 2_000 });
    try {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.info("INQ_WORK")).state.messages;
    } finally {
      await nc.close();
    }
  } catch {
    return null;
  }
}

export function fmt(r: LoadResult): string {
  return `${r.requests} requests, ${r.errors} errors, ${r.rps} req/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, statuses ${JSON.stringify(r.statuses)}`;
}
