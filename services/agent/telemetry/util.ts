// Shared plumbing for the Linux telemetry collectors: a per-collection context and file
// helpers that never throw. Every filesystem access goes through here so a vanished
// process, a permission error or a missing file degrades to "no data", never an exception.
import { constants, type Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";

/** A collector's row; collectLinux turns every value into a string, as osquery emits them. */
export type Row = Record<string, string | number>;

/** Everything a collector needs. Paths handed to the helpers are logical (as on the host, e.g.
 *  "/etc/passwd"); `at` maps them under `root`. Row values always carry logical paths. */
export interface Ctx {
  readonly root: string;
  readonly max: number;
  at(logical: string): string;
  /** Numeric pid directories under /proc, memoised for the whole collection. */
  pids(): Promise<string[]>;
  /** Parsed /etc/passwd, memoised. */
  passwd(): Promise<PasswdEntry[]>;
  /** gid → group name from /etc/group, memoised. */
  groups(): Promise<Map<number, string>>;
  /** Socket inode → owning pid and fd, from /proc/<pid>/fd links, memoised; `complete` false when a bound on the
   *  descriptors read was reached (some sockets' owners are then unknown). */
  socketOwners(): Promise<{ owners: Map<string, { pid: number; fd: number }>; complete: boolean }>;
  /** Boot time in epoch seconds (btime in /proc/stat), 0 when unknown. Memoised. */
  bootTime(): Promise<number>;
  /** Says the table's rows may be partial (a bound of the agent's own was reached): it is named in `truncated`. */
  cut(): void;
}

export type Collector = (ctx: Ctx) => Promise<Row[]>;

export interface PasswdEntry {
  username: string;
  uid: number;
  gid: number;
  description: string;
  directory: string;
  shell: string;
}

const DEFAULT_READ_CAP = 16 * 1024 * 1024;

export interface OpenOptions {
  /** Refuse a symlink as the final path component (O_NOFOLLOW), for user-controlled files. */
  noFollow?: boolean;
  /**
   * Accept only a file owned by one of these uids and with a single link: in a user's home, a hard link to a file
   * the user does not own (another user's history, where protected_hardlinks is off) is refused.
   */
  owners?: readonly number[];
  /**
   * Accept only a file that, as opened, lies inside this directory (a real path, every link resolved): where the
   * descriptor leads (/proc/self/fd), so a directory on the way swapped after any check of the path changes nothing.
   */
  within?: string;
}

/** Open a regular file for reading, or undefined. O_NONBLOCK keeps a planted FIFO from
 *  hanging the agent at open(); the fstat check then rejects FIFOs, devices and directories.
 *  (/proc and /sys pseudo-files are regular files, so they pass.) */
export async function openRegular(file: string, opts: OpenOptions = {}): Promise<fsp.FileHandle | undefined> {
  let fh: fsp.FileHandle | undefined;
  try {
    const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | (opts.noFollow ? constants.O_NOFOLLOW : 0);
    fh = await fsp.open(file, flags);
    const st = await fh.stat();
    if (st.isFile() && (opts.owners === undefined || (opts.owners.includes(st.uid) && st.nlink === 1))) {
      if (opts.within === undefined || inside(await readLink(`/proc/self/fd/${fh.fd}`), opts.within)) return fh;
    }
  } catch {
    // fall through
  }
  await fh?.close().catch(() => undefined);
  return undefined;
}

/** Whole file (up to `cap` bytes) or undefined on any error. */
export async function readBuf(file: string, cap = DEFAULT_READ_CAP, opts: OpenOptions = {}): Promise<Buffer | undefined> {
  const fh = await openRegular(file, opts);
  return fh === undefined ? undefined : readOpened(fh, cap);
}

/** Up to `cap` bytes of an open file from where it stands, or undefined on any error; closes it. */
async function readOpened(fh: fsp.FileHandle, cap: number): Promise<Buffer | undefined> {
  try {
    // /proc files report size 0, so read in chunks until EOF rather than trusting stat.
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < cap) {
      const want = Math.min(65536, cap - total);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(buf, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? buf : buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The last `maxBytes` of a regular file (all of it when shorter), the rest never read; `cut` when there was more. */
export async function readTail(file: string, maxBytes: number, opts: OpenOptions = {}): Promise<{ buf: Buffer; cut: boolean } | undefined> {
  const fh = await openRegular(file, opts);
  if (fh === undefined) return undefined;
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.allocUnsafe(size - start);
    let total = 0;
    while (total < buf.length) {
      const { bytesRead } = await fh.read(buf, total, buf.length - total, start + total);
      if (bytesRead === 0) break; // shortened meanwhile
      total += bytesRead;
    }
    return { buf: buf.subarray(0, total), cut: start > 0 };
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The lines of the first `maxBytes` of a file, or of one opened (closed after) ([] when unreadable); `cut` when there was more (its last, partial, line is then dropped). */
export async function readHeadLines(file: string | fsp.FileHandle, maxBytes: number, opts: OpenOptions = {}): Promise<{ lines: string[]; cut: boolean }> {
  const buf = typeof file === "string" ? await readBuf(file, maxBytes + 1, opts) : await readOpened(file, maxBytes + 1);
  if (buf === undefined) return { lines: [], cut: false };
  const cut = buf.length > maxBytes;
  const lines = buf.subarray(0, maxBytes).toString("utf8").split(/\r?\n/);
  return { lines: cut ? lines.slice(0, -1) : lines, cut };
}

export async function readText(file: string, cap?: number, opts?: OpenOptions): Promise<string | undefined> {
  const buf = await readBuf(file, cap, opts);
  return buf?.toString("utf8");
}

/** Lines of a text file, [] when unreadable. */
export async function readLines(file: string, cap?: number, opts?: OpenOptions): Promise<string[]> {
  const text = await readText(file, cap, opts);
  return text === undefined ? [] : text.split(/\r?\n/);
}

export async function readDir(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch {
    return [];
  }
}

/**
 * The first `limit` entry names a directory lists, and whether they are all: a directory of millions of entries is
 * not read whole. Sorted, by number when every name is one (/proc lists a process's fds lowest first). `shared`:
 * a bound several reads spend together, an entry at a time.
 */
export async function readDirUpTo(dir: string, limit: number, shared?: { left: number }): Promise<{ names: string[]; complete: boolean }> {
  const names: string[] = [];
  let complete = true;
  try {
    // The iterator reads a few entries at a time and closes the directory when the loop ends, however it ends.
    for await (const entry of await fsp.opendir(dir)) {
      if (names.length >= limit || (shared !== undefined && shared.left <= 0)) {
        complete = false;
        break;
      }
      names.push(entry.name);
      if (shared !== undefined) shared.left--;
    }
  } catch {
    // unreadable, or gone (the process exited): what was read is all there is
  }
  const numeric = names.every((n) => /^\d+$/.test(n));
  return { names: numeric ? names.sort((a, b) => Number(a) - Number(b)) : names.sort(), complete };
}

export async function readLink(file: string): Promise<string | undefined> {
  try {
    return await fsp.readlink(file);
  } catch {
    return undefined;
  }
}

export async function statOf(file: string): Promise<Stats | undefined> {
  try {
    return await fsp.stat(file);
  } catch {
    return undefined;
  }
}

export async function lstatOf(file: string): Promise<Stats | undefined> {
  try {
    return await fsp.lstat(file);
  } catch {
    return undefined;
  }
}

export async function realPath(file: string): Promise<string | undefined> {
  try {
    return await fsp.realpath(file);
  } catch {
    return undefined;
  }
}

/**
 * The lines of the last `maxBytes` of a file in `user`'s home; `cut` when the file is longer (its first, partial, line
 * is then dropped). For files that grow at their end, such as a history or authorized_keys. The file is read as the
 * agent reads it (root) only if it is the user's own: inside the home, every symlink resolved (a ~/.ssh symlinked to
 * /root/.ssh is not), the file itself no symlink, owned by the user or root with one link ([] otherwise). Where it lies
 * is judged twice: its directory's path before the open, and the file as opened (where its descriptor leads, against
 * the home resolved before the open), so a user who swaps ~/.ssh or a parent for a link to root's between the two
 * gets nothing, not root's file reported as theirs.
 */
export async function userFileTail(ctx: Ctx, user: Pick<PasswdEntry, "uid" | "directory">, file: string, maxBytes: number): Promise<{ lines: string[]; cut: boolean }> {
  const [home, dir] = await Promise.all([realPath(ctx.at(user.directory)), realPath(ctx.at(path.posix.dirname(file)))]);
  const ok = home !== undefined && dir !== undefined && (dir === home || inside(dir, home));
  const tail = ok ? await readTail(ctx.at(file), maxBytes, { noFollow: true, owners: [user.uid, 0], within: home }) : undefined;
  if (tail === undefined) return { lines: [], cut: false };
  const lines = tail.buf.toString("utf8").split(/\r?\n/);
  return { lines: tail.cut ? lines.slice(1) : lines, cut: tail.cut };
}

/** Whether the real path `where` lies inside the real directory `dir` ("/" included). */
function inside(where: string | undefined, dir: string): boolean {
  return where !== undefined && where.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * A file found in `user`'s directory `found` (e.g. ~/.config/systemd/user), opened for the agent (root) to read only if
 * the user could read it anyway, or undefined. Links are followed, as the user's own programs follow them (systemd's
 * user manager loads a linked or aliased unit), but the file is judged as opened (fstat, and where it is from
 * /proc/self/fd), so a link or directory swapped meanwhile changes nothing. Read: a file the user owns, wherever a link
 * leads; one root owns with a single link inside `found` and the home, every link resolved (put there by root; a hard
 * link to a root file has two); one root owns under a directory of `shared` (where the system keeps files every user
 * may read, e.g. the unit directories). Not read: a link to /etc/shadow, or to root's or another user's files.
 */
export async function openUserFile(
  ctx: Ctx,
  user: Pick<PasswdEntry, "uid" | "directory">,
  found: string,
  file: string,
  shared: readonly string[] = [],
): Promise<fsp.FileHandle | undefined> {
  const fh = await openRegular(ctx.at(file));
  if (fh === undefined) return undefined;
  try {
    const st = await fh.stat();
    if (st.uid === user.uid) return fh;
    const where = st.uid === 0 ? await readLink(`/proc/self/fd/${fh.fd}`) : undefined;
    if (where !== undefined) {
      const under = async (dir: string) => {
        const real = await realPath(ctx.at(dir));
        return real !== undefined && where.startsWith(`${real}/`);
      };
      if (st.nlink === 1 && (await under(user.directory)) && (await under(found))) return fh;
      for (const dir of shared) if (await under(dir)) return fh;
    }
  } catch {
    // refused below
  }
  await fh.close().catch(() => undefined);
  return undefined;
}

/** Stream up to `maxBytes` of a regular file into `onChunk`; false on any read error. */
export async function streamFile(file: string, maxBytes: number, onChunk: (chunk: Buffer) => void): Promise<boolean> {
  const fh = await openRegular(file);
  if (fh === undefined) return false;
  return new Promise((resolve) => {
    const stream = fh.createReadStream({ end: Math.max(0, maxBytes - 1) }); // closes fh when done
    stream.on("data", (chunk) => onChunk(chunk as Buffer));
    stream.on("error", () => resolve(false));
    stream.on("end", () => resolve(true));
  });
}

/**
 * A copy of `text` that holds no reference to the string it was cut from: V8 keeps a substring's whole parent alive (a
 * line of a file read as text holds the whole text), so a value kept from a large file is copied.
 */
export function detached(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

/** Run `fn` over `items` with at most `limit` in flight; results keep input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Join a logical path under a root without letting ".." climb above it. */
export function underRoot(root: string, logical: string): string {
  return path.join(root, path.posix.normalize("/" + logical));
}

export function toInt(value: string | undefined, fallback = -1): number {
  if (value === undefined) return fallback;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : fallback;
}

/** Strip a "# comment" tail and surrounding whitespace. */
export function stripComment(line: string): string {
  const hash = line.indexOf("#");
  return (hash === -1 ? line : line.slice(0, hash)).trim();
}

export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const f = line.split(":");
    if (f.length < 7) continue;
    const uid = toInt(f[2], NaN);
    const gid = toInt(f[3], NaN);
    if (Number.isNaN(uid) || Number.isNaN(gid)) continue;
    out.push({ username: f[0] ?? "", uid, gid, description: f[4] ?? "", directory: f[5] ?? "", shell: f.slice(6).join(":") });
  }
  return out;
}

/** One home directory per distinct path (several accounts often share "/" or /nonexistent). */
export async function homes(ctx: Ctx): Promise<PasswdEntry[]> {
  const seen = new Set<string>();
  const out: PasswdEntry[] = [];
  for (const user of await ctx.passwd()) {
    if (!user.directory.startsWith("/") || user.directory === "/" || seen.has(user.directory)) continue;
    seen.add(user.directory);
    out.push(user);
  }
  return out;
}
