// The `file` table for a fixed set of security-relevant paths, with osquery's columns and formats:
// lstat first (symlink, symlink_target_path), then stat following the link; mode as 4-digit octal
// ("0644"), device is st_rdev, btime "0" on Linux, type from the followed target.
import type { BigIntStats } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { homes, readDir, readLink, type Ctx, type Row } from "./util.js";

/** Files whose presence, owner, mode or timestamps matter for persistence and credential access. */
export const WATCHED_FILES: readonly string[] = [
  "/etc/ld.so.preload",
  "/etc/ld.so.conf",
  "/etc/hosts",
  "/etc/resolv.conf",
  "/etc/nsswitch.conf",
  "/etc/passwd",
  "/etc/shadow",
  "/etc/group",
  "/etc/gshadow",
  "/etc/sudoers",
  "/etc/crontab",
  "/etc/environment",
  "/etc/profile",
  "/etc/bash.bashrc",
  "/etc/rc.local",
  "/etc/ssh/sshd_config",
  "/etc/pam.d/sshd",
  "/etc/pam.d/common-auth",
  "/etc/pam.d/sudo",
  "/root/.ssh/authorized_keys",
  "/root/.ssh/authorized_keys2",
  "/root/.bashrc",
  "/root/.profile",
  "/root/.bash_profile",
];

/** Directories whose entries (one level, capped) are listed too. */
const WATCHED_DIRS: readonly string[] = ["/etc/sudoers.d", "/etc/cron.d", "/etc/ld.so.conf.d", "/etc/profile.d", "/etc/pam.d"];
const ENTRIES_PER_DIR = 128;

/** osquery's lsperms: the low 12 mode bits as four octal digits. */
export function modeString(mode: number): string {
  return [9, 6, 3, 0].map((shift) => String((mode >> shift) & 7)).join("");
}

function typeName(st: BigIntStats | undefined): string {
  if (st === undefined) return "unknown";
  if (st.isFile()) return "regular";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  if (st.isBlockDevice()) return "block";
  if (st.isCharacterDevice()) return "character";
  if (st.isFIFO()) return "fifo";
  if (st.isSocket()) return "socket";
  return "unknown";
}

async function statBig(file: string, follow: boolean): Promise<BigIntStats | undefined> {
  try {
    return follow ? await fsp.stat(file, { bigint: true }) : await fsp.lstat(file, { bigint: true });
  } catch {
    return undefined;
  }
}

/** One `file` row for a logical path, or undefined when it does not exist (osquery skips those). */
export async function fileRow(ctx: Ctx, logical: string): Promise<Row | undefined> {
  const real = ctx.at(logical);
  const link = await statBig(real, false);
  if (link === undefined) return undefined;
  const symlink = link.isSymbolicLink();
  const followed = symlink ? await statBig(real, true) : link;
  const st = followed ?? link;
  return {
    path: logical,
    directory: path.posix.dirname(logical),
    filename: path.posix.basename(logical),
    inode: st.ino.toString(),
    uid: st.uid.toString(),
    gid: st.gid.toString(),
    mode: modeString(Number(st.mode)),
    device: st.rdev.toString(),
    size: st.size.toString(),
    block_size: st.blksize.toString(),
    atime: (st.atimeMs / 1000n).toString(),
    mtime: (st.mtimeMs / 1000n).toString(),
    ctime: (st.ctimeMs / 1000n).toString(),
    btime: "0",
    hard_links: st.nlink.toString(),
    symlink: symlink ? 1 : 0,
    // A dangling link: osquery's fs::status fails and the type is "unknown".
    type: symlink && followed === undefined ? "unknown" : typeName(st),
    symlink_target_path: symlink ? ((await readLink(real)) ?? "") : "",
  };
}

async function watchedPaths(ctx: Ctx): Promise<string[]> {
  const paths = [...WATCHED_FILES];
  for (const user of await homes(ctx)) {
    if (user.directory === "/root") continue;
    paths.push(path.posix.join(user.directory, ".ssh/authorized_keys"), path.posix.join(user.directory, ".ssh/authorized_keys2"));
  }
  for (const dir of WATCHED_DIRS) {
    for (const entry of (await readDir(ctx.at(dir))).slice(0, ENTRIES_PER_DIR)) paths.push(path.posix.join(dir, entry));
  }
  return [...new Set(paths)];
}

export async function files(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const logical of await watchedPaths(ctx)) {
    const row = await fileRow(ctx, logical);
    if (row !== undefined) rows.push(row);
    if (rows.length >= ctx.max) break;
  }
  return rows;
}
