// inquest up (what `make run` runs): an embedded nats-server unless NATS_URL is set, every service as a
// child process, the URLs and an API key printed once every service says it is ready (so "running" means
// requests are answered), and a clean stop on Ctrl-C / SIGTERM. `--cluster` (make cluster): three clustered
// nats-server nodes, every stream and bucket with 3 replicas, two replicas of every service (one fleet of agents),
// each with its own data dir and the services' ops ports printed (docs/operations.md#cluster).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, serviceArgs, serviceEnv, type ServiceName } from "../shared/launch.js";
import { freePort } from "../shared/net.js";
import { newApiKey } from "../shared/secrets.js";
import { SCOPES } from "../shared/auth/scopes.js";
import { startEmbeddedNats, type NatsNode } from "./embedded-nats.js";
import { stopChild } from "./stop-child.js";
import { writeNatsAuth, type NatsAuth } from "../shared/nats/credentials.js";
import { redactCredentials } from "../shared/nats/connect.js";
import { dataDir } from "./nats-url.js";
import { forgetProcesses, noteProcesses, stopLeftovers } from "./leftovers.js";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(DIST, "..");
/** Replicas per service with --cluster (one fleet: two would announce the same agents twice). */
const CLUSTER_REPLICAS: Record<ServiceName, number> = { gateway: 2, runner: 2, ticker: 2, dispatcher: 2, agent: 1 };
/** A replica that exits once running is started again after this (as a supervisor or Kubernetes would)... */
const RESTART_AFTER_MS = 1_000;
/** ...unless it exited this many times within the window: then it is crash-looping, and everything stops. */
const RESTARTS_ALLOWED = 5;
const RESTART_WINDOW_MS = 60_000;
/** The line a service prints once it is ready (shared/service.ts READY_LINE). */
const READY_LINE = "INQUEST_READY=";

export async function upCommand(env: NodeJS.ProcessEnv, cluster = false): Promise<number> {
  const data = resolve(dataDir(env));
  mkdirSync(data, { recursive: true, mode: 0o700 });
  const leftovers = await stopLeftovers(data);
  if (leftovers.length > 0) {
    process.stderr.write(`inquest: stopped ${leftovers.length} processes a previous \`inquest up\` on ${data} left running (pids ${leftovers.join(", ")}): it was killed before it could stop them\n`);
  }
  const children: ChildProcess[] = [];
  // Filled as each node is spawned: a stop during the start reaches the nodes already running.
  const natsNodes: NatsNode[] = [];
  let natsNote = "";
  let stopping = false;

  const masterKey = env.INQUEST_MASTER_KEY || devSecret(join(data, "master.key"), () => randomBytes(32).toString("base64"));
  const apiKey = env.INQUEST_BOOTSTRAP_KEY || devSecret(join(data, "dev-api-key"), () => newApiKey().key);

  // One stop, however many ask for it: a second Ctrl-C (or a child exiting under the first) waits for the same stop
  // instead of exiting at once, which left the embedded NATS (in its own process group) running.
  let stopped: Promise<void> | null = null;
  const stopEverything = (): Promise<void> => {
    stopping = true;
    stopped ??= (async () => {
      await Promise.all(children.map((c) => stopChild(c, 10_000)));
      await Promise.all(natsNodes.map((n) => stopChild(n.proc, 5_000)));
      forgetProcesses(data);
    })();
    return stopped;
  };
  /** What runs now, noted for the next `up` should this one be killed (leftovers.ts). */
  const note = (): void => noteProcesses(data, [...natsNodes.map((n) => n.proc.pid), ...children.map((c) => c.pid)]);
  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) process.stderr.write("\nstopping Inquest…\n");
    await stopEverything();
    process.exit(code);
  };
  // Before anything starts: Ctrl-C or SIGTERM while NATS or a service is still starting stops what already runs.
  // SIGHUP too (the terminal closed): nats-server takes it as "reload the config", and the embedded nodes are not in
  // the terminal's process group anyway (embedded-nats.ts), so without this they outlived `up`.
  // `on`, not `once`: a repeated signal must not fall back to the default (exit now, NATS left running).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stopAll(0));
  try {
    let natsUrl = env.NATS_URL;
    // The embedded cluster runs as deploy/ does: services and the fleet each with their own nkey user, agents
    // limited to their side of the agent protocol (docs/operations.md#nats-credentials).
    let auth: NatsAuth | null = null;
    if (!natsUrl) {
      if (cluster) auth = writeNatsAuth(join(data, "nats-cluster", "auth"), { agents: [], fleet: true });
      const embedded = await startEmbeddedNats(data, cluster ? 3 : 1, auth ? { conf: auth.conf, seedFile: auth.services } : undefined, natsNodes);
      natsUrl = embedded.url;
      note();
      natsNote = ` (embedded${cluster ? ", 3 clustered nodes" : ""}, store in ${embedded.dir})`;
    }
    // Read by the CLI's other commands; a NATS_URL given with credentials in it must not be readable by everyone.
    const urlFile = join(data, "nats.url");
    writeFileSync(urlFile, `${natsUrl}\n`, { mode: 0o600 });
    chmodSync(urlFile, 0o600);
    // Beside it, the seed the CLI's other commands connect with when the cluster requires credentials (nats-url.ts).
    const seedNote = join(data, "nats.seed");
    if (auth) writeFileSync(seedNote, `${auth.services}\n`, { mode: 0o600 });
    else rmSync(seedNote, { force: true });

    const fleetFile = env.INQUEST_FLEET_FILE ?? join(REPO, "examples", "fleet.json");
    const childEnv: NodeJS.ProcessEnv = {
      ...env,
      NATS_URL: natsUrl,
      INQUEST_DATA_DIR: data,
      INQUEST_MASTER_KEY: masterKey,
      INQUEST_BOOTSTRAP_KEY: apiKey,
      INQUEST_ALLOW_PRIVATE_TARGETS: env.INQUEST_ALLOW_PRIVATE_TARGETS ?? "true",
      INQUEST_FLEET_FILE: fleetFile,
      ...(cluster ? { INQUEST_NATS_REPLICAS: env.INQUEST_NATS_REPLICAS ?? "3" } : {}),
      ...(auth ? { NATS_NKEY_SEED_FILE: auth.services } : {}),
    };

    const gatewayUrls: string[] = [];
    const opsPorts: string[] = [];
    const ready: Array<Promise<void>> = [];
    const replicas = SERVICE_NAMES.flatMap((name) => Array.from({ length: cluster ? CLUSTER_REPLICAS[name] : 1 }, (_, i) => ({ name, label: cluster ? `${name}-${i + 1}` : name })));
    for (const { name, label } of replicas) {
      const own: NodeJS.ProcessEnv = {};
      if (cluster) {
        // Each replica its own local state (LMDB read models), as on separate machines.
        own.INQUEST_DATA_DIR = join(data, "replicas", label);
        if (name === "agent" && auth?.fleet) own.NATS_NKEY_SEED_FILE = auth.fleet;
        mkdirSync(own.INQUEST_DATA_DIR, { recursive: true });
        if (name === "gateway" && gatewayUrls.length > 0) own.INQUEST_PORT = String(await freePort(env.INQUEST_HOST || "127.0.0.1"));
        if (name !== "gateway" && name !== "agent") {
          own.INQUEST_OPS_PORT = String(await freePort());
          opsPorts.push(`${label} http://127.0.0.1:${own.INQUEST_OPS_PORT}`);
        }
      }
      let markReady: () => void = () => undefined;
      let isReady = false;
      ready.push(new Promise<void>((res) => (markReady = () => ((isReady = true), res()))));
      let markUrl: (url: string) => void = () => undefined;
      const urlReady = new Promise<string>((res) => (markUrl = res));
      const exits: number[] = [];
      const launch = (): void => {
        const child = spawn(process.execPath, serviceArgs(name, DIST), { env: serviceEnv(name, { ...childEnv, ...own }), stdio: ["ignore", "pipe", "inherit"] });
        children.push(child);
        note();
        child.on("exit", (code, signal) => {
          if (stopping) return;
          const now = Date.now();
          exits.push(now);
          while (exits.length > 0 && (exits[0] as number) < now - RESTART_WINDOW_MS) exits.shift();
          // Before it was ready, an exit is a start that failed (a setting, a port): nothing to wait for.
          if (!isReady || exits.length > RESTARTS_ALLOWED) {
            const why = isReady ? `${exits.length} times within ${RESTART_WINDOW_MS / 1000}s` : "before it was ready";
            process.stderr.write(`inquest: ${label} exited (${signal ?? code}) ${why}; stopping everything\n`);
            void stopAll(1);
            return;
          }
          process.stderr.write(`inquest: ${label} exited (${signal ?? code}); starting it again in ${RESTART_AFTER_MS / 1000}s\n`);
          setTimeout(() => {
            if (stopping) return;
            children.splice(children.indexOf(child), 1);
            launch();
          }, RESTART_AFTER_MS);
        });
        let buf = "";
        child.stdout?.on("data", (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.startsWith("INQUEST_GATEWAY_URL=")) markUrl(line.slice("INQUEST_GATEWAY_URL=".length));
            else if (line.startsWith(READY_LINE)) markReady();
            else process.stdout.write(`${line}\n`);
          }
        });
      };
      launch();
      if (name === "gateway") {
        const url = await urlReady;
        // Links name the first gateway (as they would a load balancer); the others are listed by their own port.
        gatewayUrls.push(own.INQUEST_PORT ? `http://${env.INQUEST_HOST || "127.0.0.1"}:${own.INQUEST_PORT}` : url);
        childEnv.INQUEST_PUBLIC_URL = env.INQUEST_PUBLIC_URL ?? gatewayUrls[0];
      }
    }
    const gatewayUrl = gatewayUrls[0] as string;
    // Beside nats.url: `inquest investigate` finds the gateway here when INQUEST_PORT moved it off 8080.
    writeFileSync(join(data, "gateway.url"), `${gatewayUrl}\n`, { mode: 0o600 });
    // Running means every service answers: the agents are registered, the runner consumes, the gateway serves.
    await Promise.all(ready);
    // The key is registered again at every start, but a revoked one stays revoked (the gateway only logs that): ask
    // the gateway once, so a key that answers 401 is not printed as the key to use.
    const revoked = await keyRevoked(gatewayUrl, apiKey);
    const kept = env.INQUEST_BOOTSTRAP_KEY ? "INQUEST_BOOTSTRAP_KEY" : `the key kept in ${join(data, "dev-api-key")}`;
    const keyLines = revoked
      ? [
          `  API key:   none usable: ${kept} was revoked (it stays revoked at every start).`,
          `             Issue one: npx inquest keys create --scopes ${SCOPES.join(",")} --name dev`,
          `             ${env.INQUEST_BOOTSTRAP_KEY ? "or set INQUEST_BOOTSTRAP_KEY to a new value" : "or delete that file and restart for a new one"}`,
        ]
      : [`  API key:   ${apiKey}`];
    const exampleKey = revoked ? "$INQUEST_KEY" : apiKey;
    process.stdout.write(
      [
        "",
        "Inquest is running.",
        `  base URL:  ${gatewayUrls.join("  ")}`,
        `  NATS URL:  ${natsUrl.split(",").map(redactCredentials).join(",")}${natsNote}`,
        ...(natsNodes.length > 0 ? [`  NATS monitoring: ${natsNodes.map((n) => `http://127.0.0.1:${n.monitorPort}/healthz`).join("  ")}`] : []),
        ...(auth ? [`  NATS auth: nkey users (${auth.conf}); CLI: NATS_NKEY_SEED_FILE=${auth.services}`] : []),
        ...(opsPorts.length > 0 ? [`  ops ports: ${opsPorts.join(", ")}`] : []),
        ...keyLines,
        `  fleet:     ${fleetFile} (simulated agents)`,
        "  note:      INQUEST_ALLOW_PRIVATE_TARGETS=true here, so webhooks may target localhost",
        "",
        `  try: curl -s -X POST ${gatewayUrl}/v1/investigations -H "Authorization: Bearer ${exampleKey}" \\`,
        `         -H 'Content-Type: application/json' -d '{"query":"are any prod hosts running processes that listen on unexpected ports?","mode":"live"}'`,
        "  Ctrl-C stops everything.",
        "",
      ].join("\n"),
    );
    await new Promise(() => undefined);
    return 0;
  } catch (err) {
    // A start that fails half-way (a NATS node that never came up, a port not found) leaves nothing running.
    // A start that fails because a signal is stopping it meanwhile waits for that stop before exiting too.
    await stopEverything();
    throw err;
  }
}

/** Whether the gateway refuses the key (401): revoked. Any other answer, or none, leaves the key shown as before. */
async function keyRevoked(baseUrl: string, key: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/v1/auth/whoami`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.status === 401;
  } catch {
    return false;
  }
}

function devSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
