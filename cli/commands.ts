// The CLI's commands: what each is called, its usage, the flags it takes (any other is a usage error) and what runs it.
import { agentsCommand } from "./agents.js";
import type { Args, FlagSpec } from "./args.js";
import { investigateCommand } from "./investigate.js";
import { keysCommand } from "./keys.js";
import { natsAuthCommand } from "./nats-auth.js";
import { upCommand } from "./up.js";

export interface Command extends FlagSpec {
  /** Usage lines: the synopsis after `inquest`, then what it does. */
  usage: Array<[synopsis: string, does: string]>;
  /** The command takes no positional arguments: a stray one is a usage error, not ignored. (keys checks its own.) */
  noArguments?: true;
  /** `args.positionals[0]` is the command's name. */
  run(args: Args, env: NodeJS.ProcessEnv): Promise<number> | number;
}

export const COMMANDS: Record<string, Command> = {
  up: {
    usage: [["up [--cluster]", "every service + embedded NATS (make run); --cluster: 3 NATS nodes, 2 replicas each (make cluster)"]],
    booleans: ["cluster"],
    noArguments: true,
    run: (args, env) => upCommand(env, args.flags.get("cluster") === true),
  },
  keys: {
    usage: [
      ["keys create --scopes a,b [--name n] [--nats URL]", "issue an API key (printed once on stdout)"],
      ["keys list | keys revoke <id> [--nats URL]", "list or revoke API keys"],
    ],
    // Every keys flag; which of them each of create, list and revoke takes is checked in keys.ts.
    values: ["scopes", "name", "nats"],
    run: keysCommand,
  },
  investigate: {
    usage: [['investigate "<question>" [--scope k=v] [--depth quick|standard|deep] [--mode auto|cached|live] [--url U --key K]', "trigger, follow and print one investigation"]],
    values: ["scope", "depth", "mode", "url", "key"],
    run: investigateCommand,
  },
  agent: {
    usage: [["agent [--tags k=v,...] [--id ID] [--edr-device-id D] [--heartbeat 5s] [--nats URL]", "the reference agent on this host"]],
    values: ["tags", "id", "edr-device-id", "heartbeat", "nats"],
    noArguments: true,
    run: (args, env) => agentsCommand("agent", args, env),
  },
  fleet: {
    usage: [["fleet --file fleet.json [--heartbeat 5s] [--nats URL]", "simulated agents from a fleet file"]],
    values: ["file", "heartbeat", "nats"],
    noArguments: true,
    run: (args, env) => agentsCommand("fleet", args, env),
  },
  "nats-auth": {
    usage: [["nats-auth --out DIR [--agents a,b] [--fleet]", "NATS nkey users: a seed per service role and agent, auth.conf"]],
    values: ["out", "agents"],
    booleans: ["fleet"],
    noArguments: true,
    run: (args) => natsAuthCommand(args),
  },
};

/** `usage: inquest …` for one command. */
export function commandUsage(command: Command): string {
  return command.usage.map(([synopsis, does], i) => `${i === 0 ? "usage:" : "      "} inquest ${synopsis}\n         ${does}`).join("\n");
}
