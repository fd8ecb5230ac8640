// Running the compiled CLI as an operator would.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { DIST } from "./services.js";

export function cli(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(DIST, "cli", "main.js"), ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Issues a key with the given scopes through `inquest keys create`; returns the key. */
export function issueKey(natsUrl: string, scopes: string[]): string {
  const r = cli(["keys", "create", "--scopes", scopes.join(","), "--name", "test", "--nats", natsUrl]);
  if (r.status !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The CLI as a child process that does not block this one (for a test that serves what the CLI calls). */
export function cliAsync(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}
