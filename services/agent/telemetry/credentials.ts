// Account databases: shadow (status and algorithm only, never the hash), groups, user_groups.
import { readText, toInt, type Ctx, type Row } from "./util.js";

/** osquery's password_status: "!!" not_set; "!", "*" or "x" prefix locked; empty; otherwise active. */
export function passwordStatus(password: string): string {
  if (password === "!!") return "not_set";
  if (password.startsWith("!") || password.startsWith("*") || password.startsWith("x")) return "locked";
  if (password === "") return "empty";
  return "active";
}

/** The crypt(3) id of a "$id$..." hash ("6", "y", "2b"), "" otherwise (also for locked "!$6$..."). */
export function hashAlgorithm(password: string): string {
  return /^\$(\w+)\$/.exec(password)?.[1] ?? "";
}

/** A shadow number field as getspent(3) returns it: empty or invalid is -1. */
function spNumber(field: string | undefined): number {
  return field !== undefined && /^-?\d+$/.test(field.trim()) ? toInt(field.trim()) : -1;
}

/** One /etc/shadow line to an osquery row. The password field is reduced to status and algorithm. */
export function shadowRow(line: string): Row | undefined {
  if (line.trim() === "" || line.startsWith("#")) return undefined;
  const f = line.split(":");
  if (f.length < 2 || f[0] === "") return undefined;
  const password = f[1] ?? "";
  return {
    password_status: passwordStatus(password),
    hash_alg: hashAlgorithm(password),
    last_change: spNumber(f[2]),
    min: spNumber(f[3]),
    max: spNumber(f[4]),
    warning: spNumber(f[5]),
    inactive: spNumber(f[6]),
    expire: spNumber(f[7]),
    flag: spNumber(f[8]),
    username: f[0] ?? "",
  };
}

export async function shadow(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const line of ((await readText(ctx.at("/etc/shadow"))) ?? "").split("\n")) {
    const row = shadowRow(line);
    if (row !== undefined) rows.push(row);
    if (rows.length >= ctx.max) break;
  }
  return rows;
}

export interface GroupEntry {
  groupname: string;
  gid: number;
  members: string[];
}

export function parseGroup(text: string): GroupEntry[] {
  const out: GroupEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const f = line.split(":");
    if (f.length < 3 || f[0] === "" || !/^\d+$/.test(f[2] ?? "")) continue;
    const members = (f[3] ?? "").split(",").map((m) => m.trim()).filter((m) => m !== "");
    out.push({ groupname: f[0] ?? "", gid: Number(f[2]), members });
  }
  return out;
}

async function groupEntries(ctx: Ctx): Promise<GroupEntry[]> {
  return parseGroup((await readText(ctx.at("/etc/group"))) ?? "");
}

export async function groups(ctx: Ctx): Promise<Row[]> {
  return (await groupEntries(ctx)).slice(0, ctx.max).map((g) => ({ gid: g.gid, gid_signed: g.gid | 0, groupname: g.groupname }));
}

/** uid -> gid for the primary group and every group that lists the user (getgrouplist semantics). */
export async function userGroups(ctx: Ctx): Promise<Row[]> {
  const [users, entries] = await Promise.all([ctx.passwd(), groupEntries(ctx)]);
  const rows: Row[] = [];
  for (const user of users) {
    const gids = new Set<number>([user.gid]);
    for (const g of entries) if (g.members.includes(user.username)) gids.add(g.gid);
    for (const gid of gids) {
      rows.push({ uid: user.uid, gid });
      if (rows.length >= ctx.max) return rows;
    }
  }
  return rows;
}
