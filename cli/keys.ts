// inquest keys create|list|revoke: API keys straight in the KV bucket.
import { createApiKey, listApiKeys, revokeApiKey } from "../shared/auth/keys.js";
import { parseScopes } from "../shared/auth/scopes.js";
import { systemClock } from "../shared/clock.js";
import { createLogger } from "../shared/log.js";
import { connectNats } from "../shared/nats/connect.js";
import { openRuntime } from "../shared/runtime.js";
import { flag, UsageError, type Args } from "./args.js";
import { natsReplicas, resolveNatsUrl } from "./nats-url.js";

export async function keysCommand(args: Args, env: NodeJS.ProcessEnv): Promise<number> {
  const [, sub, id] = args.positionals;
  const log = createLogger("cli", "warn");
  if (sub !== "create" && sub !== "list" && sub !== "revoke") throw new UsageError("usage: inquest keys create --scopes a,b [--name n] | keys list | keys revoke <id>");
  let scopes: ReturnType<typeof parseScopes> = [];
  if (sub === "create") {
    scopes = parseScopes(flag(args, "scopes") ?? "");
    if (typeof scopes === "string") throw new UsageError(scopes);
  }
  if (sub === "revoke" && !id) throw new UsageError("usage: inquest keys revoke <key id>");
  const replicas = natsReplicas(env);
  const nc = await connectNats({ servers: resolveNatsUrl(args, env), name: "inquest-cli", log, firstConnectTimeoutMs: 5_000, nkeySeedFile: env.NATS_NKEY_SEED_FILE });
  try {
    const rt = await openRuntime(nc, { replicas });
    if (sub === "create") {
      const { key, record } = await createApiKey(rt.apiKeys, systemClock, { name: flag(args, "name") ?? "unnamed", scopes: scopes as Exclude<typeof scopes, string> });
      process.stderr.write(`created ${record.id} (${record.name}) with scopes ${record.scopes.join(",")}; the key is shown once:\n`);
      process.stdout.write(`${key}\n`);
      return 0;
    }
    if (sub === "list") {
      for (const k of await listApiKeys(rt.apiKeys)) {
        process.stdout.write(`${k.id}\t${k.display_prefix}…\t${k.name}\t${k.scopes.join(",")}\t${k.revoked_at ? `revoked ${k.revoked_at}` : "active"}\n`);
      }
      return 0;
    }
    const done = await revokeApiKey(rt.apiKeys, systemClock, id as string);
    process.stderr.write(done ? `revoked ${id}\n` : `no active key ${id}\n`);
    return done ? 0 : 1;
  } finally {
    await nc.close();
  }
}
