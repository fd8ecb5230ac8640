// docker_containers from the Docker daemon's on-disk state (/var/lib/docker/containers/<id>/),
// no socket or API call. Needs root in practice; otherwise the directory is unreadable and the
// table is simply empty.
import * as path from "node:path";
import { readDir, readText, type Ctx, type Row } from "./util.js";

const CONTAINERS_DIR = "/var/lib/docker/containers";
const JSON_CAP = 4 * 1024 * 1024;

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}
function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
function epoch(value: unknown): number {
  const ms = Date.parse(str(value));
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
}
function parseJson(text: string | undefined): Json | undefined {
  if (text === undefined) return undefined;
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Docker's own state names, derived from the persisted State flags. */
function stateName(state: Json): string {
  if (state.Restarting === true) return "restarting";
  if (state.Running === true) return state.Paused === true ? "paused" : "running";
  if (state.Dead === true) return "dead";
  if (str(state.StartedAt) === "" || epoch(state.StartedAt) === 0) return "created";
  return "exited";
}

export function containerRow(config: Json, hostConfig: Json): Row | undefined {
  const id = str(config.ID);
  if (id === "") return undefined;
  const state = obj(config.State);
  const cfg = obj(config.Config);
  const args = Array.isArray(config.Args) ? config.Args.filter((a): a is string => typeof a === "string") : [];
  const entrypoint = Array.isArray(cfg.Entrypoint) ? cfg.Entrypoint.filter((a): a is string => typeof a === "string") : [];
  const running = state.Running === true;
  return {
    id,
    name: str(config.Name),
    image: str(cfg.Image),
    image_id: str(config.Image),
    command: [str(config.Path), ...args].filter((p) => p !== "").join(" "),
    created: epoch(config.Created),
    state: stateName(state),
    status: "",
    pid: running && typeof state.Pid === "number" ? state.Pid : 0,
    path: str(config.Path),
    config_entrypoint: entrypoint.join(" "),
    started_at: str(state.StartedAt),
    finished_at: str(state.FinishedAt),
    privileged: hostConfig.Privileged === true ? 1 : 0,
  };
}

export async function dockerContainers(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const id of await readDir(ctx.at(CONTAINERS_DIR))) {
    if (!/^[0-9a-f]{12,64}$/.test(id)) continue;
    const dir = path.posix.join(CONTAINERS_DIR, id);
    const config = parseJson(await readText(ctx.at(`${dir}/config.v2.json`), JSON_CAP));
    if (config === undefined) continue;
    const hostConfig = parseJson(await readText(ctx.at(`${dir}/hostconfig.json`), JSON_CAP)) ?? {};
    const row = containerRow(config, hostConfig);
    if (row !== undefined) rows.push(row);
    if (rows.length >= ctx.max) break;
  }
  return rows;
}
