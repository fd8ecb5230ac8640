// A whole Inquest on loopback for black-box tests: nats-server, gateway, runner and a simulated fleet.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNats, type NatsServer } from "./nats.js";
import { masterKey, startService, tempDir, type ServiceName, type ServiceProcess } from "./services.js";

export interface Stack {
  nats: NatsServer;
  baseUrl: string;
  key: string;
  env: Record<string, string>;
  services: Map<string, ServiceProcess>;
  dataDir: string;
  /** Starts (another replica of) a service with the stack's environment plus `extra`. */
  start(name: ServiceName, extra?: Record<string, string>, label?: string): ServiceProcess;
  stop(): Promise<void>;
}

export interface StackOptions {
  services?: ServiceName[];
  fleet?: unknown;
  env?: Record<string, string>;
}

export const BOOTSTRAP_KEY = "inq_test_bootstrap_key_0123456789abcdefghijklmnopqrstuvw";

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const nats = await startNats();
  const data = tempDir("inquest-data-");
  const env: Record<string, string> = {
    NATS_URL: nats.url,
    INQUEST_DATA_DIR: data.path,
    INQUEST_MASTER_KEY: masterKey(),
    INQUEST_BOOTSTRAP_KEY: BOOTSTRAP_KEY,
    INQUEST_PORT: "0",
    INQUEST_RUNNER_ACK_WAIT: "3s",
    INQUEST_PLAN_TIMEOUT: "2s",
    INQUEST_HEARTBEAT_INTERVAL: "1s",
    INQUEST_LIVENESS_INTERVAL: "500ms",
    ...opts.env,
  };
  if (opts.fleet) {
    const file = join(data.path, "fleet.json");
    writeFileSync(file, JSON.stringify(opts.fleet));
    env.INQUEST_FLEET_FILE = file;
  }
  const services = new Map<string, ServiceProcess>();
  const start = (name: ServiceName, extra: Record<string, string> = {}, label: string = name): ServiceProcess => {
    const p = startService(name, { ...env, ...extra });
    services.set(label, p);
    return p;
  };
  const wanted = opts.services ?? ["gateway", "runner", ...(opts.fleet ? (["agent"] as const) : [])];
  let baseUrl = "";
  try {
    for (const name of wanted) {
      const p = start(name);
      if (name === "gateway") {
        baseUrl = await p.line("INQUEST_GATEWAY_URL=");
        env.INQUEST_PUBLIC_URL = baseUrl;
      }
    }
    // Every service ready: agents are ready once the registry (in the runner) holds them, so without a
    // runner they are not waited for.
    const waited = [...services.values()].filter((p) => p.name !== "agent" || wanted.includes("runner"));
    await Promise.all(waited.map((p) => p.ready()));
  } catch (err) {
    for (const p of services.values()) await p.kill();
    await nats.stop();
    data.remove();
    throw err;
  }
  return {
    nats,
    baseUrl,
    key: BOOTSTRAP_KEY,
    env,
    services,
    dataDir: data.path,
    start,
    async stop() {
      await Promise.all([...services.values()].map((p) => p.kill("SIGTERM")));
      await nats.stop();
      data.remove();
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A small HTTP client: JSON in, status + parsed JSON out. */
export async function api(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  } catch (err) {
    // A pooled keep-alive socket the gateway closed while this process was blocked (a synchronous `cli()`
    // call on a loaded machine outlasts the server's 10 s idle timeout): an idempotent request is sent again
    // on a fresh connection, as HTTP clients do.
    if (!IDEMPOTENT.has(method) || !isStaleSocket(err)) throw err;
    res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

function isStaleSocket(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === "UND_ERR_SOCKET";
}

/** Polls until `check` returns a value (not undefined) or the deadline passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}
