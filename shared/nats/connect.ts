// One NATS connection per process: reconnects forever once connected; a clear error when it never connects.
import { readFileSync } from "node:fs";
import { connect, nkeyAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { ConfigError } from "../errors.js";
import { NatsUnavailableError } from "../errors.js";
import { isAuthorizationRefused } from "./errors.js";
import type { Logger } from "../log.js";
import "./settled-requests.js"; // every process that connects gets the cheaper end of answered requests
import "./coalesced-writes.js"; // and one socket write per event-loop turn, not one per command
import "./lean-publish.js"; // and JetStream publishes without the library's per-request machinery

export interface ConnectOptions {
  servers: string;
  name: string;
  log: Logger;
  /** How long to keep trying the first connection before giving up with a clear error. */
  firstConnectTimeoutMs?: number;
  /** A file holding this process's nkey seed (`SU...`, NATS_NKEY_SEED_FILE): it connects as that nkey user. */
  nkeySeedFile?: string | undefined;
  /** Where replies to this connection's requests arrive (an agent's own prefix: shared/nats/permissions.ts). */
  inboxPrefix?: string;
}

/**
 * The authenticator of a seed file (`NATS_NKEY_SEED_FILE`, `inquest nats-auth`); its content never reaches a log or
 * an error message. Every client that connects with a seed uses this one.
 */
export function seedAuthenticator(file: string): ReturnType<typeof nkeyAuthenticator> {
  let seed: string;
  try {
    seed = readFileSync(file, "utf8").trim();
  } catch (err) {
    throw new ConfigError(`NATS_NKEY_SEED_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!/^SU[A-Z2-7]{56}$/.test(seed)) throw new ConfigError(`NATS_NKEY_SEED_FILE: ${file} does not hold a user nkey seed (SU...)`);
  return nkeyAuthenticator(new TextEncoder().encode(seed));
}

export async function connectNats(opts: ConnectOptions): Promise<NatsConnection> {
  const servers = opts.servers.split(",").map((s) => s.trim()).filter(Boolean);
  const deadline = Date.now() + (opts.firstConnectTimeoutMs ?? 15_000);
  const auth = opts.nkeySeedFile ? { authenticator: seedAuthenticator(opts.nkeySeedFile) } : {};
  let lastError: unknown;
  let checked = false;
  while (Date.now() < deadline) {
    try {
      // Once, before the connection that outlives refusals: with that setting a credential refused from the start was
      // retried forever, hundreds of times a second, without a word in the log. An unreachable server fails this
      // attempt here, as it would the connection below.
      if (!checked) {
        await checkCredentials(servers, opts.name, auth);
        checked = true;
      }
      const nc = await connect({
        servers,
        name: opts.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        // Otherwise two authorization refusals in a row close the connection for good (the client's default):
        // a server restarted for a moment with a config that lacks this user (a credential rotation, a rolling
        // restart) would leave the service running on a dead connection until someone restarted it.
        ignoreAuthErrorAbort: true,
        timeout: 5_000,
        // A frozen server (SIGSTOP, a stalled VM) keeps the socket open: two missed pings 3 s apart move the
        // connection to another node within ~6–9 s instead of ~30 s (docs/nats.md#connection).
        pingInterval: 3_000,
        maxPingOut: 2,
        // Each request/publish otherwise builds an Error up front for its stack (2–4 % of the dispatcher's and
        // the gateway's CPU under load, bench/README.md#profiles); errors are told apart by type, not stack.
        noAsyncTraces: true,
        ...auth,
        ...(opts.inboxPrefix ? { inboxPrefix: opts.inboxPrefix } : {}),
      });
      void watchStatus(nc, opts.log);
      opts.log.info({ server: nc.getServer() }, "connected to NATS");
      return nc;
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new NatsUnavailableError(
    `cannot reach NATS at ${servers.map(redactCredentials).join(", ")}: ${lastError instanceof Error ? lastError.message : String(lastError)}. ` +
      "Start nats-server with JetStream (-js) or set NATS_URL.",
    { cause: lastError },
  );
}

/**
 * A short connection of the default kind (it gives up on a refusal) to learn whether the servers accept these
 * credentials. A refusal throws a ConfigError naming where the credentials come from; any other failure (no server
 * reachable yet) is thrown as it is, and the caller tries again.
 */
async function checkCredentials(servers: string[], name: string, auth: { authenticator?: ReturnType<typeof nkeyAuthenticator> }): Promise<void> {
  try {
    const probe = await connect({ servers, name: `${name}-credentials-check`, reconnect: false, timeout: 5_000, noAsyncTraces: true, ...auth });
    await probe.close();
  } catch (err) {
    if (!isAuthorizationRefused(err)) throw err;
    throw new ConfigError(
      `NATS at ${servers.map(redactCredentials).join(", ")} refused this process's credentials (${err instanceof Error ? err.message : String(err)}): ` +
        (auth.authenticator ? "check that NATS_NKEY_SEED_FILE holds a seed the servers' authorization lists (inquest nats-auth)" : "the servers require a user: set NATS_NKEY_SEED_FILE (inquest nats-auth) or credentials in NATS_URL"),
    );
  }
}

async function watchStatus(nc: NatsConnection, log: Logger): Promise<void> {
  for await (const s of nc.status()) {
    switch (s.type) {
      case "disconnect":
        log.warn({ server: "server" in s ? s.server : undefined }, "NATS disconnected");
        break;
      case "reconnect":
        log.info({ server: "server" in s ? s.server : undefined }, "NATS reconnected");
        break;
      case "error":
        log.error({ err: "error" in s ? s.error : undefined }, "NATS error");
        break;
      default:
        break;
    }
  }
}

/** nats://user:secret@host:4222 -> nats://***@host:4222, so credentials never reach logs or stderr. */
export function redactCredentials(server: string): string {
  return server.replace(/^([a-z]+:\/\/)[^@/]*@/i, "$1***@");
}
