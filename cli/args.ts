// A tiny argument parser: positionals plus --flag value / --flag=value / --bool.
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], booleanFlags: readonly string[] = []): Args {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith("--")) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0) {
      flags.set(a.slice(2, eq), a.slice(eq + 1));
    } else if (booleanFlags.includes(a.slice(2)) || i + 1 >= argv.length || (argv[i + 1] as string).startsWith("--")) {
      flags.set(a.slice(2), true);
    } else {
      flags.set(a.slice(2), argv[++i] as string);
    }
  }
  return { positionals, flags };
}

export function flag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
