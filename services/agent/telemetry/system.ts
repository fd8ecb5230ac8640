// Host configuration tables: kernel_modules, etc_hosts, suid_bin.
import * as path from "node:path";
import { lstatOf, readDir, readLines, realPath, stripComment, type Ctx, type Row } from "./util.js";

/** /proc/modules: "name size refcount used_by state address [taints]". */
export function parseModules(lines: readonly string[]): Row[] {
  const rows: Row[] = [];
  for (const line of lines) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    rows.push({ name: f[0] ?? "", size: Number(f[1] ?? 0) || 0, used_by: f[3] ?? "", status: f[4] ?? "", address: f[5] ?? "" });
  }
  return rows;
}

export async function kernelModules(ctx: Ctx): Promise<Row[]> {
  return parseModules(await readLines(ctx.at("/proc/modules"))).slice(0, ctx.max);
}

export function parseHosts(lines: readonly string[]): Row[] {
  const rows: Row[] = [];
  for (const line of lines) {
    const [address, ...names] = stripComment(line).split(/\s+/);
    if (address === undefined || address === "" || names.length === 0) continue;
    rows.push({ address, hostnames: names.join(" ") });
  }
  return rows;
}

export async function etcHosts(ctx: Ctx): Promise<Row[]> {
  return parseHosts(await readLines(ctx.at("/etc/hosts"))).slice(0, ctx.max);
}

const SUID_DIRS = ["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"];
const MAX_DEPTH = 2;

/** Setuid and setgid regular files, osquery-style permissions "S", "G" or "SG". Symlinks are not
 *  followed; directories aliased to each other (merged /usr: /bin -> usr/bin) are walked once and
 *  reported under their canonical path. */
export async function suidBin(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  const [users, groups, rootReal] = await Promise.all([ctx.passwd(), ctx.groups(), realPath(ctx.root)]);
  if (rootReal === undefined) return rows;
  const userNames = new Map<number, string>();
  for (const u of users) if (!userNames.has(u.uid)) userNames.set(u.uid, u.username);
  const seen = new Set<string>();

  const walk = async (logicalDir: string, depth: number): Promise<void> => {
    for (const entry of await readDir(ctx.at(logicalDir))) {
      if (rows.length >= ctx.max) return;
      const file = path.posix.join(logicalDir, entry);
      const st = await lstatOf(ctx.at(file));
      if (st === undefined || st.isSymbolicLink()) continue;
      if (st.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(file, depth + 1);
        continue;
      }
      if (!st.isFile() || (st.mode & 0o6000) === 0) continue;
      rows.push({
        path: file,
        username: userNames.get(st.uid) ?? String(st.uid),
        groupname: groups.get(st.gid) ?? String(st.gid),
        permissions: (st.mode & 0o4000 ? "S" : "") + (st.mode & 0o2000 ? "G" : ""),
      });
    }
  };

  for (const dir of SUID_DIRS) {
    const real = await realPath(ctx.at(dir));
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    const rel = path.relative(rootReal, real);
    if (rel.startsWith("..") || path.isAbsolute(rel)) continue; // alias points outside the root
    await walk("/" + rel.split(path.sep).join("/"), 1);
  }
  return rows;
}
