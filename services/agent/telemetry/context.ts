// Builds the per-collection Ctx: root mapping, row cap and memoised scans shared by tables
// (pid list, passwd, groups, socket ownership) so requesting several tables scans /proc once.
import { mapLimit, parsePasswd, readDir, readDirUpTo, readLink, readText, underRoot, type Ctx, type PasswdEntry } from "./util.js";

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let memo: Promise<T> | undefined;
  return () => (memo ??= fn());
}

const SOCKET_LINK = /^socket:\[(\d+)\]$/;

/**
 * Descriptors read to find sockets' owners, per process and in all. Any user may hold as many as its limit allows
 * (often a million), and each read one is a name, a readlink and an entry in memory: unbounded, one process made the
 * agent allocate without limit. The lowest fds are read first (a listener is usually among a process's first).
 */
export const FDS_PER_PROCESS = 4096;
export const FDS_TOTAL = 32_768;

export function createContext(root: string, max: number): Ctx {
  const at = (logical: string) => underRoot(root, logical);

  const pids = once(async () =>
    (await readDir(at("/proc"))).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(a) - Number(b)),
  );

  const passwd = once(async (): Promise<PasswdEntry[]> => parsePasswd((await readText(at("/etc/passwd"))) ?? ""));

  const groups = once(async () => {
    const map = new Map<number, string>();
    for (const line of ((await readText(at("/etc/group"))) ?? "").split("\n")) {
      const [name, , gid] = line.split(":");
      if (name && gid && /^\d+$/.test(gid) && !map.has(Number(gid))) map.set(Number(gid), name);
    }
    return map;
  });

  const socketOwners = once(async () => {
    const owners = new Map<string, { pid: number; fd: number }>();
    const list = await pids();
    // Spent a descriptor at a time as the 16 processes read at once read them: reserving a process's whole share
    // before its read let the first eight take the total, and the next processes of an ordinary host read nothing.
    const total = { left: FDS_TOTAL };
    let complete = true;
    const perPid = await mapLimit(list, 16, async (pid) => {
      const fdDir = at(`/proc/${pid}/fd`);
      const { names: fds, complete: all } = await readDirUpTo(fdDir, FDS_PER_PROCESS, total);
      if (!all) complete = false;
      const links = await mapLimit(fds, 32, (fd) => readLink(`${fdDir}/${fd}`));
      return fds.flatMap((fd, i) => {
        const inode = SOCKET_LINK.exec(links[i] ?? "")?.[1];
        return inode === undefined ? [] : [[fd, inode] as const];
      });
    });
    // Merge in pid order so a socket shared across fork is attributed to the lowest pid, deterministically.
    perPid.forEach((entries, i) => {
      for (const [fd, inode] of entries) {
        if (!owners.has(inode)) owners.set(inode, { pid: Number(list[i]), fd: Number(fd) });
      }
    });
    return { owners, complete };
  });

  // btime from /proc/stat: processes.start_time is boot time + start ticks, as in osquery.
  const bootTime = once(async () => {
    const m = /^btime\s+(\d+)$/m.exec((await readText(at("/proc/stat"), 1024 * 1024)) ?? "");
    return m ? Number(m[1]) : 0;
  });

  // collectLinux gives each table its own cut(); a context made for one collector alone has nowhere to say it.
  return { root, max, at, pids, passwd, groups, socketOwners, bootTime, cut: () => undefined };
}
