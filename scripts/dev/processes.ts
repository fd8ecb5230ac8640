// Child processes for tests and benches: the compiled services, nats-server, the uWS hello world. One spawner,
// so the test helpers and bench/ start, read and stop processes the same way.
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface Child {
  label: string;
  proc: ChildProcess;
  /** Everything the process wrote (stdout and stderr, interleaved; the tail only beyond `maxOutputChars`). */
  output(): string;
  /** The first output line starting with `prefix`, without the prefix; fails on exit or after `timeoutMs`. */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (default SIGKILL) and resolves with the exit code once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  /** The whole environment of the child (nothing is inherited). */
  env: Record<string, string>;
  /** Keep at most this much output (the newest half when it overflows); default: everything. */
  maxOutputChars?: number;
  /** Default timeout of `line()`. */
  lineTimeoutMs?: number;
}

export function spawnChild(label: string, command: string, args: string[], opts: SpawnOptions): Child {
  const proc = spawn(command, args, { env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  const waiters = new Set<() => void>();
  const onData = (d: Buffer): void => {
    out += d.toString();
    if (opts.maxOutputChars !== undefined && out.length > opts.maxOutputChars) out = out.slice(-Math.floor(opts.maxOutputChars / 2));
    for (const w of waiters) w();
  };
  proc.stdout?.on("data", onData);
  proc.stderr?.on("data", onData);
  proc.stdin?.on("error", () => {}); // EPIPE when the child is gone
  proc.on("error", (err) => {
    out += `\n[spawn error] ${err.message}\n`;
    for (const w of waiters) w();
  });
  const gone = (): boolean => proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined;
  const kill = (signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> =>
    new Promise((resolveExit) => {
      if (gone()) return resolveExit(proc.exitCode);
      proc.once("exit", (code) => resolveExit(code));
      proc.kill(signal);
    });
  return {
    label,
    proc,
    output: () => out,
    line(prefix, timeoutMs = opts.lineTimeoutMs ?? 15_000) {
      return new Promise((resolveLine, reject) => {
        const check = (): boolean => {
          const found = out.split("\n").find((l) => l.startsWith(prefix));
          if (found === undefined) return false;
          finish();
          resolveLine(found.slice(prefix.length).trim());
          return true;
        };
        const onExit = (code: number | null, signal: string | null): void => {
          if (check()) return;
          finish();
          reject(new Error(`${label} exited (${code ?? signal}) before printing ${prefix}; output:\n${out}`));
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${label}: no line starting ${prefix} within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(waiter);
          proc.off("exit", onExit);
        };
        const waiter = (): void => void check();
        if (check()) return;
        waiters.add(waiter);
        proc.on("exit", onExit);
        if (proc.exitCode !== null || proc.signalCode !== null) onExit(proc.exitCode, proc.signalCode);
      });
    },
    kill,
    async stop(graceMs = 5_000) {
      if (gone()) return;
      const hard = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await kill("SIGTERM");
      clearTimeout(hard);
    },
  };
}

/** NATS_SERVER_BIN, else `nats-server` on PATH, else the Debian package's /usr/sbin/nats-server. */
export function natsServerBin(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/sbin", "/usr/local/sbin", "/usr/local/bin"];
  for (const dir of dirs) {
    const candidate = join(dir, "nats-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error("nats-server not found: install it (apt-get install nats-server) or set NATS_SERVER_BIN");
}

/**
 * SIGSTOP, then waits until every thread of `pid` is stopped. A stop sent to a process is taken by one of its threads,
 * which then stops the others: on a busy machine a nats-server's other threads went on for a while, and a JetStream
 * publish sent just after the signal was acknowledged in 123 of 300 tries (two busy cores), failing a test that
 * expects silence (runtime-request-timeout, once in CI); make chaos times a freeze from here too.
 */
export async function freeze(pid: number): Promise<void> {
  process.kill(pid, "SIGSTOP");
  const deadline = Date.now() + 5_000;
  while (!allThreadsStopped(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within 5 s of SIGSTOP`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Every thread of `pid` stopped (T, t) or gone (Z, X) per /proc/<pid>/task/<tid>/stat: none left to answer. */
function allThreadsStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((tid) => /^\d+ \(.*\) [TtZX] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")));
  } catch {
    return false;
  }
}
