// systemd unit files on disk: a small INI reader shared by systemd_units (disk fallback) and augeas
// (the Exec* directives, shaped as osquery's augeas table returns them with the Systemd lens).
import * as path from "node:path";
import { homes, lstatOf, openUserFile, readDir, readHeadLines, readLink, realPath, statOf, type Ctx, type PasswdEntry, type Row } from "./util.js";

export const SYSTEM_UNIT_DIRS = ["/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"];
/** Where the system keeps units for users' managers: a user's unit may be an alias of one (a link to it). */
const SYSTEM_USER_UNIT_DIRS = ["/etc/systemd/user", "/run/systemd/user", "/usr/lib/systemd/user", "/lib/systemd/user"];
const USER_UNIT_DIR = ".config/systemd/user";
export const UNIT_SUFFIX = /\.(service|socket|timer|target|path|mount|automount|swap|slice|scope|device)$/;
/**
 * What is read of a unit file: its start, as systemd reads it. Units are a few KiB; a user's own
 * (~/.config/systemd/user) are the user's to fill, and augeas makes a row of every ExecStart argument, so a unit read
 * to 1 MiB made half a million rows at once. A longer file names the table in truncated.
 */
export const UNIT_FILE_BYTES = 256 * 1024;
/** The lens' entry_command_kw: ExecStart, ExecStartPre, ExecStop, ExecReload, ... */
const EXEC_KEY = /^Exec[A-Za-z][A-Za-z0-9._-]+$/;

export interface UnitEntry {
  section: string;
  key: string;
  value: string;
}

/** Key/value entries in file order. Trailing "\" joins the next line (with a space, as systemd does);
 *  "#" and ";" lines are comments; keys outside a [Section] are ignored. */
export function parseUnitEntries(lines: readonly string[]): UnitEntry[] {
  const out: UnitEntry[] = [];
  let section = "";
  let carry: string | undefined;
  for (const raw of lines) {
    const trimmed = raw.trim();
    if (carry !== undefined && (trimmed.startsWith("#") || trimmed.startsWith(";"))) continue; // comment inside a continuation
    const line = carry === undefined ? trimmed : `${carry} ${trimmed}`;
    if (line.endsWith("\\")) {
      carry = line.slice(0, -1).trimEnd();
      continue;
    }
    carry = undefined;
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] ?? "";
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || section === "") continue;
    out.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
  }
  if (carry !== undefined && carry !== "") {
    const eq = carry.indexOf("=");
    if (eq > 0 && section !== "") out.push({ section, key: carry.slice(0, eq).trim(), value: carry.slice(eq + 1).trim() });
  }
  return out;
}

export interface UnitSummary {
  description: string;
  user: string;
  hasInstall: boolean;
}

export function summariseUnit(entries: readonly UnitEntry[]): UnitSummary {
  const out: UnitSummary = { description: "", user: "", hasInstall: false };
  for (const e of entries) {
    if (e.section === "Unit" && e.key === "Description") out.description = e.value;
    else if (e.section === "Service" && e.key === "User") out.user = e.value;
    else if (e.section === "Install") out.hasInstall = true;
  }
  return out;
}

function augeasRow(node: string, label: string, value: string, file: string): Row {
  return { node, value, label, path: file };
}

/** augeas rows for the Exec* directives of one unit file, as the Systemd lens builds the tree:
 *  .../Service/ExecStart (no value) with children ignoreexit ("-" prefix), arg0 ("@"), command,
 *  and arguments (no value) whose children 1, 2, ... hold the arguments. Repeated directives in one
 *  section are numbered ExecStart[1], ExecStart[2], as aug_match prints them. The first `max` rows
 *  only: the rest are never made. */
export function augeasExecRows(file: string, entries: readonly UnitEntry[], max = Infinity): Row[] {
  const counts = new Map<string, number>();
  for (const e of entries) if (EXEC_KEY.test(e.key)) counts.set(`${e.section}/${e.key}`, (counts.get(`${e.section}/${e.key}`) ?? 0) + 1);
  const seen = new Map<string, number>();
  const rows: Row[] = [];
  for (const e of entries) {
    if (rows.length >= max) break;
    if (!EXEC_KEY.test(e.key)) continue;
    const id = `${e.section}/${e.key}`;
    const index = (seen.get(id) ?? 0) + 1;
    seen.set(id, index);
    const base = `/files${file}/${e.section}/${e.key}${(counts.get(id) ?? 0) > 1 ? `[${index}]` : ""}`;
    rows.push(augeasRow(base, e.key, "", file));
    let value = withoutComment(e.value);
    if (value.startsWith("-")) {
      rows.push(augeasRow(`${base}/ignoreexit`, "ignoreexit", "", file));
      value = value.slice(1);
    }
    if (value.startsWith("@")) {
      rows.push(augeasRow(`${base}/arg0`, "arg0", "", file));
      value = value.slice(1);
    }
    const [command, ...args] = value.trim().split(/\s+/).filter((t) => t !== "");
    if (command === undefined) continue; // "ExecStart=" resets the list: a node with no children
    rows.push(augeasRow(`${base}/command`, "command", command, file));
    if (args.length === 0) continue;
    rows.push(augeasRow(`${base}/arguments`, "arguments", "", file));
    for (let i = 0; i < args.length && rows.length < max; i++) rows.push(augeasRow(`${base}/arguments/${i + 1}`, String(i + 1), args[i] as string, file));
  }
  return rows.slice(0, max);
}

/**
 * A unit file's entries, from its first UNIT_FILE_BYTES (a longer file: the table is named in truncated). One found in
 * a user's unit directory (`user` set) is read only if that user could read it (openUserFile): the agent reads as root,
 * and the directory is the user's to fill, so a link there to /etc/shadow or to root's files was read and reported.
 */
export async function readUnitEntries(ctx: Ctx, logical: string, user?: PasswdEntry): Promise<UnitEntry[]> {
  const file =
    user === undefined
      ? ctx.at(logical)
      : await openUserFile(ctx, user, path.posix.join(user.directory, USER_UNIT_DIR), logical, [...SYSTEM_UNIT_DIRS, ...SYSTEM_USER_UNIT_DIRS]);
  if (file === undefined) return [];
  const { lines, cut } = await readHeadLines(file, UNIT_FILE_BYTES);
  if (cut) ctx.cut();
  return parseUnitEntries(lines);
}

/** A unit directory, and the user whose it is (undefined for the system's). */
interface UnitDir {
  dir: string;
  user: PasswdEntry | undefined;
}

/**
 * Unit directories, system ones first, then each home's ~/.config/systemd/user; aliases walked once. A user's directory
 * that is a system one is skipped; one linked to another user's is walked for each (as each user's, whose files are
 * then read only if that user could read them), so a link cannot take the other user's units out of the table.
 */
async function unitDirs(ctx: Ctx, withUser: boolean): Promise<UnitDir[]> {
  const dirs: UnitDir[] = SYSTEM_UNIT_DIRS.map((dir) => ({ dir, user: undefined }));
  if (withUser) for (const user of await homes(ctx)) dirs.push({ dir: path.posix.join(user.directory, USER_UNIT_DIR), user });
  const system = new Set<string>();
  const seen = new Set<string>();
  const out: UnitDir[] = [];
  for (const d of dirs) {
    const real = await realPath(ctx.at(d.dir));
    const key = `${d.user?.uid ?? ""}:${real}`;
    if (real === undefined || system.has(real) || seen.has(key)) continue;
    if (d.user === undefined) system.add(real);
    seen.add(key);
    out.push(d);
  }
  return out;
}

export interface UnitFileRef {
  id: string;
  /** Where the unit was found. */
  file: string;
  /** The symlink target when the entry is a link (resolved against its directory), else undefined. */
  link: string | undefined;
  /** The user whose unit directory it is in, undefined for the system's. */
  user: PasswdEntry | undefined;
}

/** Unit files (not .wants/ links) in the search path. `first` keeps only the first of each id
 *  (/etc overrides /run overrides /usr/lib), as systemd does. */
export async function unitFiles(ctx: Ctx, opts: { withUser: boolean; first: boolean }): Promise<UnitFileRef[]> {
  const out: UnitFileRef[] = [];
  const ids = new Set<string>();
  for (const { dir, user } of await unitDirs(ctx, opts.withUser)) {
    for (const id of await readDir(ctx.at(dir))) {
      if (!UNIT_SUFFIX.test(id) || (opts.first && ids.has(id))) continue;
      const file = path.posix.join(dir, id);
      const st = await lstatOf(ctx.at(file));
      if (st === undefined || st.isDirectory()) continue;
      const target = st.isSymbolicLink() ? await readLink(ctx.at(file)) : undefined;
      ids.add(id);
      out.push({ id, file, link: target === undefined ? undefined : path.posix.resolve(dir, target), user });
    }
  }
  return out;
}

/** Drop-in files (<dir>/<unit>.d/*.conf): the lens parses them too, and they can replace ExecStart. */
async function dropIns(ctx: Ctx, withUser: boolean): Promise<Array<{ file: string; user: PasswdEntry | undefined }>> {
  const out: Array<{ file: string; user: PasswdEntry | undefined }> = [];
  for (const { dir, user } of await unitDirs(ctx, withUser)) {
    for (const name of await readDir(ctx.at(dir))) {
      if (!name.endsWith(".d") || !UNIT_SUFFIX.test(name.slice(0, -2))) continue;
      const sub = path.posix.join(dir, name);
      for (const conf of await readDir(ctx.at(sub))) {
        const file = path.posix.join(sub, conf);
        if (conf.endsWith(".conf") && (await statOf(ctx.at(file)))?.isFile()) out.push({ file, user });
      }
    }
  }
  return out;
}

export async function augeas(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  const files = (await unitFiles(ctx, { withUser: true, first: false })).filter((u) => u.link !== "/dev/null");
  for (const { file, user } of [...files, ...(await dropIns(ctx, true))]) {
    // Symlinked units are read through the link (an alias, or a unit planted elsewhere and linked in); a user's only
    // to what the user could read.
    for (const row of augeasExecRows(file, await readUnitEntries(ctx, file, user), ctx.max - rows.length)) {
      rows.push(row);
      if (rows.length >= ctx.max) return rows;
    }
  }
  return rows;
}

/** Line terminators, which `.` does not cross. */
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * The value without a trailing comment: what `value.replace(/\s+#.*$/, "")` gives, in one pass (that expression retried
 * every blank of a long run: quadratic on a user's own unit, which any user may write; a ReDoS audit). The comment is
 * the first `#` after the last line end with a blank before it, cut with the blanks before it.
 */
export function withoutComment(value: string): string {
  let lastEnd = -1;
  for (let i = value.length - 1; i >= 0; i--) {
    if (LINE_END.test(value[i] ?? "")) {
      lastEnd = i;
      break;
    }
  }
  for (let k = value.indexOf("#", lastEnd + 1); k >= 0; k = value.indexOf("#", k + 1)) {
    if (k === 0 || !/\s/.test(value[k - 1] ?? "")) continue;
    let start = k - 1;
    while (start > 0 && /\s/.test(value[start - 1] ?? "")) start--;
    return value.slice(0, start);
  }
  return value;
}
