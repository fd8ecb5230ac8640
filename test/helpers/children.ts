// The processes a process started, read from /proc (tests of `inquest up` check what it left running).
import { readdirSync, readFileSync } from "node:fs";

/** Every process whose parent is `ppid`, with its command line. */
export function childrenOf(ppid: number): Array<{ pid: number; cmd: string }> {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== ppid) continue;
      out.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ") });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}
