// The CLI's commands: what each is called, its usage, the flags it takes (any other is a usage error) and what runs it.
// Each command's module is loaded when that command runs: loading all of them (the services' launch code, the NATS
// client, the agent) took 1.2-1.8 s, paid by `--help`, a usage error and `investigate` (which only speaks HTTP) alike.
import type { Args, FlagSpec } from "./args.js";

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
    run: async (args, env) => (await import("./up.js")).upCommand(env, args.flags.get("cluster") === true),
  },
  keys: {
    usage: [
      ["keys create --scopes a,b [--name n] [--nats URL]", "issue an API key (printed once on stdout)"],
      ["keys list | keys revoke <id> [--nats URL]", "list or revoke API keys"],
    ],
    // Every keys flag; which of them each of create, list and revoke takes is checked in keys.ts.
    values: ["scopes", "name", "nats"],
    run: async (args, env) => (await import("./keys.js")).keysCommand(args, env),
  },
  investigate: {
    usage: [['investigate "<question>" [--scope k=v] [--depth quick|standard|deep] [--mode auto|cached|live] [--url U --key K]', "trigger, follow and print one investigation"]],
    values: ["scope", "depth", "mode", "url", "key"],
    run: async (args, env) => (await import("./investigate.js")).investigateCommand(args, env),
  },
  agent: {
    usage: [["agent [--tags k=v,...] [--id ID] [--edr-device-id D] [--heartbeat 5s] [--nats URL]", "the reference agent on this host"]],
    values: ["tags", "id", "edr-device-id", "heartbeat", "nats"],
    noArguments: true,
    run: async (args, env) => (await import("./agents.js")).agentsCommand("agent", args, env),
  },
  fleet: {
    usage: [["fleet --file fleet.json [--heartbeat 5s] [--nats URL]", "simulated agents from a fleet file"]],
    values: ["file", "heartbeat", "nats"],
    noArguments: true,
    run: async (args, env) => (await import("./agents.js")).agentsCommand("fleet", args, env),
  },
  "nats-auth": {
    usage: [["nats-auth --out DIR [--agents a,b] [--fleet]", "NATS nkey users: a seed per service role and agent, auth.conf"]],
    values: ["out", "agents"],
    booleans: ["fleet"],
    noArguments: true,
    run: async (args) => (await import("./nats-auth.js")).natsAuthCommand(args),
  },
};

/** `usage: inquest …` for one command. */
export function commandUsage(command: Command): string {
  return command.usage.map(([synopsis, does], i) => `${i === 0 ? "usage:" : "      "} inquest ${synopsis}\n         ${does}`).join("\n");
}
