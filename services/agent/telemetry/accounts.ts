// Account tables: users, authorized_keys, shell_history, sudoers.
import * as path from "node:path";
import { fairShares } from "./fair-shares.js";
import { detached, homes, readDir, readLines, statOf, userFileTail, type Ctx, type Row } from "./util.js";

export async function users(ctx: Ctx): Promise<Row[]> {
  return (await ctx.passwd()).slice(0, ctx.max).map((u) => ({
    uid: u.uid,
    gid: u.gid,
    uid_signed: u.uid | 0,
    gid_signed: u.gid | 0,
    username: u.username,
    description: u.description,
    directory: u.directory,
    shell: u.shell,
    uuid: "",
  }));
}

const KEY_TYPE = /^(ssh-[a-z0-9-]+|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9-]+@openssh\.com|[a-z0-9-]+-cert-v0\d@openssh\.com)$/i;

/** Split one authorized_keys line into options / algorithm / key / comment. Options may
 *  contain quoted strings with spaces (command="..."), so they are scanned, not split. */
export function parseAuthorizedKey(line: string): { options: string; algorithm: string; key: string; comment: string } | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  let options = "";
  let rest = text;
  const first = text.split(/\s+/, 1)[0] ?? "";
  if (!KEY_TYPE.test(first)) {
    let i = 0;
    let quoted = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "\\" && quoted) i++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === " " || c === "\t")) break;
    }
    options = text.slice(0, i);
    rest = text.slice(i).trim();
  }
  const [algorithm = "", key = "", ...comment] = rest.split(/\s+/);
  if (algorithm === "" || key === "") return undefined;
  return { options, algorithm, key, comment: comment.join(" ") };
}

/**
 * What is read of each authorized_keys file: its end, where keys are appended (ssh-copy-id, `>>`). The file is its
 * user's to fill; read whole (16 MiB of it), one of short lines held millions of strings at once, most of the agent's
 * heap. 1 MiB holds thousands of keys; a longer file names the table in truncated.
 */
export const AUTHORIZED_KEYS_TAIL_BYTES = 1024 * 1024;

export async function authorizedKeys(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const user of await homes(ctx)) {
    for (const name of ["authorized_keys", "authorized_keys2"]) {
      const keyFile = path.posix.join(user.directory, ".ssh", name);
      // Only the user's own: the agent reads as root, and a user could point the file (or ~/.ssh) at anything root may read.
      const { lines, cut } = await userFileTail(ctx, user, keyFile, AUTHORIZED_KEYS_TAIL_BYTES);
      if (cut) ctx.cut();
      for (const line of lines) {
        const parsed = parseAuthorizedKey(line);
        if (parsed === undefined) continue;
        // Copied: a row kept from the file's text would hold all of it (1 MiB a file) until the snapshot is sent.
        const { options, algorithm, key, comment } = parsed;
        rows.push({ uid: user.uid, options: detached(options), algorithm: detached(algorithm), key: detached(key), comment: detached(comment), key_file: keyFile });
        if (rows.length >= ctx.max) return rows;
      }
    }
  }
  return rows;
}

/** bash (optionally with "#<epoch>" HISTTIMEFORMAT lines) and zsh (": <epoch>:<dur>;cmd") history. */
export function parseHistory(lines: readonly string[]): Array<{ time: number; command: string }> {
  const out: Array<{ time: number; command: string }> = [];
  let pendingTime = 0;
  for (const line of lines) {
    if (line === "") continue;
    const bashTime = /^#(\d{9,})$/.exec(line);
    if (bashTime) {
      pendingTime = Number(bashTime[1]);
      continue;
    }
    const zsh = /^: (\d+):\d+;(.*)$/s.exec(line);
    if (zsh) out.push({ time: Number(zsh[1]), command: zsh[2] ?? "" });
    else out.push({ time: pendingTime, command: line });
    pendingTime = 0;
  }
  return out;
}

/**
 * What is read of each history file: its end, where shells append the newest commands. A history is its user's to
 * fill; read from its start (16 MiB of it), it gave the oldest commands, and one of short lines was millions of rows
 * held at once, past the agent's heap. 1 MiB holds tens of thousands of commands, more than the table's cap.
 */
export const HISTORY_TAIL_BYTES = 1024 * 1024;

const HISTORY_FILES = [".bash_history", ".zsh_history"];

/** One history file's entries (oldest first) as far as its share keeps them, and how many it had. */
interface History {
  uid: number;
  file: string;
  count: number;
  entries: Array<{ time: number; command: string }>;
}

/**
 * Every user's histories are read, and each user keeps its newest commands within a fair share of the table's cap
 * (fairShares; its files then share the user's share the same way). Read user by user against one cap, a first user
 * (root) with that many recent commands left no row for any other. A share never grows as later users are read, so
 * each user's entries are cut to their share at once and what is held stays near the cap.
 */
export async function shellHistory(ctx: Ctx): Promise<Row[]> {
  const users: History[][] = [];
  for (const user of await homes(ctx)) {
    const files: History[] = [];
    for (const name of HISTORY_FILES) {
      const file = path.posix.join(user.directory, name);
      // History files are user-writable: never follow a link planted there (e.g. to /etc/shadow, or another user's history).
      const { lines, cut } = await userFileTail(ctx, user, file, HISTORY_TAIL_BYTES);
      if (cut) ctx.cut();
      const entries = parseHistory(lines);
      if (entries.length > 0) files.push({ uid: user.uid, file, count: entries.length, entries });
    }
    if (files.length === 0) continue;
    users.push(files);
    keepShares(users, ctx.max);
    // What is kept outlives the file's text: copied, so the text (up to HISTORY_TAIL_BYTES a file) is not held with it.
    for (const f of files) f.entries = f.entries.map((e) => ({ time: e.time, command: detached(e.command) }));
  }
  // Over the cap, the rows number the cap exactly, so the table is named in truncated.
  return users.flatMap((files) => files.flatMap((f) => f.entries.map((e): Row => ({ uid: f.uid, time: e.time, command: e.command, history_file: f.file }))));
}

/** Cuts every history to its newest entries within its user's share of `cap`, and its own share of that. */
function keepShares(users: History[][], cap: number): void {
  const shares = fairShares(users.map((files) => files.reduce((n, f) => n + f.count, 0)), cap);
  users.forEach((files, u) => {
    const fileShares = fairShares(files.map((f) => f.count), shares[u] ?? 0);
    files.forEach((f, i) => {
      const share = fileShares[i] ?? 0;
      if (f.entries.length > share) f.entries = f.entries.slice(f.entries.length - share);
    });
  });
}

const INCLUDE = /^(#|@)(include|includedir)\s+(.+)$/;
const MAX_INCLUDE_DEPTH = 8;

async function sudoersFile(ctx: Ctx, file: string, depth: number, visited: Set<string>, rows: Row[]): Promise<void> {
  if (visited.has(file) || depth > MAX_INCLUDE_DEPTH) return;
  visited.add(file);
  const st = await statOf(ctx.at(file));
  if (st === undefined) return;
  if (st.isDirectory()) {
    for (const entry of await readDir(ctx.at(file))) await sudoersFile(ctx, path.posix.join(file, entry), depth + 1, visited, rows);
    return;
  }
  // Join backslash-continued lines first so a rule spanning lines is one row.
  const logical: string[] = [];
  let carry = "";
  for (const raw of await readLines(ctx.at(file))) {
    if (raw.endsWith("\\")) {
      carry += raw.slice(0, -1) + " ";
      continue;
    }
    logical.push(carry + raw);
    carry = "";
  }
  if (carry !== "") logical.push(carry);
  for (const raw of logical) {
    if (rows.length >= ctx.max) return;
    const line = raw.trim();
    if (line === "") continue;
    const inc = INCLUDE.exec(line);
    if (inc) {
      const target = (inc[3] ?? "").trim().replace(/^"(.*)"$/, "$1");
      rows.push({ source: file, header: `${inc[1]}${inc[2]}`, rule_details: target });
      const resolved = path.posix.resolve(path.posix.dirname(file), target);
      await sudoersFile(ctx, resolved, depth + 1, visited, rows);
      continue;
    }
    if (line.startsWith("#")) continue;
    const [header = "", ...details] = line.split(/\s+/);
    rows.push({ source: file, header, rule_details: details.join(" ") });
  }
}

export async function sudoers(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  const visited = new Set<string>();
  await sudoersFile(ctx, "/etc/sudoers", 0, visited, rows);
  // Drop-ins are reported even when /etc/sudoers lacks the includedir line (or is unreadable).
  await sudoersFile(ctx, "/etc/sudoers.d", 0, visited, rows);
  return rows.slice(0, ctx.max);
}
