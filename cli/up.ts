// inquest up (what `make run` runs): an embedded nats-server unless NATS_URL is set, every service as a
// child process, the URLs and an API key printed once every service says it is ready (so "running" means
// requests are answered), and a clean stop on Ctrl-C / SIGTERM.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canConnect, freePort } from "../shared/net.js";
import { newApiKey } from "../shared/secrets.js";
import { dataDir } from "./nats-url.js";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(DIST, "..");
const SERVICES = ["gateway", "runner", "ticker", "dispatcher", "agent"] as const;
/** The line a service prints once it is ready (shared/service.ts READY_LINE). */
const READY_LINE = "INQUEST_READY=";

export async function upCommand(env: NodeJS.ProcessEnv): Promise<number> {
  const data = resolve(dataDir(env));
  mkdirSync(data, { recursive: true, mode: 0o700 });
  const children: ChildProcess[] = [];
  let nats: ChildProcess | null = null;
  let stopping = false;

  const masterKey = env.INQUEST_MASTER_KEY || devSecret(join(data, "master.key"), () => randomBytes(32).toString("base64"));
  const apiKey = env.INQUEST_BOOTSTRAP_KEY || devSecret(join(data, "dev-api-key"), () => newApiKey().key);

  let natsUrl = env.NATS_URL;
  if (!natsUrl) {
    const port = await freePort();
    const bin = findNatsServer();
    mkdirSync(join(data, "nats"), { recursive: true });
    nats = spawn(bin, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", join(data, "nats")], { stdio: ["ignore", "ignore", "inherit"] });
    natsUrl = `nats://127.0.0.1:${port}`;
    await waitForPort(port);
  }
  writeFileSync(join(data, "nats.url"), `${natsUrl}\n`);

  const fleetFile = env.INQUEST_FLEET_FILE ?? join(REPO, "examples", "fleet.json");
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    NATS_URL: natsUrl,
    INQUEST_DATA_DIR: data,
    INQUEST_MASTER_KEY: masterKey,
    INQUEST_BOOTSTRAP_KEY: apiKey,
    INQUEST_ALLOW_PRIVATE_TARGETS: env.INQUEST_ALLOW_PRIVATE_TARGETS ?? "true",
    INQUEST_FLEET_FILE: fleetFile,
  };
  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      process.stderr.write("\nstopping Inquest…\n");
      await Promise.all(children.map((c) => stop(c, 10_000)));
      if (nats) await stop(nats, 5_000);
    }
    process.exit(code);
  };
  process.once("SIGINT", () => void stopAll(0));
  process.once("SIGTERM", () => void stopAll(0));

  let gatewayUrl = "";
  const ready: Array<Promise<void>> = [];
  for (const name of SERVICES) {
    const child = spawn(process.execPath, [join(DIST, "services", name, "main.js")], { env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    child.on("exit", (code, signal) => {
      if (!stopping) {
        process.stderr.write(`inquest: ${name} exited (${signal ?? code}); stopping everything\n`);
        void stopAll(1);
      }
    });
    let markReady: () => void = () => undefined;
    ready.push(new Promise<void>((res) => (markReady = res)));
    const urlReady = new Promise<string>((res) => {
      let buf = "";
      child.stdout?.on("data", (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.startsWith("INQUEST_GATEWAY_URL=")) res(line.slice("INQUEST_GATEWAY_URL=".length));
          else if (line.startsWith(READY_LINE)) markReady();
          else process.stdout.write(`${line}\n`);
        }
      });
    });
    if (name === "gateway") {
      gatewayUrl = await urlReady;
      childEnv.INQUEST_PUBLIC_URL = env.INQUEST_PUBLIC_URL ?? gatewayUrl;
    }
  }
  // Running means every service answers: the agents are registered, the runner consumes, the gateway serves.
  await Promise.all(ready);
  process.stdout.write(
    [
      "",
      "Inquest is running.",
      `  base URL:  ${gatewayUrl}`,
      `  NATS URL:  ${natsUrl}${nats ? " (embedded, store in " + join(data, "nats") + ")" : ""}`,
      `  API key:   ${apiKey}`,
      `  fleet:     ${fleetFile} (simulated agents)`,
      "  note:      INQUEST_ALLOW_PRIVATE_TARGETS=true here, so webhooks may target localhost",
      "",
      `  try: curl -s -X POST ${gatewayUrl}/v1/investigations -H 'Authorization: Bearer ${apiKey}' \\`,
      `         -H 'Content-Type: application/json' -d '{"query":"are any prod hosts running processes that listen on unexpected ports?","mode":"live"}'`,
      "  Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
  await new Promise(() => undefined);
  return 0;
}

function devSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

function findNatsServer(): string {
  for (const candidate of [process.env.NATS_SERVER_BIN, "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
    if (!candidate) continue;
    const r = spawnSync(candidate, ["--version"], { stdio: "ignore" });
    if (r.status === 0) return candidate;
  }
  throw new Error("nats-server not found: install it (apt-get install nats-server) or set NATS_URL to a running server");
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`embedded nats-server did not open port ${port}`);
}

function stop(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      res();
    });
    child.kill("SIGTERM");
  });
}
