// Environment parsing: each service declares the variables it reads, parsed once in main.ts.
// Bad values are a clear start-up error naming the variable. Nothing below main.ts reads process.env.
import { ConfigError } from "./errors.js";
import { parseDuration, parseDurationList } from "./durations.js";
import { hasCredentials } from "./net.js";

type Env = Record<string, string | undefined>;

export interface Field<T> {
  parse(raw: string | undefined, name: string): T;
  doc: string;
}

function fail(name: string, message: string): never {
  throw new ConfigError(`${name}: ${message}`);
}

export const str = (def: string, doc = ""): Field<string> => ({ doc, parse: (raw) => (raw === undefined || raw === "" ? def : raw) });

export const optStr = (doc = ""): Field<string | undefined> => ({ doc, parse: (raw) => (raw === undefined || raw === "" ? undefined : raw) });

export const int = (def: number, min: number, max: number, doc = ""): Field<number> => ({
  doc,
  parse(raw, name) {
    if (raw === undefined || raw === "") return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) fail(name, `expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}`);
    return n;
  },
});

/** A TCP port, or undefined when unset (the feature it opens stays off); 0 takes any free port. */
export const optPort = (doc = ""): Field<number | undefined> => ({
  doc,
  parse(raw, name) {
    if (raw === undefined || raw === "") return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) fail(name, `expected a port in 0..65535, got ${JSON.stringify(raw)}`);
    return n;
  },
});

export const bool = (def: boolean, doc = ""): Field<boolean> => ({
  doc,
  parse(raw, name) {
    if (raw === undefined || raw === "") return def;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return fail(name, `expected true or false, got ${JSON.stringify(raw)}`);
  },
});

/** A duration above zero (periods, timeouts and waits: zero would spin), and within `range` when one is given. */
export const duration = (def: string, doc = "", range?: readonly [min: string, max: string]): Field<number> => ({
  doc,
  parse(raw, name) {
    const ms = parseDuration(raw === undefined || raw === "" ? def : raw);
    if (range) {
      const [min, max] = range.map((d) => parseDuration(d) as number) as [number, number];
      if (ms === null || ms < min || ms > max) return fail(name, `expected a duration from ${range[0]} to ${range[1]}, got ${JSON.stringify(raw)}`);
    }
    if (ms === null || ms <= 0) return fail(name, `expected a duration above zero such as 500ms, 30s, 2m, 1h, got ${JSON.stringify(raw)}`);
    return ms;
  },
});

/** An absolute http(s) URL without credentials, trailing slashes removed. */
export const optUrl = (doc = ""): Field<string | undefined> => ({
  doc,
  parse(raw, name) {
    if (raw === undefined || raw === "") return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return fail(name, `expected an absolute http(s) URL such as https://inquest.example.com, got ${JSON.stringify(raw)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return fail(name, `expected an http or https URL, got ${JSON.stringify(raw)}`);
    if (hasCredentials(url) || url.search || url.hash) return fail(name, "expected a base URL without credentials, query or fragment");
    return raw.replace(/\/+$/, "");
  },
});

export const withDefault = <T>(field: Field<T | undefined>, def: T): Field<T> => ({
  doc: field.doc,
  parse: (raw, name) => field.parse(raw, name) ?? def,
});

export const durationList = (def: string, length: number, doc = ""): Field<number[]> => ({
  doc,
  parse(raw, name) {
    const list = parseDurationList(raw === undefined || raw === "" ? def : raw);
    if (list === null || list.length !== length || list.some((ms) => ms <= 0)) return fail(name, `expected ${length} comma-separated durations above zero, got ${JSON.stringify(raw)}`);
    return list;
  },
});

export const oneOf = <T extends string>(values: readonly T[], def: T, doc = ""): Field<T> => ({
  doc,
  parse(raw, name) {
    if (raw === undefined || raw === "") return def;
    if (!(values as readonly string[]).includes(raw)) return fail(name, `expected one of ${values.join(", ")}, got ${JSON.stringify(raw)}`);
    return raw as T;
  },
});

export const required = <T>(field: Field<T | undefined>, hint: string): Field<T> => ({
  doc: field.doc,
  parse(raw, name) {
    const value = field.parse(raw, name);
    if (value === undefined) return fail(name, `is required (${hint})`);
    return value;
  },
});

export type ConfigOf<S extends Record<string, Field<unknown>>> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** Parses every variable of `spec`, reporting all bad ones at once. */
export function loadConfig<S extends Record<string, Field<unknown>>>(spec: S, env: Env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(spec)) {
    try {
      out[name] = field.parse(env[name], name);
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return out as ConfigOf<S>;
}

/** The variables most services share. */
export const commonEnv = {
  NATS_URL: required(optStr("NATS servers, comma-separated"), "e.g. nats://127.0.0.1:4222"),
  INQUEST_DATA_DIR: str("./data", "LMDB files, embedded NATS store, generated dev secrets"),
  LOG_LEVEL: oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const, "info", "pino level"),
  INQUEST_NATS_REPLICAS: int(1, 1, 5, "copies of every stream and bucket: 1 for one server, 3 on a cluster"),
  INQUEST_HEAP_GROWTH: int(50, 0, 400, "how far (%) the heap may grow past what the last full GC kept; 0 = V8's own choice"),
  NATS_NKEY_SEED_FILE: optStr("file with this process's NATS nkey seed (SU...): connect as that nkey user (inquest nats-auth)"),
};

/** The ops port of the services without an HTTP API (shared/ops/server.ts). */
export const opsEnv = {
  INQUEST_OPS_HOST: str("127.0.0.1", "ops port address (runner, dispatcher, ticker)"),
  INQUEST_OPS_PORT: optPort("ops port: /healthz, /readyz, /metrics; unset = off, 0 = any free port"),
};
