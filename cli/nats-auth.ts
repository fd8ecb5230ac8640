// `inquest nats-auth`: the NATS credentials of a deployment (docs/operations.md#nats-credentials). Writes a seed per
// service role and per agent (0600) and the `authorization` block to include in every nats-server config; seeds
// already there are kept, so adding agents later changes nobody's identity.
import { resolve } from "node:path";
import { writeNatsAuth } from "../shared/nats/credentials.js";
import { flag, UsageError, type Args } from "./args.js";

export function natsAuthCommand(args: Args): number {
  const out = flag(args, "out");
  if (!out) throw new UsageError("nats-auth needs --out DIR (where the seeds and auth.conf go)");
  const agents = (flag(args, "agents") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  let auth;
  try {
    auth = writeNatsAuth(resolve(out), { agents, fleet: args.flags.get("fleet") === true });
  } catch (err) {
    throw new UsageError(`--agents: ${(err as Error).message}`);
  }
  const lines = [
    `authorization block: ${auth.conf}   (include it in every nats-server config; it names public keys only)`,
    `services seed:       ${auth.services}   (NATS_NKEY_SEED_FILE of the gateway, runner, ticker, dispatcher and the CLI)`,
    ...(auth.fleet ? [`fleet seed:          ${auth.fleet}   (the simulated fleet: any agent id, development only)`] : []),
    ...Object.entries(auth.agents).map(([id, file]) => `agent ${id}:`.padEnd(21) + `${file}   (that host's NATS_NKEY_SEED_FILE, with INQUEST_AGENT_ID=${id})`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
