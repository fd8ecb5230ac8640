// Starting the compiled services as real processes against a test nats-server.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** dist/ (this file runs from dist/test/helpers). */
export const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO = resolve(DIST, "..");

export type ServiceName = "gateway" | "runner" | "ticker" | "dispatcher" | "ingestor" | "agent";

export interface ServiceProcess {
  name: ServiceName;
  proc: ChildProcess;
  output(): string;
  /** Resolves with the first stdout line starting with `prefix` (e.g. the gateway URL). */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startService(name: ServiceName, env: Record<string, string>): ServiceProcess {
  const proc = spawn(process.execPath, [join(DIST, "services", name, "main.js")], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners: Array<() => void> = [];
  const onData = (d: Buffer): void => {
    out += d.toString();
    for (const l of listeners) l();
  };
  proc.stdout?.on("data", onData);
  proc.stderr?.on("data", onData);
  return {
    name,
    proc,
    output: () => out,
    line(prefix, timeoutMs = 15_000) {
      return new Promise((resolveLine, reject) => {
        const check = (): boolean => {
          const found = out.split("\n").find((l) => l.startsWith(prefix));
          if (found) {
            clearTimeout(timer);
            resolveLine(found.slice(prefix.length).trim());
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error(`${name}: no line starting ${prefix} within ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
        if (!check()) listeners.push(() => void check());
        proc.once("exit", (code) => {
          if (!check()) {
            clearTimeout(timer);
            reject(new Error(`${name} exited (${code}) before printing ${prefix}; output:\n${out}`));
          }
        });
      });
    },
    kill(signal = "SIGKILL") {
      return new Promise((resolveExit) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolveExit(proc.exitCode);
        proc.once("exit", (code) => resolveExit(code));
        proc.kill(signal);
      });
    },
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function masterKey(): string {
  return randomBytes(32).toString("base64");
}
