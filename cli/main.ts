// The operator CLI (docs/api.md#cli).
import { ConfigError, NatsUnavailableError } from "../shared/errors.js";
import { parseArgs, UsageError } from "./args.js";
import { COMMANDS, commandUsage } from "./commands.js";

const USAGE = [
  "usage: inquest <command>   (inquest <command> --help: that command's usage)",
  ...Object.values(COMMANDS).flatMap((c) => c.usage.map(([synopsis, does]) => `  ${synopsis}\n      ${does}`)),
  "NATS commands take --nats URL, else NATS_URL, else $INQUEST_DATA_DIR/nats.url.",
].join("\n");

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command ${name}\n${USAGE}`);
  let args;
  try {
    args = parseArgs(rest, command);
    if (command.noArguments && args.positionals.length > 0 && !args.help) throw new UsageError(`inquest ${name} takes no arguments, got ${JSON.stringify(args.positionals[0])}`);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${err.message}\n${commandUsage(command)}`);
    throw err;
  }
  if (args.help) {
    process.stdout.write(`${commandUsage(command)}\n`);
    return 0;
  }
  return command.run({ ...args, positionals: [name, ...args.positionals] }, process.env);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known = err instanceof UsageError || err instanceof ConfigError || err instanceof NatsUnavailableError;
    process.stderr.write(`inquest: ${known || err instanceof Error ? (err as Error).message : String(err)}\n`);
    process.exit(known ? 2 : 1);
  },
);
