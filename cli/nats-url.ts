// Where CLI commands find NATS (--nats, else NATS_URL, else the URL `make run` wrote into the data dir) and the
// gateway `make run` started.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { flag, UsageError, type Args } from "./args.js";

export function dataDir(env: NodeJS.ProcessEnv): string {
  return env.INQUEST_DATA_DIR && env.INQUEST_DATA_DIR !== "" ? env.INQUEST_DATA_DIR : "./data";
}

/** A URL `make run` wrote into the data dir (`nats.url`, `gateway.url`), or undefined when there is none. */
function urlInDataDir(env: NodeJS.ProcessEnv, name: string): string | undefined {
  try {
    const url = readFileSync(join(dataDir(env), name), "utf8").trim();
    return url === "" ? undefined : url;
  } catch {
    return undefined;
  }
}

export function resolveNatsUrl(args: Args, env: NodeJS.ProcessEnv): string {
  const url = (flag(args, "nats") ?? env.NATS_URL) || urlInDataDir(env, "nats.url");
  if (url) return url;
  throw new UsageError(`no NATS server: pass --nats nats://host:4222, set NATS_URL, or start \`make run\` (it writes ${join(dataDir(env), "nats.url")})`);
}

/**
 * The nkey seed file the CLI connects with: NATS_NKEY_SEED_FILE; else, when the NATS URL is the one `inquest up` wrote
 * (no --nats, no NATS_URL), the seed it wrote beside it (`nats.seed`: make cluster requires credentials).
 */
export function natsSeedFile(args: Args, env: NodeJS.ProcessEnv): string | undefined {
  if (env.NATS_NKEY_SEED_FILE) return env.NATS_NKEY_SEED_FILE;
  if (flag(args, "nats") !== undefined || env.NATS_URL) return undefined;
  return urlInDataDir(env, "nats.seed");
}

/** INQUEST_NATS_REPLICAS as the services read it, so the CLI never provisions with another replica count. */
export function natsReplicas(env: NodeJS.ProcessEnv): number {
  const raw = env.INQUEST_NATS_REPLICAS;
  const n = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 5) throw new UsageError(`INQUEST_NATS_REPLICAS: expected an integer in 1..5, got ${JSON.stringify(raw)}`);
  return n;
}

/** The gateway `make run` started, as it wrote it into the data dir (gateway.url), or undefined. */
export function gatewayUrlFromDataDir(env: NodeJS.ProcessEnv): string | undefined {
  return urlInDataDir(env, "gateway.url");
}
