// docker_containers and docker_container_mounts from the Docker Engine API on /var/run/docker.sock,
// the way osquery's docker tables read it: GET /containers/json?all=1, then /containers/<id>/json per
// container. No socket (or no daemon) means empty tables.
import * as http from "node:http";
import { readLink, statOf, type Ctx, type Row } from "./util.js";
import { reportedEnvEntry } from "./env-values.js";

export const DOCKER_SOCKET = "/var/run/docker.sock";
const REQUEST_TIMEOUT_MS = 5_000;
const BODY_CAP = 32 * 1024 * 1024;
const NAMESPACES = ["cgroup", "ipc", "mnt", "net", "pid", "user", "uts"];

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}
function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** GET a Docker API path over the unix socket; undefined on any error, timeout or non-2xx. */
export function dockerGet(socketPath: string, apiPath: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: apiPath, headers: { Host: "docker" }, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > BODY_CAP) req.destroy();
        else chunks.push(chunk);
      });
      res.on("error", () => resolve(undefined));
      res.on("end", () => {
        if ((res.statusCode ?? 500) >= 300) return resolve(undefined);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

/** One docker_containers row from a /containers/json entry and its inspect document (osquery's mapping). */
export function containerRow(summary: Json, inspect: Json | undefined): Row {
  const state = str(summary.State);
  const row: Row = {
    id: str(summary.Id),
    name: strings(summary.Names)[0] ?? "",
    image: str(summary.Image),
    image_id: str(summary.ImageID).replace(/^sha256:/, ""),
    command: str(summary.Command),
    created: typeof summary.Created === "number" ? Math.floor(summary.Created) : 0,
    state,
    status: str(summary.Status),
  };
  if (inspect === undefined) return row;
  const st = obj(inspect.State);
  const host = obj(inspect.HostConfig);
  const config = obj(inspect.Config);
  return {
    ...row,
    pid: typeof st.Pid === "number" ? st.Pid : -1,
    path: str(inspect.Path),
    config_entrypoint: strings(config.Entrypoint).join(", "),
    started_at: str(st.StartedAt),
    finished_at: state !== "running" ? str(st.FinishedAt) : "",
    privileged: host.Privileged === true ? 1 : 0,
    security_options: strings(host.SecurityOpt).join(", "),
    env_variables: strings(config.Env).map(reportedEnvEntry).join(", "),
    readonly_rootfs: host.ReadonlyRootfs === true ? 1 : 0,
  };
}

/** docker_container_mounts rows from a /containers/json entry's Mounts. */
export function mountRows(summary: Json): Row[] {
  const mounts = Array.isArray(summary.Mounts) ? summary.Mounts : [];
  return mounts.map((m) => {
    const mount = obj(m);
    return {
      id: str(summary.Id),
      type: str(mount.Type),
      name: str(mount.Name),
      source: str(mount.Source),
      destination: str(mount.Destination),
      driver: str(mount.Driver),
      mode: str(mount.Mode),
      rw: mount.RW === true ? 1 : 0,
      propagation: str(mount.Propagation),
    };
  });
}

async function listContainers(ctx: Ctx): Promise<Json[]> {
  const socket = ctx.at(DOCKER_SOCKET);
  if (!(await statOf(socket))?.isSocket()) return [];
  const list = await dockerGet(socket, "/containers/json?all=1");
  return Array.isArray(list) ? list.map(obj).filter((c) => str(c.Id) !== "").slice(0, ctx.max) : [];
}

export async function dockerContainers(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const summary of await listContainers(ctx)) {
    const inspect = await dockerGet(ctx.at(DOCKER_SOCKET), `/containers/${encodeURIComponent(str(summary.Id))}/json?stream=false`);
    const row = containerRow(summary, inspect === undefined ? undefined : obj(inspect));
    const pid = Number(row.pid ?? -1);
    if (pid > 0) {
      for (const ns of NAMESPACES) {
        const inode = /\[(\d+)\]$/.exec((await readLink(ctx.at(`/proc/${pid}/ns/${ns}`))) ?? "")?.[1];
        if (inode !== undefined) row[`${ns}_namespace`] = inode;
      }
    }
    rows.push(row);
  }
  return rows;
}

export async function dockerContainerMounts(ctx: Ctx): Promise<Row[]> {
  return (await listContainers(ctx)).flatMap(mountRows).slice(0, ctx.max);
}
