// Local state written without flushing to disk, kept only while the machine that wrote it stays up.
//
// The gateway's read models are rebuilt from their buckets whenever their file is missing, so they need not survive
// a machine crash; they only must never be read back corrupt. A process that dies (kill -9, a crash) loses nothing
// its writes gave the kernel: the page cache still reaches the disk. Only a machine that stops (power loss, a kernel
// crash) can leave a file written without flushing half on disk. So the store skips the flush of every commit, and
// its directory holds the id of the boot that last opened it: when that id is not this boot's, the machine restarted
// since, and the files are removed before anything opens them (docs/architecture.md#read-models).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "./log.js";

const BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id";
const MARKER = "boot-id";

/** This boot's id (Linux); null where the kernel gives none, and the store then flushes every commit. */
export function currentBootId(): string | null {
  try {
    const id = readFileSync(BOOT_ID_FILE, "utf8").trim();
    return id === "" ? null : id;
  } catch {
    return null;
  }
}

/**
 * Makes `dir` safe to open without flushing in boot `bootId`: files left by another boot (or by a version that did not
 * mark its boot) are removed, then the directory is marked with this boot. `files` are the names to remove. Returns
 * whether anything was removed.
 */
export function discardAfterRestart(dir: string, bootId: string, files: readonly string[], log: Logger): boolean {
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, MARKER);
  let marked: string | null = null;
  try {
    marked = readFileSync(marker, "utf8").trim();
  } catch {
    marked = null;
  }
  if (marked === bootId) return false;
  const present = files.filter((f) => existsSync(join(dir, f)));
  for (const f of present) rmSync(join(dir, f), { force: true });
  if (present.length > 0) {
    log.warn({ path: dir, marked_boot: marked, boot: bootId }, "local store: the machine restarted since it was written (or it predates boot marks); discarded, its read models are rebuilt from their buckets");
  }
  const tmp = `${marker}.tmp`;
  writeFileSync(tmp, `${bootId}\n`);
  renameSync(tmp, marker);
  return present.length > 0;
}
