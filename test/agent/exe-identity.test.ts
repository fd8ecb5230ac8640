// on_disk and hash judge the running image by its inode, not by the name /proc/<pid>/exe shows: a user can put any
// file at that name. Real processes on this machine (root, as the agent runs).
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "tap";
import { createContext } from "../../services/agent/telemetry/context.js";
import { exeOf, hashes } from "../../services/agent/telemetry/proc.js";

const SLEEP = "/bin/sleep";
const TRUE = "/bin/true";
const canRun = process.platform === "linux" && process.getuid?.() === 0 && fs.existsSync(SLEEP) && fs.existsSync(TRUE);
const sha256 = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** A copy of sleep running from a fresh directory, and the directory. */
async function runningCopy(t: { teardown(fn: () => void): void }): Promise<{ dir: string; bin: string; child: ChildProcess }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-exe-"));
  const bin = path.join(dir, "implant");
  fs.copyFileSync(SLEEP, bin);
  fs.chmodSync(bin, 0o755);
  const child = spawn(bin, ["30"], { stdio: "ignore" });
  await new Promise((resolve, reject) => child.once("spawn", resolve).once("error", reject));
  t.teardown(() => {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, bin, child };
}

/** The hash row for `pid`'s executable (a context that lists only that pid). */
async function hashOf(pid: number): Promise<Record<string, unknown> | undefined> {
  const ctx = { ...createContext("/", 100), pids: async () => [String(pid)] };
  return (await hashes(ctx))[0];
}

test("a deleted binary with a decoy named '<name> (deleted)' is still deleted, and its hash is the running image's", { skip: !canRun && "needs Linux and root" }, async (t) => {
  const { bin, child } = await runningCopy(t);
  fs.unlinkSync(bin);
  fs.copyFileSync(TRUE, `${bin} (deleted)`);
  const exe = await exeOf(createContext("/", 100), String(child.pid));
  t.equal(exe.path, bin);
  t.equal(exe.onDisk, 0, "the decoy is not the running image");
  const row = await hashOf(child.pid as number);
  t.equal(row?.path, bin);
  t.equal(row?.sha256, sha256(SLEEP), "the hash is sleep's (what runs), not the decoy's");
});

test("a binary left alone or renamed is on disk; one replaced at its name by a symlink is not", { skip: !canRun && "needs Linux and root" }, async (t) => {
  const { bin, child } = await runningCopy(t);
  const pid = String(child.pid);
  t.same(await exeOf(createContext("/", 100), pid), { path: bin, onDisk: 1, image: `/proc/${pid}/exe` }, "untouched: on disk");
  fs.renameSync(bin, `${bin}.moved`);
  t.match(await exeOf(createContext("/", 100), pid), { path: `${bin}.moved`, onDisk: 1 }, "renamed: the kernel's name follows the file, still the image");
  fs.unlinkSync(`${bin}.moved`);
  fs.symlinkSync(TRUE, `${bin}.moved`);
  t.match(await exeOf(createContext("/", 100), pid), { path: `${bin}.moved`, onDisk: 0 }, "a symlink to another file at its name is not the image");
  t.equal((await hashOf(child.pid as number))?.sha256, sha256(SLEEP), "and the hash is still the image's");
});
