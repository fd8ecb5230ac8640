// What the benches share: their start (a log prefix, the processes and temp dirs they own, stopped and removed on
// Ctrl-C, SIGTERM and exit; integer settings from the environment), an authenticated JSON client for the gateway,
// polling until a condition holds, percentiles and sizes for the results.
import { randomBytes } from "node:crypto";
import { canConnect } from "../shared/net.js";
import { freePort, natsServerBin, Resources, startService, type Child } from "./investigations.js";

/** A line-prefixed logger and the bench's Resources, cleaned up on SIGINT/SIGTERM (exit 130) and on exit. */
export function benchProcess(prefix: string): { log: (line: string) => void; res: Resources } {
  const log = (line: string): void => {
    process.stdout.write(`[${prefix}] ${line}\n`);
  };
  const res = new Resources();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping everything`);
    void res.cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("exit", () => res.killAllSync());
  return { log, res };
}

/** A positive integer setting from the environment, or `def`. */
export function envInt(name: string, def: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? def : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: expected a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

export interface JsonAnswer {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  bytes: number;
}

/** One request to the gateway with the bench's key; the answer parsed as JSON. */
export function jsonClient(key: string): (method: string, url: string, body?: unknown) => Promise<JsonAnswer> {
  return async (method, url, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null, bytes: Buffer.byteLength(text) };
  };
}

/** Polls `check` every `everyMs` until it gives a value; throws after `timeoutMs`. A throwing check counts as "not yet". */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

/** The p-th percentile (nearest rank) of `xs`; NaN when empty. */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
};

export const mib = (kb: number | null): string => (kb === null ? "n/a" : `${(kb / 1024).toFixed(0)} MiB`);

export interface Core {
  nats: Child;
  /** INQUEST_DATA_DIR of the services (a temp dir the bench removes). */
  data: string;
  /** What every service gets: NATS, data dir, keys, quiet logs, and the bench's `settings`. */
  env: Record<string, string>;
  gateway: Child;
  baseUrl: string;
  runner: Child;
}

/** A fresh nats-server (JetStream, file store), a gateway with `key` as its bootstrap key, and a runner. */
export async function startCore(res: Resources, name: string, key: string, settings: Record<string, string> = {}, runnerLogLevel = "warn"): Promise<Core> {
  const port = await freePort();
  const store = res.tempDir(`inquest-${name}-nats-`);
  const nats = res.spawn("nats-server", natsServerBin(), ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], { PATH: process.env.PATH ?? "" });
  await waitFor("nats-server", async () => ((await canConnect(port)) ? true : undefined), 10_000, 50);
  const data = res.tempDir(`inquest-${name}-data-`);
  const env: Record<string, string> = {
    ...settings,
    NATS_URL: `nats://127.0.0.1:${port}`,
    INQUEST_DATA_DIR: data,
    INQUEST_MASTER_KEY: randomBytes(32).toString("base64"),
    INQUEST_BOOTSTRAP_KEY: key,
    INQUEST_PORT: "0",
    LOG_LEVEL: "warn",
  };
  const gateway = startService(res, "gateway", env);
  const baseUrl = await gateway.line("INQUEST_GATEWAY_URL=");
  const runner = startService(res, "runner", { ...env, LOG_LEVEL: runnerLogLevel });
  await waitFor("gateway /readyz", async () => ((await fetch(`${baseUrl}/readyz`)).status === 200 ? true : undefined), 30_000);
  return { nats, data, env, gateway, baseUrl, runner };
}
