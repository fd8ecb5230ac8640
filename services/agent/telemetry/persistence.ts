// Persistence locations: crontab and systemd_units (parsed from unit files, no D-Bus).
import * as path from "node:path";
import { lstatOf, readDir, readLines, readLink, realPath, type Ctx, type Row } from "./util.js";

const CRON_FIELDS = ["minute", "hour", "day_of_month", "month", "day_of_week"] as const;
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\s*=/;

/** One crontab line, split the way osquery does: five schedule fields (or an @event) and the
 *  rest as command. System crontabs keep their user column inside `command`, as osquery does. */
export function parseCronLine(line: string, file: string): Row | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#") || ENV_ASSIGNMENT.test(text)) return undefined;
  const tokens = text.split(/\s+/);
  const row: Row = { event: "", minute: "", hour: "", day_of_month: "", month: "", day_of_week: "", command: "", path: file };
  if (tokens[0]?.startsWith("@")) {
    if (tokens.length < 2) return undefined;
    row.event = tokens[0];
    row.command = tokens.slice(1).join(" ");
    return row;
  }
  if (tokens.length < 6) return undefined;
  CRON_FIELDS.forEach((field, i) => (row[field] = tokens[i] ?? ""));
  row.command = tokens.slice(5).join(" ");
  return row;
}

async function cronFiles(ctx: Ctx): Promise<string[]> {
  const files = ["/etc/crontab"];
  for (const dir of ["/etc/cron.d", "/var/spool/cron/crontabs", "/var/spool/cron"]) {
    for (const entry of await readDir(ctx.at(dir))) {
      const file = path.posix.join(dir, entry);
      if ((await lstatOf(ctx.at(file)))?.isFile()) files.push(file);
    }
  }
  return files;
}

export async function crontab(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const file of await cronFiles(ctx)) {
    for (const line of await readLines(ctx.at(file))) {
      const row = parseCronLine(line, file);
      if (row === undefined) continue;
      rows.push(row);
      if (rows.length >= ctx.max) return rows;
    }
  }
  return rows;
}

const UNIT_DIRS = ["/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"];
const UNIT_SUFFIX = /\.(service|socket|timer|target|path|mount|automount|swap|slice|scope)$/;

export interface UnitFile {
  description: string;
  execStart: string;
  user: string;
}

/** Minimal systemd unit parser: [Unit] Description, [Service] ExecStart (all of them, an empty
 *  assignment resets the list, as systemd does) and User. Handles "\" line continuations. */
export function parseUnitFile(lines: readonly string[]): UnitFile {
  const out: UnitFile = { description: "", execStart: "", user: "" };
  const exec: string[] = [];
  let section = "";
  let carry = "";
  for (const raw of lines) {
    const line = carry + raw.trim();
    if (line.endsWith("\\")) {
      carry = line.slice(0, -1).trimEnd() + " ";
      continue;
    }
    carry = "";
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] ?? "";
      continue;
    }
    const eq = line.indexOf("=");
    if (eq === -1) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (section === "Unit" && key === "Description") out.description = value;
    else if (section === "Service" && key === "ExecStart") {
      if (value === "") exec.length = 0;
      else exec.push(value);
    } else if (section === "Service" && key === "User") out.user = value;
  }
  out.execStart = exec.join("; ");
  return out;
}

export async function systemdUnits(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  const seenIds = new Set<string>();
  const seenDirs = new Set<string>();
  // /etc overrides /lib: the first directory to define an id wins, like systemd's search path.
  for (const dir of UNIT_DIRS) {
    const real = await realPath(ctx.at(dir));
    if (real === undefined || seenDirs.has(real)) continue;
    seenDirs.add(real);
    for (const id of await readDir(ctx.at(dir))) {
      if (!UNIT_SUFFIX.test(id) || seenIds.has(id)) continue;
      const file = path.posix.join(dir, id);
      const st = await lstatOf(ctx.at(file));
      if (st === undefined || st.isDirectory()) continue;
      seenIds.add(id);
      // Alias symlinks resolve inside the (possibly fake) root; /dev/null means masked.
      const link = st.isSymbolicLink() ? await readLink(ctx.at(file)) : undefined;
      const masked = link === "/dev/null";
      const fragment = link === undefined || masked ? file : path.posix.resolve(dir, link);
      const unit = masked ? { description: "", execStart: "", user: "" } : parseUnitFile(await readLines(ctx.at(fragment)));
      rows.push({
        id,
        description: unit.description,
        load_state: masked ? "masked" : "unknown",
        active_state: "unknown",
        sub_state: "unknown",
        fragment_path: masked ? "" : fragment,
        user: unit.user,
        exec_start: unit.execStart,
      });
      if (rows.length >= ctx.max) return rows;
    }
  }
  return rows;
}
