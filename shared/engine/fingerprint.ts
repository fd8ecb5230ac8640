// Stable, dependency-free hashing and canonical JSON for fingerprints and node ids.
import type { Row } from "./types.js";
import { str } from "./rows.js";

/** FNV-1a, two 32-bit lanes with different offsets, as 16 hex characters. */
export function stableHash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x01000193) >>> 0;
    h2 = (h2 ^ (h2 >>> 13)) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** Columns that identify a row across collections (volatile counters and pids left out where they churn). */
const IDENTITY_COLUMNS: Record<string, readonly string[]> = {
  processes: ["name", "path", "cmdline", "uid"],
  listening_ports: ["port", "protocol", "address"],
  process_open_sockets: ["remote_address", "remote_port", "local_port"],
  users: ["username", "uid", "shell"],
  crontab: ["command", "path"],
  authorized_keys: ["uid", "key", "key_file"],
  suid_bin: ["path", "username"],
  kernel_modules: ["name"],
  logged_in_users: ["user", "host", "tty", "time"],
  last: ["username", "host", "tty", "time"],
  shell_history: ["uid", "command", "history_file"],
  deb_packages: ["name", "version"],
  python_packages: ["name", "version", "path"],
  hash: ["path", "sha256"],
  process_envs: ["key", "value"],
  systemd_units: ["id", "fragment_path"],
  sudoers: ["header", "rule_details"],
  etc_hosts: ["address", "hostnames"],
  docker_containers: ["name", "image"],
};

/** A fingerprint of one evidence row that survives re-collection (pid restarts, counters). */
export function rowFingerprint(table: string, row: Row): string {
  const columns = IDENTITY_COLUMNS[table];
  if (columns === undefined) return stableHash(`${table}|${canonicalJson(row)}`);
  const picked: Record<string, unknown> = {};
  // str(): a value is the agent's JSON, and String() of {"toString": 1} throws (outside any detection's guard, it
  // failed the whole investigation).
  for (const c of columns) picked[c] = str(row, c);
  return stableHash(`${table}|${canonicalJson(picked)}`);
}
