// The processes an `inquest up` started, noted in its data dir, so that the next `up` can stop any it left behind: an
// `up` killed with SIGKILL (or an OOM kill) cannot stop its children, and the embedded nats-server nodes run in
// their own process group, so they and the services kept the ports and the store. Each is recognised by its
// command line before it is signalled: a pid reused by another program since is left alone.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Noted {
  pid: number;
  /** The `up` that started it (absent in notes written before this field). */
  up?: number;
  /** The process's command line as /proc shows it (NUL-separated arguments), when it was noted. */
  cmdline: string;
}

const FILE = "up.pids";

function cmdlineOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return null;
  }
}

/** Notes the processes now running for this `up` (replacing the last note), this `up` first. */
export function noteProcesses(dataDir: string, pids: ReadonlyArray<number | undefined>): void {
  const noted: Noted[] = [];
  for (const pid of [process.pid, ...pids]) {
    if (pid === undefined) continue;
    const cmdline = cmdlineOf(pid);
    if (cmdline !== null && cmdline !== "") noted.push({ pid, cmdline, up: process.pid });
  }
  writeFileSync(join(dataDir, FILE), `${JSON.stringify(noted)}\n`, { mode: 0o600 });
}

/** Forgets the note (a clean stop left nothing running). */
export function forgetProcesses(dataDir: string): void {
  rmSync(join(dataDir, FILE), { force: true });
}

/** Another `up` on this data dir is running (it noted itself, and its pid still runs that command): stop that one first. */
export class UpAlreadyRunning extends Error {
  override name = "UpAlreadyRunning";
}

/**
 * Stops what a previous `up` on this data dir noted and left running (SIGTERM, SIGKILL after `graceMs`); returns
 * the pids it stopped. Only a process whose command line is still the noted one is signalled.
 */
export async function stopLeftovers(dataDir: string, graceMs = 5_000): Promise<number[]> {
  let noted: Noted[];
  try {
    noted = JSON.parse(readFileSync(join(dataDir, FILE), "utf8")) as Noted[];
  } catch {
    return [];
  }
  const alive = (n: Noted): boolean => n.pid !== process.pid && cmdlineOf(n.pid) === n.cmdline;
  const left = Array.isArray(noted) ? noted.filter((n) => Number.isInteger(n?.pid) && typeof n?.cmdline === "string" && alive(n)) : [];
  // The `up` itself still running: not leftovers but a live stack, which is not this one's to stop.
  const owner = left.find((n) => n.up !== undefined && n.pid === n.up);
  if (owner) throw new UpAlreadyRunning(`another \`inquest up\` (pid ${owner.pid}) is running on ${dataDir}: stop it first (Ctrl-C in its terminal, or kill ${owner.pid}), or give this one its own INQUEST_DATA_DIR`);
  for (const n of left) signal(n.pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (left.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const n of left) if (alive(n)) signal(n.pid, "SIGKILL");
  forgetProcesses(dataDir);
  return left.map((n) => n.pid);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone meanwhile */
  }
}
