// Reading osquery-shaped rows: values arrive as strings or numbers, columns may be missing.
import type { HostData, Row } from "./types.js";

/** The rows of one table, or [] when the host did not return it. */
export function rowsOf(host: HostData, table: string): Row[] {
  return host.tables[table] ?? [];
}

/** Whether the host returned the table at all (an empty result still counts). */
export function hasTable(host: HostData, table: string): boolean {
  return Object.prototype.hasOwnProperty.call(host.tables, table);
}

/** A column as a string ("" when missing or null). Objects and arrays are rendered as JSON. */
export function str(row: Row | undefined, column: string): string {
  const value = row?.[column];
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

/** A column as a number, or undefined when missing or not numeric. */
export function num(row: Row | undefined, column: string): number | undefined {
  const value = row?.[column];
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  return undefined;
}

/** A boolean-ish column ("1", 1, true, "true", "yes"). */
export function flag(row: Row | undefined, column: string): boolean {
  const value = row?.[column];
  if (value === true || value === 1) return true;
  if (typeof value === "string") return ["1", "true", "yes"].includes(value.trim().toLowerCase());
  return false;
}

/**
 * `text` without the run of `chars` at its end. Not `replace(/[...]+$/, "")`: that pattern starts over at every
 * character of a run and scans the run to its end, quadratic in an agent's value ("////...x": 5.5 s for 32 KiB).
 */
export function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1] as string)) end--;
  return end === text.length ? text : text.slice(0, end);
}

export const withoutTrailingSlashes = (path: string): string => withoutTrailing(path, "/");

export function basename(path: string): string {
  const clean = withoutTrailingSlashes(path.replace(/ \(deleted\)$/, ""));
  const i = clean.lastIndexOf("/");
  return i >= 0 ? clean.slice(i + 1) : clean;
}

/** A comma-separated tag as a trimmed, non-empty list. */
export function tagList(tags: Record<string, string>, key: string): string[] {
  const value = tags[key];
  if (value === undefined) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** A comma-separated tag of integers (non-numbers are skipped). */
export function tagNumbers(tags: Record<string, string>, key: string): number[] {
  return tagList(tags, key)
    .map((s) => Number(s))
    .filter((n) => Number.isInteger(n));
}

/** pid -> processes row, for joining sockets and environment rows to their process. */
export function processIndex(host: HostData): Map<string, Row> {
  const index = new Map<string, Row>();
  for (const row of rowsOf(host, "processes")) {
    const pid = str(row, "pid");
    if (pid !== "" && !index.has(pid)) index.set(pid, row);
  }
  return index;
}

/** uid -> username from the users table. */
export function userIndex(host: HostData): Map<string, string> {
  const index = new Map<string, string>();
  for (const row of rowsOf(host, "users")) {
    const uid = str(row, "uid");
    if (uid !== "" && !index.has(uid)) index.set(uid, str(row, "username"));
  }
  return index;
}

/** The process name to show: name column, else the path's basename, else the pid. */
export function processLabel(row: Row | undefined, pid: string): string {
  const name = str(row, "name");
  if (name !== "") return name;
  const path = str(row, "path");
  return path !== "" ? basename(path) : `pid ${pid}`;
}

/** Processes by pid and by parent pid (one pass), for walking who spawned whom. */
export function processTree(host: HostData): { byPid: Map<string, Row>; children: Map<string, Row[]> } {
  const byPid = new Map<string, Row>();
  const children = new Map<string, Row[]>();
  for (const p of rowsOf(host, "processes")) {
    const pid = str(p, "pid");
    if (pid !== "" && !byPid.has(pid)) byPid.set(pid, p);
    const parent = str(p, "parent");
    const list = children.get(parent);
    if (list) list.push(p);
    else children.set(parent, [p]);
  }
  return { byPid, children };
}

/** Containers by id, and the bind mounts (docker_container_mounts) that `keep` accepts, grouped by container id. */
export function containerBindMounts(host: HostData, keep: (mount: Row) => boolean): { containers: Map<string, Row>; byContainer: Map<string, Row[]> } {
  const containers = new Map<string, Row>();
  for (const row of rowsOf(host, "docker_containers")) {
    const id = str(row, "id");
    if (id !== "" && !containers.has(id)) containers.set(id, row);
  }
  const byContainer = new Map<string, Row[]>();
  for (const row of rowsOf(host, "docker_container_mounts")) {
    const type = str(row, "type");
    if ((type !== "" && type !== "bind") || !keep(row)) continue;
    const id = str(row, "id");
    const list = byContainer.get(id);
    if (list) list.push(row);
    else byContainer.set(id, [row]);
  }
  return { containers, byContainer };
}

/**
 * Appends to the list `map` keeps for `key` (made on first use), in place. Copying the list on each append
 * (`[...(map.get(k) ?? []), v]`) is quadratic in the rows one agent sends under one key: 30,000 took 6 s.
 */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, ...values: V[]): void {
  const list = map.get(key);
  if (list) list.push(...values);
  else map.set(key, values);
}

/**
 * A container's cgroup: a runtime's scope for one container (`docker-<id>.scope`, `cri-containerd-<id>.scope`,
 * `crio-`, `libpod-`), cgroup v1's `/docker/<id>`, or a Kubernetes pod's. The host's own `docker.service` and
 * `containerd.service` are not.
 */
function containerCgroup(path: string): boolean {
  return /(?:docker|libpod|cri-containerd|crio)-[0-9a-f]{12,}\.scope|\/docker\/[0-9a-f]{12,}|kubepods/.test(path);
}

/** A container's process: its root is a container's filesystem, or its cgroup is a container's (containerCgroup). */
export function inContainer(proc: Row | undefined): boolean {
  const root = str(proc, "root");
  return (root !== "" && root !== "/") || containerCgroup(str(proc, "cgroup_path"));
}

/** Where container runtimes assemble containers' root filesystems (Docker, Podman/CRI-O, containerd, k3s). */
const RUNTIME_ROOTS = /^\/(?:var\/lib\/(?:docker|containers|containerd|rancher)|run\/(?:containerd|k3s\/containerd))\//;

/**
 * A container a runtime started, for exemptions (inContainer is for suspicion): the root a runtime assembled, or a
 * runtime's cgroup outside user.slice, where any user may name a scope (a chroot or a user's `docker-x.scope` is not).
 */
export function inRuntimeContainer(proc: Row | undefined): boolean {
  const cgroup = str(proc, "cgroup_path");
  return RUNTIME_ROOTS.test(str(proc, "root")) || (containerCgroup(cgroup) && !cgroup.startsWith("/user.slice/"));
}
