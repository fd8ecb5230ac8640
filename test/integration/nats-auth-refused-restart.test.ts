// A service's connection outlives a server that refuses its user for a while (a restart with a config that does
// not list it yet, as during a credential rotation): once the user is back, the same connection works again. The
// client's default closes it for good after two refusals in a row (docs/nats.md#connection).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "tap";
import pino from "pino";
import { createUser } from "@nats-io/nkeys";
import { connectNats } from "../../shared/nats/connect.js";
import { ConfigError } from "../../shared/errors.js";
import { natsServerBin } from "../../scripts/dev/processes.js";
import { freePort } from "../helpers/nats.js";

const dir = mkdtempSync(join(tmpdir(), "inquest-auth-restart-"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: "127.0.0.1", port }, () => (s.destroy(), resolve(true)));
    s.on("error", () => resolve(false));
  });
}

async function server(port: number, config: string): Promise<ChildProcess> {
  const proc = spawn(natsServerBin(), ["-a", "127.0.0.1", "-p", String(port), "-c", config], { stdio: "ignore" });
  for (let i = 0; i < 200 && !(await portOpen(port)); i++) await sleep(50);
  return proc;
}

function kill(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

test("two refusals in a row do not close the connection for good", async (t) => {
  const user = createUser();
  const other = createUser();
  const seedFile = join(dir, "user.nk");
  writeFileSync(seedFile, new TextDecoder().decode(user.getSeed()), { mode: 0o600 });
  const config = (key: string, name: string) => {
    const file = join(dir, name);
    writeFileSync(file, `authorization { users: [ { nkey: "${key}" } ] }\n`);
    return file;
  };
  const listed = config(user.getPublicKey(), "listed.conf");
  const unlisted = config(other.getPublicKey(), "unlisted.conf");
  const port = await freePort();
  let srv = await server(port, listed);
  const nc = await connectNats({ servers: `127.0.0.1:${port}`, name: "auth-restart", log: pino({ level: "silent" }), nkeySeedFile: seedFile });
  t.teardown(async () => {
    await nc.close().catch(() => {});
    await kill(srv);
    rmSync(dir, { recursive: true, force: true });
  });
  const echo = nc.subscribe("echo");
  void (async () => {
    for await (const m of echo) m.respond(m.data);
  })();
  await kill(srv);
  srv = await server(port, unlisted); // the reconnects are refused: Authorization Violation, several times
  await sleep(2_500);
  await kill(srv);
  srv = await server(port, listed);
  let answered = false;
  for (let i = 0; i < 40 && !answered && !nc.isClosed(); i++) {
    answered = await nc.request("echo", "x", { timeout: 250 }).then(() => true, () => false);
  }
  t.notOk(nc.isClosed(), "the connection is still open");
  t.ok(answered, "and requests work again once the user is listed");
});

test("credentials refused from the start end the connect at once with a clear error, not endless retries", async (t) => {
  const own = mkdtempSync(join(tmpdir(), "inquest-auth-refused-"));
  t.teardown(() => rmSync(own, { recursive: true, force: true }));
  const listedUser = createUser();
  const stranger = createUser();
  const file = join(own, "only-listed.conf");
  writeFileSync(file, `authorization { users: [ { nkey: "${listedUser.getPublicKey()}" } ] }\n`);
  const strangerSeed = join(own, "stranger.nk");
  writeFileSync(strangerSeed, new TextDecoder().decode(stranger.getSeed()), { mode: 0o600 });
  const port = await freePort();
  const srv = await server(port, file);
  t.teardown(() => kill(srv));
  const log = pino({ level: "silent" });
  for (const [what, seed] of [["an unlisted seed", strangerSeed], ["no seed", undefined]] as const) {
    const started = Date.now();
    const err = await connectNats({ servers: `127.0.0.1:${port}`, name: "refused", log, nkeySeedFile: seed, firstConnectTimeoutMs: 30_000 }).then(
      async (nc) => {
        await nc.close();
        return null;
      },
      (e: unknown) => e,
    );
    t.ok(err instanceof ConfigError, `${what}: a ConfigError (${String(err)})`);
    t.match(String(err), /refused this process's credentials/, what);
    t.match(String(err), seed ? /NATS_NKEY_SEED_FILE holds a seed/ : /set NATS_NKEY_SEED_FILE/, `${what}: says what to check`);
    t.ok(Date.now() - started < 10_000, `${what}: well before the 30 s first-connect limit (${Date.now() - started} ms)`);
  }
});
