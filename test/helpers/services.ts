// Starting the compiled services as real processes against a test nats-server (the spawner bench/ uses too).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnChild, type Child } from "../../scripts/dev/processes.js";
import { serviceArgs, serviceEnv, type ServiceName } from "../../shared/launch.js";

/** dist/ (this file runs from dist/test/helpers). */
export const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO = resolve(DIST, "..");

export type { ServiceName };

export interface ServiceProcess extends Child {
  name: ServiceName;
  /** Resolves once the service printed its ready line (every component started; an agent: registered). */
  ready(timeoutMs?: number): Promise<void>;
}

export function startService(name: ServiceName, env: Record<string, string>): ServiceProcess {
  const child = spawnChild(name, process.execPath, serviceArgs(name, DIST), {
    env: serviceEnv(name, { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env }),
  });
  return { ...child, name, ready: async (timeoutMs = 30_000) => void (await child.line("INQUEST_READY=", timeoutMs)) };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function masterKey(): string {
  return randomBytes(32).toString("base64");
}
