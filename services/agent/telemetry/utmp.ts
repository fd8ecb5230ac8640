// Login records: `last` from /var/log/wtmp, `logged_in_users` from /var/run/utmp (or /run/utmp).
// Both files are arrays of glibc `struct utmp` (x86_64 / aarch64 layout, 384 bytes):
//   0 ut_type i16 | 4 ut_pid i32 | 8 ut_line[32] | 40 ut_id[4] | 44 ut_user[32] | 76 ut_host[256]
//   332 ut_exit | 336 ut_session i32 | 340 ut_tv.tv_sec i32 | 344 tv_usec i32 | 348 ut_addr_v6[16]
import { openRegular, type Ctx, type Row } from "./util.js";

export const UTMP_RECORD_SIZE = 384;

const TYPE_NAMES: Record<number, string> = {
  0: "empty",
  1: "runlevel",
  2: "boot_time",
  3: "new_time",
  4: "old_time",
  5: "init",
  6: "login",
  7: "user",
  8: "dead",
  9: "accounting",
};

export interface UtmpRecord {
  type: number;
  pid: number;
  line: string;
  user: string;
  host: string;
  time: number;
}

function cString(buf: Buffer, start: number, length: number): string {
  const field = buf.subarray(start, start + length);
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString("utf8");
}

export function parseUtmp(buf: Buffer): UtmpRecord[] {
  const out: UtmpRecord[] = [];
  for (let off = 0; off + UTMP_RECORD_SIZE <= buf.length; off += UTMP_RECORD_SIZE) {
    out.push({
      type: buf.readInt16LE(off),
      pid: buf.readInt32LE(off + 4),
      line: cString(buf, off + 8, 32),
      user: cString(buf, off + 44, 32),
      host: cString(buf, off + 76, 256),
      time: buf.readUInt32LE(off + 340),
    });
  }
  return out;
}

/** The last `maxRecords` whole records of a utmp-format file (wtmp grows without bound). */
async function readTail(file: string, maxRecords: number): Promise<Buffer | undefined> {
  const fh = await openRegular(file);
  if (fh === undefined) return undefined;
  try {
    const { size } = await fh.stat();
    const records = Math.floor(size / UTMP_RECORD_SIZE);
    const take = Math.min(records, maxRecords);
    const buf = Buffer.alloc(take * UTMP_RECORD_SIZE);
    const { bytesRead } = await fh.read(buf, 0, buf.length, (records - take) * UTMP_RECORD_SIZE);
    return buf.subarray(0, bytesRead - (bytesRead % UTMP_RECORD_SIZE));
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

export async function last(ctx: Ctx): Promise<Row[]> {
  const buf = await readTail(ctx.at("/var/log/wtmp"), ctx.max);
  if (buf === undefined) return [];
  return parseUtmp(buf).map((r) => ({
    username: r.user,
    tty: r.line,
    pid: r.pid,
    type: r.type,
    type_name: TYPE_NAMES[r.type] ?? "unknown",
    time: r.time,
    host: r.host,
  }));
}

export async function loggedInUsers(ctx: Ctx): Promise<Row[]> {
  const buf = (await readTail(ctx.at("/var/run/utmp"), ctx.max * 4)) ?? (await readTail(ctx.at("/run/utmp"), ctx.max * 4));
  if (buf === undefined) return [];
  const rows: Row[] = [];
  for (const r of parseUtmp(buf)) {
    // init's own records (pid 1) and empty slots are bookkeeping, not sessions (osquery skips pid 1 too).
    if (r.pid === 1 || r.type === 0) continue;
    rows.push({ type: TYPE_NAMES[r.type] ?? "unknown", user: r.user, tty: r.line, host: r.host, time: r.time, pid: r.pid });
    if (rows.length >= ctx.max) break;
  }
  return rows;
}
