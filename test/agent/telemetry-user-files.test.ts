// A user's files (shell history, authorized_keys) are read by the agent as root, so a user who swaps a directory of
// their home for a link to root's between the agent's check of the path and its open must not get root's file
// reported as theirs. The swap is made at the worst moment, deterministically: fs/promises.open is wrapped so that it
// happens just before the agent opens the file.
import * as fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { test, type Test } from "tap";
import { collectLinux } from "../../services/agent/telemetry/linux.js";

const needsRoot = { skip: process.getuid?.() !== 0 && "needs root (root's files must be owned by uid 0, m's by another uid)" };

/** A fake root with root's secrets and a user m (uid 1000) whose own files are honest ones. */
function hostileRoot(t: Test): { root: string; at(rel: string): string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-telemetry-swap-"));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const at = (rel: string) => path.join(root, rel);
  fs.mkdirSync(at("etc"), { recursive: true });
  fs.writeFileSync(at("etc/passwd"), "m:x:1000:1000::/home/m:/bin/bash\n");
  fs.mkdirSync(at("root/.ssh"), { recursive: true });
  fs.writeFileSync(at("root/.ssh/authorized_keys"), 'command="/usr/local/bin/backup --token=abc123" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRoot root@admin\n');
  fs.writeFileSync(at("root/.bash_history"), "mysql -u root -pHunter2 prod\n");
  fs.mkdirSync(at("home/m/.ssh"), { recursive: true });
  fs.writeFileSync(at("home/m/.ssh/authorized_keys"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM m@laptop\n");
  fs.writeFileSync(at("home/m/.bash_history"), "ls\n");
  for (const rel of ["home/m", "home/m/.ssh", "home/m/.ssh/authorized_keys", "home/m/.bash_history"]) fs.chownSync(at(rel), 1000, 1000);
  return { root, at };
}

/** Until the test ends, run `swap` once, just before the agent opens `file`. */
function swapBeforeOpen(t: Test, file: string, swap: () => void): void {
  const open = fs.promises.open;
  let done = false;
  fs.promises.open = (async (...args: Parameters<typeof open>) => {
    if (!done && args[0] === file) {
      done = true;
      swap();
    }
    return open(...args);
  }) as typeof open;
  syncBuiltinESMExports();
  t.teardown(() => {
    fs.promises.open = open;
    syncBuiltinESMExports();
  });
}

test("a ~/.ssh swapped for a link to /root/.ssh after the check: root's keys are not reported as the user's", needsRoot, async (t) => {
  const { root, at } = hostileRoot(t);
  swapBeforeOpen(t, at("home/m/.ssh/authorized_keys"), () => {
    fs.renameSync(at("home/m/.ssh"), at("home/m/.ssh-old"));
    fs.symlinkSync(at("root/.ssh"), at("home/m/.ssh"));
  });
  const { authorized_keys } = await collectLinux(["authorized_keys"], { root });
  t.same(authorized_keys, [], "the file opened is root's: refused");
  t.notMatch(JSON.stringify(authorized_keys), /abc123/);
});

test("a home swapped for a link to /root after the check: root's history is not reported as the user's", needsRoot, async (t) => {
  const { root, at } = hostileRoot(t);
  swapBeforeOpen(t, at("home/m/.bash_history"), () => {
    fs.renameSync(at("home/m"), at("home/m-old"));
    fs.symlinkSync(at("root"), at("home/m"));
  });
  const { shell_history } = await collectLinux(["shell_history"], { root });
  t.same(shell_history, [], "the file opened is root's: refused");
  t.notMatch(JSON.stringify(shell_history), /Hunter2/);
});

test("nothing swapped: the user's own files are read, as opened", needsRoot, async (t) => {
  const { root, at } = hostileRoot(t);
  let opened = false;
  swapBeforeOpen(t, at("home/m/.ssh/authorized_keys"), () => (opened = true));
  const result = await collectLinux(["authorized_keys", "shell_history"], { root });
  t.ok(opened, "the hook saw the open");
  t.same(result.authorized_keys?.map((r) => [r.uid, r.comment]), [["1000", "m@laptop"]]);
  t.same(result.shell_history?.map((r) => [r.uid, r.command]), [["1000", "ls"]]);
});
