// The nats-server `inquest up` embeds: one node (make run), or three clustered on loopback (make cluster), each
// with its own store under the data dir, client/cluster/monitor ports taken free. A cluster is "up" once JetStream
// answers an account-info request (a meta leader was elected), so services can provision streams with 3 replicas.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { relative } from "node:path";
import { seedAuthenticator } from "../shared/nats/connect.js";
import { canConnect, freePort } from "../shared/net.js";
import { stopChild } from "./stop-child.js";

export interface NatsNode {
  name: string;
  clientPort: number;
  /** Its HTTP monitoring port (/healthz, /varz, /jsz), on loopback. */
  monitorPort: number;
  proc: ChildProcess;
}

export interface EmbeddedNats {
  /** Every node's client URL, comma-separated (what NATS_URL takes). */
  url: string;
  nodes: NatsNode[];
  /** Where the stores are. */
  dir: string;
}

/** One clustered node's config file: loopback ports, its own store and log under `dir`. */
export interface ClusterNodeConfig {
  name: string;
  clientPort: number;
  monitorPort: number;
  conf: string;
}

/**
 * Writes the config of a `size`-node cluster on loopback (free ports) into `dir`; with `authConf` (an `authorization`
 * block under `dir`, shared/nats/credentials.ts) every client must be one of its nkey users.
 */
export async function writeClusterConfigs(dir: string, size: number, authConf?: string): Promise<ClusterNodeConfig[]> {
  mkdirSync(dir, { recursive: true });
  const ports = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), cluster: await freePort(), monitor: await freePort() });
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.cluster}`).join(", ");
  return ports.map((p, i) => {
    const name = `nats-${i + 1}`;
    const store = join(dir, name);
    mkdirSync(store, { recursive: true });
    const conf = join(dir, `${name}.conf`);
    // nats-server appends to its log file: the last run's log is kept beside it, not grown into without end.
    const log = join(dir, `${name}.log`);
    if (existsSync(log)) renameSync(log, `${log}.1`);
    writeFileSync(
      conf,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${p.client}`,
        `http: 127.0.0.1:${p.monitor}`,
        "max_payload: 8MB",
        `log_file: "${log}"`,
        `jetstream { store_dir: "${store}" }`,
        `cluster { name: inquest-dev, listen: 127.0.0.1:${p.cluster}, routes: [${routes}] }`,
        // nats-server 2.9 resolves an include relative to the config file only.
        ...(authConf ? [`include "${relative(dir, authConf)}"`] : []),
        "",
      ].join("\n"),
    );
    return { name, clientPort: p.client, monitorPort: p.monitor, conf };
  });
}

/**
 * `auth` (cluster only): the generated credentials the nodes require (`writeNatsAuth`); `seedFile` connects as services.
 * Each node is pushed onto `started` as it is spawned, so that a caller stopping on a signal meanwhile can stop the
 * nodes before this resolves. When the start fails (a node never opens its port, no meta leader), the nodes it
 * spawned are stopped before the error is thrown: a failed `inquest up` leaves no nats-server behind.
 */
export async function startEmbeddedNats(dataDir: string, size: 1 | 3, auth?: { conf: string; seedFile: string }, started: NatsNode[] = []): Promise<EmbeddedNats> {
  const bin = findNatsServer();
  const dir = join(dataDir, size === 1 ? "nats" : "nats-cluster");
  mkdirSync(dir, { recursive: true });
  const nodes: NatsNode[] = [];
  const add = (node: NatsNode) => {
    nodes.push(node);
    started.push(node);
  };
  // Each node in a process group of its own: Ctrl-C in the terminal signals the whole foreground group, and a node
  // that got it too shut down while the services were still stopping on it (agents could not announce their
  // disconnect, consumers lost their pulls). The caller stops the nodes, after the services (up.ts).
  const options = { stdio: ["ignore", "ignore", "inherit"] as const, detached: true };
  try {
    if (size === 1) {
      const port = await freePort();
      const monitor = await freePort();
      add({ name: "nats-1", clientPort: port, monitorPort: monitor, proc: spawn(bin, ["-a", "127.0.0.1", "-p", String(port), "-m", String(monitor), "-js", "-sd", dir], { ...options, stdio: [...options.stdio] }) });
    } else {
      for (const c of await writeClusterConfigs(dir, size, auth?.conf)) add({ name: c.name, clientPort: c.clientPort, monitorPort: c.monitorPort, proc: spawn(bin, ["--config", c.conf], { ...options, stdio: [...options.stdio] }) });
    }
    for (const n of nodes) await waitForPort(n.clientPort);
    const url = nodes.map((n) => `nats://127.0.0.1:${n.clientPort}`).join(",");
    if (size > 1) await waitForJetStream(url, auth?.seedFile);
    return { url, nodes, dir };
  } catch (err) {
    await Promise.all(nodes.map((n) => stopChild(n.proc, 5_000)));
    throw err;
  }
}

export function findNatsServer(): string {
  for (const candidate of [process.env.NATS_SERVER_BIN, "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
    if (!candidate) continue;
    const r = spawnSync(candidate, ["--version"], { stdio: "ignore" });
    if (r.status === 0) return candidate;
  }
  throw new Error("nats-server not found: install it (apt-get install nats-server) or set NATS_URL to a running server");
}

export async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`embedded nats-server did not open port ${port}`);
}

/** Until the cluster's JetStream answers (its meta leader is elected): at most 30 s. */
export async function waitForJetStream(url: string, seedFile?: string): Promise<void> {
  const nc = await connect({ servers: url.split(","), name: "inquest-up", ...(seedFile ? { authenticator: seedAuthenticator(seedFile) } : {}) });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2_000 });
        await jsm.getAccountInfo();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`the NATS cluster's JetStream did not come up: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await nc.close();
  }
}
