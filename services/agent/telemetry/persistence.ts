// Persistence locations: crontab (systemd units live in systemd-units.ts and unit-files.ts).
import * as path from "node:path";
import { lstatOf, readDir, readLines, type Ctx, type Row } from "./util.js";

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
