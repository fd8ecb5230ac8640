// process_memory_map from /proc/<pid>/maps, restricted to file-backed shared-object mappings (the
// loaded libraries), one row per library per pid. Columns and value formats follow osquery's
// genProcessMap: start/end "0x"-prefixed hex, offset decimal, device and inode as printed, pseudo "0".
import { readText, type Ctx, type Row } from "./util.js";

const MAPS_CAP = 4 * 1024 * 1024;
const LIBS_PER_PID = 256;
/** libc.so.6, ld-linux-x86-64.so.2, libfoo.so, and an unlinked "/tmp/x.so (deleted)". */
const SHARED_OBJECT = /\.so(\.[0-9][0-9.]*)?$/;

export interface MapsLine {
  start: string;
  end: string;
  permissions: string;
  offset: number;
  device: string;
  inode: string;
  path: string;
  pseudo: number;
}

/** The five fields before a maps path, and the path: the rest of the line. */
const MAPS_LINE = /^(\S+) +(\S+) +(\S+) +(\S+) +(\S+)(?: +(.*))?$/;
const DELETED = " (deleted)";

/** One /proc/<pid>/maps line: "start-end perms offset dev inode [path]". The path is the rest of the line without
 *  the kernel's " (deleted)" ("/tmp/x.so (deleted)" reads "/tmp/x.so"). osquery takes the first token after the
 *  inode, so a library at "/home/u/my lib.so" read "/home/u/my" and left the table: any user could hide one so. */
export function parseMapsLine(line: string): MapsLine | undefined {
  const m = MAPS_LINE.exec(line);
  if (!m) return undefined;
  const f = m.slice(1);
  const range = (f[0] ?? "").split("-");
  if (range.length < 2 || range[0] === "" || range[1] === "") return undefined;
  const offset = Number.parseInt(f[2] ?? "", 16);
  const rest = (f[5] ?? "").trim();
  const path = rest.endsWith(DELETED) ? rest.slice(0, -DELETED.length) : rest;
  return {
    start: `0x${range[0]}`,
    end: `0x${range[1]}`,
    permissions: f[1] ?? "",
    offset: Number.isFinite(offset) ? offset : -1,
    device: f[3] ?? "",
    inode: f[4] ?? "",
    path,
    pseudo: f[4] === "0" && path !== "" ? 1 : 0,
  };
}

/** File-backed .so mappings of one maps file, the first mapping of each path only. */
export function sharedObjects(text: string, max = LIBS_PER_PID): MapsLine[] {
  const seen = new Set<string>();
  const out: MapsLine[] = [];
  for (const line of text.split("\n")) {
    const m = parseMapsLine(line);
    if (m === undefined || m.inode === "0" || !m.path.startsWith("/") || !SHARED_OBJECT.test(m.path) || seen.has(m.path)) continue;
    seen.add(m.path);
    out.push(m);
    if (out.length >= max) break;
  }
  return out;
}

export async function processMemoryMap(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pid of await ctx.pids()) {
    if (rows.length >= ctx.max) break;
    const text = await readText(ctx.at(`/proc/${pid}/maps`), MAPS_CAP);
    if (text === undefined) continue;
    for (const m of sharedObjects(text)) {
      rows.push({ pid: Number(pid), ...m });
      if (rows.length >= ctx.max) break;
    }
  }
  return rows;
}
