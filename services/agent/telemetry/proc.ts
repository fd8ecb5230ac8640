// /proc based tables: processes, process_envs, hash (of running executables), laid out as osquery's.
import { createHash } from "node:crypto";
import * as path from "node:path";
import { mapLimit, readBuf, readLink, readText, statOf, streamFile, toInt, type Ctx, type Row } from "./util.js";
import { reportedEnvValue } from "./env-values.js";

const CLK_TCK = 100;
const DELETED = " (deleted)";
const HASH_MAX_FILES = 200;
const HASH_MAX_BYTES = 50 * 1024 * 1024;

export interface ProcStat {
  state: string;
  parent: number;
  pgroup: number;
  userTicks: number;
  systemTicks: number;
  nice: number;
  threads: number;
  startTicks: number;
}

/** Parse /proc/<pid>/stat. The comm field may hold spaces and parentheses, so split after the last ")". */
export function parseStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(")");
  if (close === -1) return undefined;
  const f = text.slice(close + 2).trim().split(/\s+/);
  if (f.length < 20) return undefined;
  return {
    state: f[0] ?? "",
    parent: toInt(f[1]),
    pgroup: toInt(f[2]),
    userTicks: toInt(f[11], 0),
    systemTicks: toInt(f[12], 0),
    nice: toInt(f[16], 0),
    threads: toInt(f[17], 0),
    startTicks: toInt(f[19]),
  };
}

export interface ProcStatus {
  name: string;
  uid: number[];
  gid: number[];
  vmRssKb: number;
  vmSizeKb: number;
}

export function parseStatus(text: string): ProcStatus {
  const out: ProcStatus = { name: "", uid: [], gid: [], vmRssKb: -1, vmSizeKb: -1 };
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const key = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (key === "Name") out.name = value;
    else if (key === "Uid") out.uid = value.split(/\s+/).map((v) => toInt(v));
    else if (key === "Gid") out.gid = value.split(/\s+/).map((v) => toInt(v));
    else if (key === "VmRSS") out.vmRssKb = toInt(value);
    else if (key === "VmSize") out.vmSizeKb = toInt(value);
  }
  return out;
}

/**
 * Executable path with osquery's on_disk tri-state: -1 unknown, 0 deleted or replaced, 1 present. The link's text
 * is only a name, and any user can make a file at a name: "x (deleted)" beside a deleted x, a new x, a symlink. So
 * present means the file at that name, seen from the process's own root (its mount namespace: a container, a
 * unit's PrivateTmp), is the inode the process runs, as osquery checks it. When the running image cannot be
 * reached (the agent is not root), the kernel's " (deleted)" suffix is all there is to go by.
 */
export async function exeOf(ctx: Ctx, pid: string): Promise<{ path: string; onDisk: number; image: string | null }> {
  const link = await readLink(ctx.at(`/proc/${pid}/exe`));
  if (link === undefined || link === "") return { path: "", onDisk: -1, image: null };
  const deleted = link.endsWith(DELETED);
  const name = deleted ? link.slice(0, -DELETED.length) : link;
  const image = await statOf(ctx.at(`/proc/${pid}/exe`));
  if (image === undefined) return { path: name, onDisk: !deleted && (await statOf(ctx.at(name))) !== undefined ? 1 : 0, image: null };
  const named = (await statOf(ctx.at(`/proc/${pid}/root${name}`))) ?? (await statOf(ctx.at(name)));
  const same = named !== undefined && named.dev === image.dev && named.ino === image.ino;
  return { path: name, onDisk: same ? 1 : 0, image: ctx.at(`/proc/${pid}/exe`) };
}

/** /proc/<pid>/io: bytes read, and written minus cancelled (osquery's disk_bytes_*). Root-only for others' pids. */
export function parseIo(text: string | undefined): { read: string; written: string } | undefined {
  if (text === undefined) return undefined;
  const f = new Map<string, string>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) f.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  const written = toInt(f.get("write_bytes"), 0) - toInt(f.get("cancelled_write_bytes"), 0);
  return { read: f.get("read_bytes") ?? "", written: String(written) };
}

/** First line of /proc/<pid>/cgroup, after the second colon ("0::/system.slice/x.service" -> "/system.slice/x.service"). */
export function parseCgroup(text: string | undefined): string {
  const first = (text ?? "").split("\n", 1)[0] ?? "";
  const a = first.indexOf(":");
  const b = a === -1 ? -1 : first.indexOf(":", a + 1);
  return b === -1 ? "" : first.slice(b + 1);
}

/** argv joined by spaces, as osquery prints it: NULs become spaces, then the ends are trimmed. A process
 *  that rewrote argv[0] (e.g. to "[kworker/0:1]") shows exactly that; kernel threads have no cmdline. */
export function joinCmdline(buf: Buffer | undefined): string {
  return (buf?.toString("utf8") ?? "").replace(/\0/g, " ").trim();
}

/**
 * Bytes of a process's arguments read. Any user can run processes with megabytes of arguments (forked copies share
 * them at no cost to the user), and every row was held whole until the answer was fitted: 400 such processes held
 * 400 MB in the agent. An answer cuts values to 16 KiB anyway (fit.ts).
 */
export const CMDLINE_CAP = 64 * 1024;

async function processRow(ctx: Ctx, pid: string, bootTime: number): Promise<Row | undefined> {
  const base = `/proc/${pid}`;
  const [statText, statusText, cmdline, exe, cwd, root, io, cgroup] = await Promise.all([
    readText(ctx.at(`${base}/stat`)),
    readText(ctx.at(`${base}/status`)),
    readBuf(ctx.at(`${base}/cmdline`), CMDLINE_CAP),
    exeOf(ctx, pid),
    readLink(ctx.at(`${base}/cwd`)),
    readLink(ctx.at(`${base}/root`)),
    readText(ctx.at(`${base}/io`)),
    readText(ctx.at(`${base}/cgroup`), 64 * 1024),
  ]);
  // osquery drops a process whose stat is malformed or whose status is unreadable (it exited mid-scan).
  const stat = statText === undefined ? undefined : parseStat(statText);
  if ((statText !== undefined && stat === undefined) || statusText === undefined) return undefined;
  const status = parseStatus(statusText);
  const disk = parseIo(io);
  return {
    pid: Number(pid),
    name: status.name,
    path: exe.path,
    cmdline: joinCmdline(cmdline),
    state: stat?.state ?? "",
    cwd: cwd ?? "",
    root: root ?? "",
    uid: status.uid[0] ?? "",
    gid: status.gid[0] ?? "",
    euid: status.uid[1] ?? "",
    egid: status.gid[1] ?? "",
    suid: status.uid[2] ?? "",
    sgid: status.gid[2] ?? "",
    on_disk: exe.onDisk,
    wired_size: 0,
    // Kernel threads have no VmRSS/VmSize lines: osquery leaves the columns empty.
    resident_size: status.vmRssKb >= 0 ? status.vmRssKb * 1024 : "",
    total_size: status.vmSizeKb >= 0 ? status.vmSizeKb * 1024 : "",
    user_time: stat ? stat.userTicks * (1000 / CLK_TCK) : "",
    system_time: stat ? stat.systemTicks * (1000 / CLK_TCK) : "",
    disk_bytes_read: disk?.read ?? "",
    disk_bytes_written: disk?.written ?? "",
    // Absolute epoch seconds (boot time + start ticks), as osquery reports it.
    start_time: stat && stat.startTicks >= 0 && bootTime > 0 ? bootTime + Math.floor(stat.startTicks / CLK_TCK) : -1,
    parent: stat?.parent ?? "",
    pgroup: stat?.pgroup ?? "",
    threads: stat?.threads ?? "",
    nice: stat?.nice ?? "",
    cgroup_path: parseCgroup(cgroup),
  };
}

export async function processes(ctx: Ctx): Promise<Row[]> {
  const pids = (await ctx.pids()).slice(0, ctx.max);
  const bootTime = await ctx.bootTime();
  const rows = await mapLimit(pids, 16, (pid) => processRow(ctx, pid, bootTime));
  return rows.filter((r): r is Row => r !== undefined);
}

const ENVIRON_CAP = 256 * 1024;
const ENV_VARS_PER_PID = 512;
const ENV_VALUE_CAP = 4096;

/** /proc/<pid>/environ the way osquery walks it: NUL-separated, stopping at the first empty entry;
 *  key is up to the first "=", value after it (an entry without "=" gets the whole entry as value). */
export function parseEnviron(buf: Buffer, maxVars = ENV_VARS_PER_PID): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  for (const entry of buf.toString("utf8").split("\0")) {
    if (entry === "" || out.length >= maxVars) break;
    const eq = entry.indexOf("=");
    out.push({ key: (eq === -1 ? entry : entry.slice(0, eq)).slice(0, ENV_VALUE_CAP), value: (eq === -1 ? entry : entry.slice(eq + 1)).slice(0, ENV_VALUE_CAP) });
  }
  return out;
}

export async function processEnvs(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pid of await ctx.pids()) {
    if (rows.length >= ctx.max) break;
    const buf = await readBuf(ctx.at(`/proc/${pid}/environ`), ENVIRON_CAP);
    if (buf === undefined) continue;
    for (const { key, value } of parseEnviron(buf)) {
      rows.push({ pid: Number(pid), key, value: reportedEnvValue(key, value) });
      if (rows.length >= ctx.max) break;
    }
  }
  return rows;
}

/** md5/sha1/sha256 of each distinct running executable, read through /proc/<pid>/exe: the image the process runs,
 *  deleted or replaced, never whatever a user put at its name. Without access to it, a binary on disk is read by
 *  its name, and a deleted one is skipped. */
export async function hashes(ctx: Ctx): Promise<Row[]> {
  const targets = new Map<string, string>(); // reported path → file to read
  for (const pid of await ctx.pids()) {
    if (targets.size >= Math.min(HASH_MAX_FILES, ctx.max)) break;
    const exe = await exeOf(ctx, pid);
    if (exe.path === "" || targets.has(exe.path)) continue;
    const file = exe.image ?? (exe.onDisk === 1 ? ctx.at(exe.path) : null);
    if (file !== null) targets.set(exe.path, file);
  }
  const rows = await mapLimit([...targets], 4, async ([logical, file]): Promise<Row | undefined> => {
    const st = await statOf(file);
    if (st === undefined || !st.isFile() || st.size > HASH_MAX_BYTES) return undefined;
    const md5 = createHash("md5");
    const sha1 = createHash("sha1");
    const sha256 = createHash("sha256");
    const ok = await streamFile(file, HASH_MAX_BYTES, (chunk) => {
      md5.update(chunk);
      sha1.update(chunk);
      sha256.update(chunk);
    });
    if (!ok) return undefined;
    return {
      path: logical,
      directory: path.posix.dirname(logical),
      md5: md5.digest("hex"),
      sha1: sha1.digest("hex"),
      sha256: sha256.digest("hex"),
    };
  });
  return rows.filter((r): r is Row => r !== undefined);
}
