// The operator CLI (docs/api.md#cli).
import { ConfigError, NatsUnavailableError } from "../shared/errors.js";
import { agentsCommand } from "./agents.js";
import { parseArgs, UsageError } from "./args.js";
import { investigateCommand } from "./investigate.js";
import { keysCommand } from "./keys.js";
import { natsAuthCommand } from "./nats-auth.js";
import { upCommand } from "./up.js";

const USAGE = `usage: inquest <command>
  up [--cluster]                          every service + embedded NATS (make run); --cluster: 3 NATS nodes, 2 replicas each (make cluster)
  keys create --scopes a,b [--name n]     issue an API key (printed once on stdout)
  keys list | keys revoke <id>
  investigate "<question>" [--scope k=v] [--depth quick|standard|deep] [--mode auto|cached|live] [--url U --key K]
  agent [--tags k=v,...] [--id ID]        the reference agent on this host
  fleet --file fleet.json                 simulated agents from a fleet file
  nats-auth --out DIR [--agents a,b] [--fleet]   NATS nkey users: a seed per service role and agent, auth.conf
NATS commands take --nats URL, else NATS_URL, else $INQUEST_DATA_DIR/nats.url.`;

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ["cluster", "fleet"]);
  switch (args.positionals[0]) {
    case "up":
      return upCommand(process.env, args.flags.get("cluster") === true);
    case "keys":
      return keysCommand(args, process.env);
    case "investigate":
      return investigateCommand(args, process.env);
    case "agent":
      return agentsCommand("agent", args, process.env);
    case "fleet":
      return agentsCommand("fleet", args, process.env);
    case "nats-auth":
      return natsAuthCommand(args);
    case undefined:
    case "help":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      throw new UsageError(`unknown command ${args.positionals[0]}\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known = err instanceof UsageError || err instanceof ConfigError || err instanceof NatsUnavailableError;
    process.stderr.write(`inquest: ${known || err instanceof Error ? (err as Error).message : String(err)}\n`);
    process.exit(known ? 2 : 1);
  },
);
