// A tiny argument parser: positionals plus --flag value / --flag=value / --bool, strict about which flags exist.
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
  /** --help or -h was given: the caller prints its usage instead of running. */
  help: boolean;
}

/** The flags a command takes: those followed by a value, and those that are on by being there. */
export interface FlagSpec {
  values?: readonly string[];
  booleans?: readonly string[];
}

/**
 * A flag the spec does not name, a value flag without its value (at the end, or followed by another flag), or a
 * boolean given a value is a UsageError: ignored, `up --clustr` started a single node and a trailing `--scopes`
 * was quietly unset. Flags are long only (`-h` aside): a single-dash option is a UsageError too, since taken as a
 * positional `investigate "q" -d deep` asked "q -d deep". `--` ends the flags (a question may then start with `-`).
 */
export function parseArgs(argv: readonly string[], spec: FlagSpec = {}): Args {
  const values = new Set(spec.values ?? []);
  const booleans = new Set(spec.booleans ?? []);
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a === "--help" || a === "-h") {
      help = true;
      continue;
    }
    if (!a.startsWith("-") || a === "-") {
      positionals.push(a);
      continue;
    }
    if (!a.startsWith("--")) throw new UsageError(`unknown flag ${a} (flags are spelled --name; a question that starts with - goes after --)`);
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    // A flag given twice is refused, not overwritten: `--scope env=prod --scope role=web` would otherwise quietly
    // drop env=prod and widen the run (the API refuses repeated query parameters for the same reason).
    if (flags.has(name)) throw new UsageError(`--${name} is given twice; give it once${LISTS.has(name) ? `, with its items comma-separated (--${name} a,b)` : ""}`);
    if (booleans.has(name)) {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    if (!values.has(name)) throw new UsageError(`unknown flag --${name}`);
    let value: string | undefined;
    if (eq > 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("--")) value = argv[++i];
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return { positionals, flags, help };
}

/** Flags whose value is a comma-separated list. */
const LISTS: ReadonlySet<string> = new Set(["scope", "tags", "scopes", "events"]);

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
