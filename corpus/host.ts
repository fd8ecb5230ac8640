// A host under construction: typed helpers that append osquery-shaped rows (every value a string, as
// osquery's JSON output has them) and remember what was planted on the host.
import type { Rng } from "./prng.js";
import type { CorpusHost } from "./types.js";
import type { Distro } from "./distros.js";

export type Row = Record<string, string>;
export type Val = string | number;

export interface HostSpec {
  hostname: string;
  ip: string;
  role: string;
  env: string;
  distro: Distro;
  /** Collection time, epoch seconds. */
  now: number;
  /** Boot time, epoch seconds. */
  boot: number;
  cpus: number;
}

export interface ProcIn {
  name: string;
  path: string;
  cmdline: string;
  uid?: number;
  gid?: number;
  euid?: number;
  parent?: number;
  cwd?: string;
  start?: number;
  user_time?: number;
  system_time?: number;
  resident_size?: number;
  threads?: number;
  on_disk?: number;
  state?: string;
  nice?: number;
  cgroup?: string;
  pid?: number;
}

export interface FileIn {
  uid?: number;
  gid?: number;
  mode?: string;
  size?: number;
  mtime?: number;
  type?: string;
  symlink_target?: string;
}

const NET_NS = "4026531840";

export class HostBuilder {
  readonly tables: Record<string, Row[]> = {};
  readonly artifacts: string[] = [];
  private pidCounter: number;
  private inode = 1_000_000;
  private fileInode = 260_000;

  constructor(readonly rng: Rng, readonly spec: HostSpec) {
    this.pidCounter = 400 + rng.int(0, 200);
    this.inode += rng.int(0, 9_000_000);
    this.fileInode += rng.int(0, 3_000_000);
  }

  get now(): number {
    return this.spec.now;
  }

  add(table: string, row: Record<string, Val>): Row {
    const out: Row = {};
    for (const [k, v] of Object.entries(row)) out[k] = String(v);
    (this.tables[table] ??= []).push(out);
    return out;
  }

  rows(table: string): Row[] {
    return this.tables[table] ?? [];
  }

  remove(table: string, pred: (r: Row) => boolean): void {
    const list = this.tables[table];
    if (list) this.tables[table] = list.filter((r) => !pred(r));
  }

  allocPid(): number {
    this.pidCounter += this.rng.int(1, 40);
    return this.pidCounter;
  }

  /** A time between boot and now, biased toward `ageMax` seconds before now. */
  recent(ageMin: number, ageMax: number): number {
    return Math.max(this.spec.boot + 30, this.now - this.rng.int(ageMin, ageMax));
  }

  proc(p: ProcIn): number {
    const pid = p.pid ?? this.allocPid();
    const uid = p.uid ?? 0;
    const gid = p.gid ?? uid;
    const rss = p.resident_size ?? this.rng.int(2_000, 60_000) * 1024;
    const start = p.start ?? this.spec.boot + this.rng.int(3, 40);
    const kernel = p.path === "" && p.cmdline === "";
    this.add("processes", {
      pid,
      name: p.name,
      path: p.path,
      cmdline: p.cmdline,
      state: p.state ?? (kernel ? "I" : "S"),
      cwd: p.cwd ?? "/",
      root: kernel ? "" : "/",
      uid,
      gid,
      euid: p.euid ?? uid,
      egid: gid,
      suid: p.euid ?? uid,
      sgid: gid,
      on_disk: p.on_disk ?? (kernel ? -1 : 1),
      wired_size: 0,
      resident_size: kernel ? 0 : rss,
      total_size: kernel ? 0 : rss * this.rng.int(2, 6),
      user_time: p.user_time ?? this.rng.int(0, 4_000),
      system_time: p.system_time ?? this.rng.int(0, 2_000),
      disk_bytes_read: kernel ? 0 : this.rng.int(0, 90_000) * 512,
      disk_bytes_written: kernel ? 0 : this.rng.int(0, 20_000) * 512,
      start_time: start,
      parent: p.parent ?? (kernel ? 2 : 1),
      pgroup: kernel ? 0 : pid,
      threads: p.threads ?? (kernel ? 1 : this.rng.int(1, 8)),
      nice: p.nice ?? (kernel ? (p.name.includes("H") ? -20 : 0) : 0),
      cgroup_path: p.cgroup ?? (kernel ? "/" : "/system.slice"),
    });
    return pid;
  }

  kthread(name: string, pid?: number): number {
    return this.proc({ name, path: "", cmdline: "", pid: pid ?? this.allocPid(), parent: 2, uid: 0, start: this.spec.boot });
  }

  private sock(): { fd: number; socket: number } {
    this.inode += this.rng.int(3, 900);
    return { fd: this.rng.int(3, 40), socket: this.inode };
  }

  listen(pid: number, port: number, opts: { proto?: "tcp" | "udp"; address?: string } = {}): void {
    const address = opts.address ?? "0.0.0.0";
    const family = address.includes(":") ? 10 : 2;
    const protocol = opts.proto === "udp" ? 17 : 6;
    const s = this.sock();
    this.add("listening_ports", { pid, port, protocol, family, address, fd: s.fd, socket: s.socket, path: "", net_namespace: NET_NS });
    this.add("process_open_sockets", {
      pid, fd: s.fd, socket: s.socket, family, protocol, local_address: address, remote_address: family === 10 ? "::" : "0.0.0.0",
      local_port: port, remote_port: 0, path: "", state: protocol === 6 ? "LISTEN" : "", net_namespace: NET_NS,
    });
  }

  conn(pid: number, remote: string, remotePort: number, opts: { local?: string; localPort?: number; state?: string; proto?: "tcp" | "udp" } = {}): void {
    const s = this.sock();
    const protocol = opts.proto === "udp" ? 17 : 6;
    this.add("process_open_sockets", {
      pid, fd: s.fd, socket: s.socket, family: remote.includes(":") ? 10 : 2, protocol,
      local_address: opts.local ?? this.spec.ip, remote_address: remote,
      local_port: opts.localPort ?? this.rng.int(32768, 60999), remote_port: remotePort,
      path: "", state: opts.state ?? (protocol === 6 ? "ESTABLISHED" : ""), net_namespace: NET_NS,
    });
  }

  /** An AF_PACKET socket (family 17): protocol is the ethertype (3 = ETH_P_ALL, 2048 = ETH_P_IP). */
  packetSocket(pid: number, ethertype: number): void {
    const s = this.sock();
    this.add("process_open_sockets", {
      pid, fd: s.fd, socket: s.socket, family: 17, protocol: ethertype, local_address: "", remote_address: "",
      local_port: 0, remote_port: 0, path: "", state: "NONE", net_namespace: NET_NS,
    });
  }

  file(path: string, f: FileIn = {}): Row {
    const slash = path.lastIndexOf("/");
    const directory = slash <= 0 ? "/" : path.slice(0, slash);
    const mtime = f.mtime ?? this.recent(86_400 * 20, 86_400 * 400);
    this.fileInode += this.rng.int(1, 5000);
    const type = f.type ?? "regular";
    return this.add("file", {
      path, directory, filename: path.slice(slash + 1), inode: this.fileInode, uid: f.uid ?? 0, gid: f.gid ?? 0,
      mode: f.mode ?? "0644", device: 0, size: f.size ?? (type === "directory" ? 4096 : this.rng.int(200, 40_000)), block_size: 4096,
      atime: Math.min(this.now, mtime + this.rng.int(0, 86_400)), mtime, ctime: mtime, btime: 0, hard_links: type === "directory" ? 2 : 1,
      symlink: f.symlink_target ? 1 : 0, type, symlink_target_path: f.symlink_target ?? "",
    });
  }

  hash(path: string, sha256: string): void {
    const slash = path.lastIndexOf("/");
    this.add("hash", { path, directory: path.slice(0, slash) || "/", md5: this.rng.hex(32), sha1: this.rng.hex(40), sha256 });
  }

  history(uid: number, home: string, cmds: string[], start: number, shell = "bash"): void {
    const file = `${home}/.${shell}_history`;
    let t = start;
    for (const command of cmds) {
      t += this.rng.int(4, 240);
      this.add("shell_history", { uid, time: shell === "zsh" ? t : 0, command, history_file: file });
    }
  }

  augeasUnit(path: string, entries: Array<[string, string]>): void {
    for (const [section, kv] of entries) {
      const eq = kv.indexOf("=");
      const key = kv.slice(0, eq);
      const value = kv.slice(eq + 1);
      if (key === "ExecStart" || key === "ExecStartPre" || key === "ExecReload") {
        const [cmd, ...args] = value.split(" ");
        this.add("augeas", { node: `/files${path}/${section}/${key}/command`, value: cmd ?? "", label: "command", path });
        args.forEach((a, i) => this.add("augeas", { node: `/files${path}/${section}/${key}/arguments/${i + 1}`, value: a, label: String(i + 1), path }));
      } else {
        this.add("augeas", { node: `/files${path}/${section}/${key}/value`, value, label: "value", path });
      }
    }
  }

  unit(id: string, description: string, opts: { active?: string; sub?: string; state?: string; fragment?: string; user?: string } = {}): void {
    const active = opts.active ?? "active";
    this.add("systemd_units", {
      id, description, load_state: "loaded", active_state: active, sub_state: opts.sub ?? (active === "active" ? (id.endsWith(".timer") ? "waiting" : "running") : "dead"),
      unit_file_state: opts.state ?? "enabled", following: "", object_path: `/org/freedesktop/systemd1/unit/${id.replace(/[^a-zA-Z0-9]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`,
      job_id: 0, job_type: "", job_path: "/", fragment_path: opts.fragment ?? `/usr/lib/systemd/system/${id}`, user: opts.user ?? "", source_path: "",
    });
  }

  plant(...items: string[]): void {
    for (const i of items) if (!this.artifacts.includes(i)) this.artifacts.push(i);
  }

  procByName(name: string): Row | undefined {
    return this.rows("processes").find((r) => r.name === name);
  }

  build(compromised: boolean, agentId: string): CorpusHost {
    const { hostname, role, env, distro } = this.spec;
    return {
      agent_id: agentId, hostname, tags: { env, role, os: distro.tag }, collected_at: new Date(this.now * 1000).toISOString().replace(".000Z", "Z"),
      tables: this.tables, compromised, artifacts: compromised ? [...this.artifacts] : [],
    };
  }
}
