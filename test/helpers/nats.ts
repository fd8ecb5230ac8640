// A real nats-server with JetStream on a free port and a temporary store, per test file.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { freePort } from "../../shared/net.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { seedAuthenticator } from "../../shared/nats/connect.js";
import { freeze, natsServerBin } from "../../scripts/dev/processes.js";

export { freePort };

export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  stop(): Promise<void>;
  /** Kills and restarts the server on the same port and store (a broker outage). */
  restart(): Promise<void>;
  /** Kills the server, keeping its store. */
  down(): Promise<void>;
  /** Starts it again on the same port and store. */
  up(): Promise<void>;
  /** Freezes the server (SIGSTOP: it keeps its sockets and answers nothing); resolves once every thread is stopped. */
  freeze(): Promise<void>;
  /** Thaws it (SIGCONT). */
  thaw(): void;
}

export async function startNats(): Promise<NatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), "inquest-nats-"));
  const started = await launchOnFreePort(storeDir);
  const port = started.port;
  let proc = started.proc;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop() {
      await kill(proc);
      rmSync(storeDir, { recursive: true, force: true });
    },
    async restart() {
      await kill(proc);
      proc = await launch(port, storeDir);
    },
    async down() {
      await kill(proc);
    },
    async up() {
      proc = await launch(port, storeDir);
    },
    freeze: () => freeze(proc.pid as number),
    thaw: () => void process.kill(proc.pid as number, "SIGCONT"),
  };
}


/**
 * A free port can be taken by another test file's server between `freePort` and the bind, and a check that only
 * connects would then find that server: a few tries, each on a new port.
 */
async function launchOnFreePort(storeDir: string): Promise<{ port: number; proc: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, proc: await launch(port, storeDir) };
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 5) throw err;
    }
  }
}

class PortTaken extends Error {}

let launched = 0;

/** Starts nats-server on `port`; resolves once that very server (known by a name of its own) answers. */
async function launch(port: number, storeDir: string): Promise<ChildProcess> {
  const name = `inquest-test-${process.pid}-${++launched}`;
  const proc = spawn(natsServerBin(), ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir, "-n", name], { stdio: "ignore" });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new PortTaken(`nats-server exited at start on port ${port}`);
    try {
      const nc = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 500 });
      const ours = nc.info?.server_name === name;
      await nc.close();
      if (ours) return proc;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill("SIGKILL");
  throw new Error(`nats-server did not start on port ${port}`);
}

function kill(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

/** A plain client connection; with `seedFile`, as the nkey user of that seed (shared/nats/credentials.ts). */
export async function connectTo(url: string, seedFile?: string, inboxPrefix?: string): Promise<NatsConnection> {
  return connect({ servers: url, ...(seedFile ? { authenticator: seedAuthenticator(seedFile) } : {}), ...(inboxPrefix ? { inboxPrefix } : {}) });
}

/** A client of `url` connected as the services connect (no async traces) that answers requests on `echo` with their data. */
export async function echoClient(url: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url, noAsyncTraces: true });
  nc.subscribe("echo", { callback: (_e, m) => void m.respond(m.data) });
  await nc.flush();
  return nc;
}

/** The error `p` rejects with; throws when it fulfils (for comparing what two paths of the client fail with). */
export async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}
