// inquest keys create|list|revoke: API keys straight in the KV bucket.
import { createApiKey, listApiKeys, revokeApiKey } from "../shared/auth/keys.js";
import { CONTROL_CHARACTER_CLASS } from "../shared/control-characters.js";
import { parseScopes } from "../shared/auth/scopes.js";
import { systemClock } from "../shared/clock.js";
import { createLogger } from "../shared/log.js";
import { connectNats } from "../shared/nats/connect.js";
import { openRuntime } from "../shared/runtime.js";
import { flag, UsageError, type Args } from "./args.js";
import { natsReplicas, natsSeedFile, resolveNatsUrl } from "./nats-url.js";

const CONTROL_CHARACTER = new RegExp(`[${CONTROL_CHARACTER_CLASS}]`);
const NAME_MAX = 100;
const USAGE = "usage: inquest keys create --scopes a,b [--name n] [--nats URL] | keys list [--nats URL] | keys revoke <id> [--nats URL]";

/**
 * What each subcommand takes: its positional arguments and flags. Anything else is a usage error: ignored, `keys list
 * --scopes x` or `keys revoke key_1 key_2` looked as if they had done what they said.
 */
const SUBCOMMANDS = {
  create: { args: 0, flags: ["scopes", "name", "nats"] },
  list: { args: 0, flags: ["nats"] },
  revoke: { args: 1, flags: ["nats"] },
} as const;

export async function keysCommand(args: Args, env: NodeJS.ProcessEnv): Promise<number> {
  const [, sub, ...rest] = args.positionals;
  const log = createLogger("cli", "warn");
  if (sub !== "create" && sub !== "list" && sub !== "revoke") throw new UsageError(USAGE);
  const takes = SUBCOMMANDS[sub];
  if (takes.args === 0 && rest.length > 0) throw new UsageError(`keys ${sub} takes no arguments, got ${JSON.stringify(rest[0])}\n${USAGE}`);
  if (takes.args === 1 && rest.length !== 1) throw new UsageError(`keys ${sub} takes one key id, got ${rest.length}\n${USAGE}`);
  const stray = [...args.flags.keys()].find((f) => !(takes.flags as readonly string[]).includes(f));
  if (stray !== undefined) throw new UsageError(`--${stray} is not a flag of keys ${sub}\n${USAGE}`);
  const id = rest[0];
  let scopes: ReturnType<typeof parseScopes> = [];
  if (sub === "create") {
    scopes = parseScopes(flag(args, "scopes") ?? "");
    if (typeof scopes === "string") throw new UsageError(scopes);
    // A name is shown back in `keys list`, whoami and the console: characters a terminal obeys (an escape sequence, a
    // bidi override) are refused here rather than trusted everywhere it is shown.
    const name = flag(args, "name");
    if (name !== undefined && (name.trim() === "" || CONTROL_CHARACTER.test(name) || name.length > NAME_MAX)) throw new UsageError(`--name must be 1-${NAME_MAX} characters without control characters`);
  }
  const replicas = natsReplicas(env);
  const nc = await connectNats({ servers: resolveNatsUrl(args, env), name: "inquest-cli", log, firstConnectTimeoutMs: 5_000, nkeySeedFile: natsSeedFile(args, env) });
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
