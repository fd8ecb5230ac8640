// systemd unit files on disk: a small INI reader shared by systemd_units (disk fallback) and augeas
// (the Exec* directives, shaped as osquery's augeas table returns them with the Systemd lens).
import * as path from "node:path";
import { homes, lstatOf, readDir, readHeadLines, readLink, realPath, statOf, type Ctx, type Row } from "./util.js";

export const SYSTEM_UNIT_DIRS = ["/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"];
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
    let value = e.value.replace(/\s+#.*$/, "");
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

/** A unit file's entries, from its first UNIT_FILE_BYTES (a longer file: the table is named in truncated). */
export async function readUnitEntries(ctx: Ctx, logical: string): Promise<UnitEntry[]> {
  const { lines, cut } = await readHeadLines(ctx.at(logical), UNIT_FILE_BYTES);
  if (cut) ctx.cut();
  return parseUnitEntries(lines);
}

/** Unit directories, system ones first, then each home's ~/.config/systemd/user; aliases walked once. */
async function unitDirs(ctx: Ctx, withUser: boolean): Promise<string[]> {
  const dirs = [...SYSTEM_UNIT_DIRS];
  if (withUser) for (const u of await homes(ctx)) dirs.push(path.posix.join(u.directory, ".config/systemd/user"));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const dir of dirs) {
    const real = await realPath(ctx.at(dir));
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    out.push(dir);
  }
  return out;
}

export interface UnitFileRef {
  id: string;
  /** Where the unit was found. */
  file: string;
  /** The symlink target when the entry is a link (resolved against its directory), else undefined. */
  link: string | undefined;
}

/** Unit files (not .wants/ links) in the search path. `first` keeps only the first of each id
 *  (/etc overrides /run overrides /usr/lib), as systemd does. */
export async function unitFiles(ctx: Ctx, opts: { withUser: boolean; first: boolean }): Promise<UnitFileRef[]> {
  const out: UnitFileRef[] = [];
  const ids = new Set<string>();
  for (const dir of await unitDirs(ctx, opts.withUser)) {
    for (const id of await readDir(ctx.at(dir))) {
      if (!UNIT_SUFFIX.test(id) || (opts.first && ids.has(id))) continue;
      const file = path.posix.join(dir, id);
      const st = await lstatOf(ctx.at(file));
      if (st === undefined || st.isDirectory()) continue;
      const target = st.isSymbolicLink() ? await readLink(ctx.at(file)) : undefined;
      ids.add(id);
      out.push({ id, file, link: target === undefined ? undefined : path.posix.resolve(dir, target) });
    }
  }
  return out;
}

/** Drop-in files (<dir>/<unit>.d/*.conf): the lens parses them too, and they can replace ExecStart. */
async function dropIns(ctx: Ctx, withUser: boolean): Promise<string[]> {
  const out: string[] = [];
  for (const dir of await unitDirs(ctx, withUser)) {
    for (const name of await readDir(ctx.at(dir))) {
      if (!name.endsWith(".d") || !UNIT_SUFFIX.test(name.slice(0, -2))) continue;
      const sub = path.posix.join(dir, name);
      for (const conf of await readDir(ctx.at(sub))) {
        if (conf.endsWith(".conf") && (await statOf(ctx.at(path.posix.join(sub, conf))))?.isFile()) out.push(path.posix.join(sub, conf));
      }
    }
  }
  return out;
}

export async function augeas(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  const files = (await unitFiles(ctx, { withUser: true, first: false }))
    .filter((u) => u.link !== "/dev/null")
    .map((u) => u.file);
  for (const file of [...files, ...(await dropIns(ctx, true))]) {
    // Symlinked units are read through the link (an alias, or a unit planted elsewhere and linked in).
    for (const row of augeasExecRows(file, await readUnitEntries(ctx, file), ctx.max - rows.length)) {
      rows.push(row);
      if (rows.length >= ctx.max) return rows;
    }
  }
  return rows;
}
