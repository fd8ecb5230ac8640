// Command text to inspect (running command lines and shell history) and a small shell-word splitter: which programs
// a one-liner runs, with which arguments. Shared by the detections that look for what a command does.
import { basename, processIndex, processLabel, rowsOf, str, withoutTrailingSlashes } from "../rows.js";
import type { HostData, Row } from "../types.js";
import type { DetectionHit } from "./detection.js";
import { SHELLS } from "./patterns.js";
import { allMatches } from "../matches.js";

/** The columns commandSources() reads: detections spread these into their `reads`. */
export const PROCESS_COLUMNS = ["pid", "parent", "name", "path", "cmdline", "uid"] as const;
export const HISTORY_COLUMNS = ["uid", "command", "history_file"] as const;
export const USER_COLUMNS = ["uid", "username", "directory"] as const;

export interface CommandSource {
  table: "processes" | "shell_history";
  row: Row;
  /** The command line or history line. */
  text: string;
  uid: string;
  /** Who ran it, for a summary: `curl (pid 7, uid 0)` or `root's shell history`. */
  who: string;
  /** `pid:<pid>` for a process, `user:<name>` for a history line. */
  entity: string;
  /** The parent process row (processes only, when the parent is in the snapshot). */
  parent?: Row;
}

/** uid -> username and home directory -> uid, from the users table. */
export interface UserMaps {
  names: Map<string, string>;
  homes: Map<string, string>;
}

export function userMaps(host: HostData): UserMaps {
  const names = new Map<string, string>();
  const homes = new Map<string, string>();
  for (const row of rowsOf(host, "users")) {
    const uid = str(row, "uid");
    if (uid === "") continue;
    if (!names.has(uid)) names.set(uid, str(row, "username"));
    const home = withoutTrailingSlashes(str(row, "directory"));
    if (home !== "" && home !== "/" && !homes.has(home)) homes.set(home, uid);
  }
  if (!homes.has("/root")) homes.set("/root", "0");
  return { names, homes };
}

/** Every running command line and shell-history line on the host. */
export function commandSources(host: HostData, users: UserMaps = userMaps(host)): CommandSource[] {
  const out: CommandSource[] = [];
  const procs = processIndex(host);
  for (const row of rowsOf(host, "processes")) {
    const text = str(row, "cmdline");
    if (text.trim() === "") continue;
    const pid = str(row, "pid");
    const uid = str(row, "uid");
    const parent = procs.get(str(row, "parent"));
    out.push({ table: "processes", row, text, uid, who: `${processLabel(row, pid)} (pid ${pid}, uid ${uid || "?"})`, entity: `pid:${pid}`, ...(parent ? { parent } : {}) });
  }
  const seen = new Set<string>();
  for (const row of rowsOf(host, "shell_history")) {
    const text = str(row, "command");
    const uid = str(row, "uid");
    const key = `${uid}\u0000${text}`;
    if (text.trim() === "" || seen.has(key)) continue;
    seen.add(key);
    const user = users.names.get(uid) || `uid ${uid || "?"}`;
    const file = str(row, "history_file");
    out.push({ table: "shell_history", row, text, uid, who: `${user}'s shell history${file !== "" ? ` (${file})` : ""}`, entity: `user:${user}` });
  }
  return out;
}

/** A hit from one command source, with the evidence row (and the parent process, when known). */
export function commandHit(src: CommandSource, summary: string, extra: Partial<DetectionHit> = {}): DetectionHit {
  const evidence = [{ table: src.table, row: src.row }];
  if (src.parent) evidence.push({ table: "processes", row: src.parent });
  return { summary, evidence, entity: src.entity, ...extra };
}

/** The command text shortened for a summary. */
/** A crontab row's command: system crontabs (/etc/crontab, /etc/cron.d/*) keep the user it runs as in front of it. */
export function cronCommand(row: Row): string {
  const command = str(row, "command");
  return /^\/etc\/(?:crontab$|cron\.d\/)/.test(str(row, "path")) ? command.replace(/^\s*\S+\s+/, "") : command;
}

export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export interface SimpleCommand {
  /** The program's basename as invoked after wrappers (sudo, env, nohup, timeout, busybox...). */
  program: string;
  /** The program word as written (may be a path). */
  word: string;
  /** The words after the program, quotes removed. */
  args: string[];
  /** The raw text of this simple command (redirections included). */
  raw: string;
}

const WRAPPERS: ReadonlySet<string> = new Set(["sudo", "doas", "nohup", "env", "exec", "command", "nice", "ionice", "timeout", "stdbuf", "time", "setsid", "busybox", "xargs", "chroot"]);
/** Wrapper options that take a value (`sudo -u user`, `nice -n 5`, `timeout -s KILL`). */
const WRAPPER_VALUE_OPTS: ReadonlySet<string> = new Set(["-u", "-g", "-n", "-s", "-k", "-C", "-c", "-I", "-P", "-r", "-t", "-p"]);

/** Words of a shell fragment, honouring simple quotes ("a b" stays one word). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let cur = "";
  let last = -1;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const piece = m[1] ?? m[2] ?? m[3] ?? "";
    if (last === m.index && cur !== "") {
      cur += piece;
    } else {
      if (cur !== "" || last >= 0) words.push(cur);
      cur = piece;
    }
    last = m.index + m[0].length;
  }
  if (last >= 0) words.push(cur);
  return words.filter((w) => w !== "");
}

/** Split on ; && || | newlines, backticks, $( and ) outside quotes. */
export function splitCommands(text: string): string[] {
  const parts: string[] = [];
  let cur = "";
  let quote = "";
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] ?? "";
    if (quote !== "") {
      if (c === quote) quote = "";
      else if (c === "\\" && quote === '"') {
        cur += c + (text[i + 1] ?? "");
        i += 1;
        continue;
      }
      cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === "&&" || two === "||" || two === "$(") {
      parts.push(cur);
      cur = "";
      i += 1;
      continue;
    }
    if (c === ";" || c === "|" || c === "\n" || c === "`" || c === ")") {
      parts.push(cur);
      cur = "";
      continue;
    }
    cur += c;
  }
  parts.push(cur);
  return parts;
}

/** Split a one-liner into simple commands (on ; && || | newlines, backticks and $( ), skipping wrappers. */
export function simpleCommands(text: string, depth = 0): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const raw of splitCommands(text)) {
    const words = shellWords(raw.trim());
    let i = 0;
    while (i < words.length) {
      const w = words[i] ?? "";
      const base = basename(w);
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
        i += 1;
      } else if (WRAPPERS.has(base)) {
        i += 1;
        while (i < words.length && (words[i] ?? "").startsWith("-")) {
          i += WRAPPER_VALUE_OPTS.has(words[i] ?? "") ? 2 : 1;
        }
        if (base === "timeout" || base === "nice") {
          if (/^\d/.test(words[i] ?? "")) i += 1;
        }
      } else {
        break;
      }
    }
    const word = words[i];
    if (word === undefined) continue;
    const program = basename(word).toLowerCase();
    out.push({ program, word, args: words.slice(i + 1), raw: raw.trim() });
    // `sh -c <command>` (osquery joins argv with spaces, so the command arrives unquoted): look inside too.
    const inner = SHELLS.has(program) ? /\s-[a-z]*c\s+(.+)$/s.exec(raw) : null;
    if (inner && depth < 3) out.push(...simpleCommands(unquote(inner[1] ?? ""), depth + 1));
  }
  return out;
}

function unquote(text: string): string {
  const t = text.trim();
  return /^(["']).*\1$/s.test(t) ? t.slice(1, -1) : t;
}

/** The programs a one-liner runs (basenames). */
export function programsOf(text: string): string[] {
  return simpleCommands(text).map((c) => c.program);
}

/** Whether a host/URL is loopback (exfiltration to localhost is not exfiltration). */
export function isLoopbackUrl(text: string): boolean {
  return /^(?:[a-z]+:\/\/)?(?:[^@/\s]*@)?(?:localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)(?:[:/]|$)/i.test(text);
}

/** The URLs in a command. */
export function urlsOf(text: string): string[] {
  return allMatches(/\b(?:https?|ftp|tftp):\/\/[^\s'"|;&)<>]+/gi, text).map((m) => m[0]);
}

/** The host part of a URL ("" when it has none). */
export function urlHost(url: string): string {
  const m = /^[a-z]+:\/\/(?:[^@/\s]*@)?(\[[^\]]+\]|[^/:?#\s]+)/i.exec(url);
  return (m?.[1] ?? "").toLowerCase();
}

/** A raw IPv4/IPv6 address used as a host. */
export function isRawIpHost(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || /^\[[0-9a-f:]+\]$/i.test(host);
}

/** curl options that send data or a file (-d/-F/-T, --data*, --form, --upload-file, --json). */
export const CURL_UPLOAD = /(?:^|\s)(?:-[a-zA-Z]*[dFT]|--data(?:-\w+)?|--form(?:-string)?|--upload-file|--json)(?:\s|=|@|$)/;
/** wget options that POST a file or a body. */
export const WGET_POST = /--(?:post|body)-(?:file|data)\b/;

/** Whether a simple command sends data to a server with curl or wget (an upload, not a download). */
export function isHttpUpload(cmd: SimpleCommand): boolean {
  if (cmd.program === "curl") return CURL_UPLOAD.test(` ${cmd.raw} `);
  if (cmd.program === "wget") return WGET_POST.test(cmd.raw);
  return false;
}
