// The cluster `make chaos` works on (the shape of `make cluster`): three nats-server nodes on loopback and two
// replicas of every service, each of which can be killed, restarted, frozen and thawed by the fault schedule.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeNatsAuth, type NatsAuth } from "../../shared/nats/credentials.js";
import { findNatsServer, waitForJetStream, waitForPort, writeClusterConfigs, type ClusterNodeConfig } from "../../cli/embedded-nats.js";
import { freePort } from "../../shared/net.js";
import { newApiKey } from "../../shared/secrets.js";
import { spawnChild, type Child } from "../dev/processes.js";
import { serviceArgs, serviceEnv, type ServiceName } from "../../shared/launch.js";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const REPO = resolve(DIST, "..");

export type { ServiceName };

/** A process the schedule can kill and bring back exactly as it was (same env, ports and data dir). */
export interface Restartable {
  label: string;
  child: Child;
  /** Starts it again and resolves once it is ready. */
  restart(): Promise<void>;
}

export interface ChaosCluster {
  /** Every process ever started (restarts included), for the logs. */
  history: Child[];
  natsUrl: string;
  /** The services' nkey seed: the cluster requires credentials (docs/operations.md#nats-credentials). */
  natsSeedFile: string;
  nats: Restartable[];
  services: Map<string, Restartable & { name: ServiceName }>;
  gateways: string[];
  key: string;
  stop(): Promise<void>;
}

/** Short retry and liveness settings so that faults resolve within a bounded run. */
const CHAOS_ENV = {
  INQUEST_NATS_REPLICAS: "3",
  INQUEST_ALLOW_PRIVATE_TARGETS: "true",
  INQUEST_RETRY_DELAYS: "1s,2s,4s,8s",
  INQUEST_CURIOSITY_MIN_INTERVAL: "1s",
  INQUEST_RUNNER_ACK_WAIT: "5s",
  // A lost work message is queued again well within the settling time (services/gateway/requeue.ts).
  INQUEST_REQUEUE_AFTER: "20s",
  INQUEST_PLAN_TIMEOUT: "2s",
  INQUEST_HEARTBEAT_INTERVAL: "1s",
  INQUEST_LIVENESS_INTERVAL: "1s",
  INQUEST_MAX_BACKLOG: "100000",
  LOG_LEVEL: "info",
};

export async function startChaosCluster(dataDir: string): Promise<ChaosCluster> {
  const bin = findNatsServer();
  const history: Child[] = [];
  const track = (c: Child): Child => (history.push(c), c);
  // Credentials as deploy/ and make cluster have them: services and the fleet as their own nkey users.
  const auth = writeNatsAuth(join(dataDir, "nats-cluster", "auth"), { agents: [], fleet: true });
  const configs = await writeClusterConfigs(join(dataDir, "nats-cluster"), 3, auth.conf);
  try {
    return await startOn(dataDir, bin, auth, configs, history, track);
  } catch (err) {
    // A start that fails (a node never opening its port, a service never ready) stops what it spawned: the caller
    // deletes the run's directory next, and must not delete it under running processes.
    await stopChildren(history);
    throw err;
  }
}

async function startOn(dataDir: string, bin: string, auth: NatsAuth, configs: ClusterNodeConfig[], history: Child[], track: (c: Child) => Child): Promise<ChaosCluster> {
  const nats = configs.map((c) => natsNode(bin, c, track));
  for (const c of configs) await waitForPort(c.clientPort);
  const natsUrl = configs.map((c) => `nats://127.0.0.1:${c.clientPort}`).join(",");
  await waitForJetStream(natsUrl, auth.services);

  const key = newApiKey().key;
  const common: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    ...CHAOS_ENV,
    NATS_URL: natsUrl,
    NATS_NKEY_SEED_FILE: auth.services,
    INQUEST_MASTER_KEY: randomBytes(32).toString("base64"),
    INQUEST_BOOTSTRAP_KEY: key,
    INQUEST_FLEET_FILE: join(REPO, "examples", "fleet.json"),
  };
  const services = new Map<string, Restartable & { name: ServiceName }>();
  const gateways: string[] = [];
  const plan: Array<[ServiceName, number]> = [["gateway", 2], ["runner", 2], ["ticker", 2], ["dispatcher", 2], ["agent", 1]];
  for (const [name, count] of plan) {
    for (let i = 1; i <= count; i++) {
      const label = `${name}-${i}`;
      const env: Record<string, string> = { ...common, INQUEST_DATA_DIR: join(dataDir, "replicas", label) };
      if (name === "agent" && auth.fleet) env.NATS_NKEY_SEED_FILE = auth.fleet;
      mkdirSync(env.INQUEST_DATA_DIR as string, { recursive: true });
      if (name === "gateway") {
        env.INQUEST_PORT = String(await freePort());
        gateways.push(`http://127.0.0.1:${env.INQUEST_PORT}`);
        env.INQUEST_PUBLIC_URL = gateways[0] as string;
      }
      const svc = service(name, label, env, track);
      services.set(label, svc);
      await svc.ready;
    }
  }
  return {
    history,
    natsUrl,
    natsSeedFile: auth.services,
    nats: nats.map((n) => n.handle),
    services,
    gateways,
    key,
    async stop() {
      await stopChildren([...services.values()].map((s) => s.child));
      await stopChildren(nats.map((n) => n.handle.child));
    },
  };
}

/**
 * Stops every child, each thawed first: a node frozen by the schedule (SIGSTOP) would hold a SIGTERM until its grace
 * ran out. A child already gone (a killed node: ESRCH) has nothing to thaw, and must not keep the rest from stopping.
 */
export async function stopChildren(children: Child[]): Promise<void> {
  for (const c of children) {
    if (c.proc.pid === undefined || c.proc.exitCode !== null || c.proc.signalCode !== null) continue;
    try {
      process.kill(c.proc.pid, "SIGCONT");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
  }
  await Promise.all(children.map((c) => c.stop(5_000)));
}

function natsNode(bin: string, c: ClusterNodeConfig, track: (c: Child) => Child): { handle: Restartable } {
  const spawnIt = () => track(spawnChild(c.name, bin, ["--config", c.conf], { env: { PATH: process.env.PATH ?? "" }, maxOutputChars: 2_000_000 }));
  const handle: Restartable = {
    label: c.name,
    child: spawnIt(),
    async restart() {
      handle.child = spawnIt();
      await waitForPort(c.clientPort);
    },
  };
  return { handle };
}

function service(name: ServiceName, label: string, env: Record<string, string>, track: (c: Child) => Child): Restartable & { name: ServiceName; ready: Promise<void> } {
  const spawnIt = () => track(spawnChild(label, process.execPath, serviceArgs(name, DIST), { env: serviceEnv(name, env), maxOutputChars: 2_000_000, lineTimeoutMs: 60_000 }));
  const svc = {
    name,
    label,
    child: spawnIt(),
    ready: Promise.resolve(),
    async restart() {
      svc.child = spawnIt();
      await svc.child.line("INQUEST_READY=");
    },
  };
  svc.ready = svc.child.line("INQUEST_READY=").then(() => undefined);
  return svc;
}
