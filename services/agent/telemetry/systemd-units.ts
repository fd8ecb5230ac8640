// systemd_units with osquery's columns. On a live systemd host the states come from systemctl
// (list-units + show, the same D-Bus properties osquery reads); otherwise, or under a fake root,
// from the unit files on disk, where load/active/sub states cannot be known and stay empty.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { readDir, readLink, statOf, type Ctx, type Row } from "./util.js";
import { readUnitEntries, summariseUnit, unitFiles } from "./unit-files.js";

const SHOW_PROPERTIES = ["Id", "Description", "LoadState", "ActiveState", "SubState", "UnitFileState", "Following", "FragmentPath", "SourcePath", "User"];
const SYSTEMCTL_TIMEOUT_MS = 15_000;
const SHOW_CHUNK = 100;

/** D-Bus object path of a unit: bytes outside [A-Za-z0-9] become "_" + two hex digits. */
export function unitObjectPath(id: string): string {
  const escaped = [...Buffer.from(id, "utf8")]
    .map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `_${b.toString(16).padStart(2, "0")}`))
    .join("");
  return `/org/freedesktop/systemd1/unit/${escaped}`;
}

function unitRow(id: string, p: Partial<Record<string, string>>): Row {
  return {
    id,
    description: p.description ?? "",
    load_state: p.load_state ?? "",
    active_state: p.active_state ?? "",
    sub_state: p.sub_state ?? "",
    unit_file_state: p.unit_file_state ?? "",
    following: p.following ?? "",
    object_path: unitObjectPath(id),
    job_id: 0,
    job_type: "",
    job_path: "/",
    fragment_path: p.fragment_path ?? "",
    user: p.user ?? "",
    source_path: p.source_path ?? "",
  };
}

/** `systemctl show -p ...` output: blank-line separated blocks of Key=Value. */
export function parseSystemctlShow(text: string): Row[] {
  const rows: Row[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const props = new Map<string, string>();
    for (const line of block.split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0) props.set(line.slice(0, eq), line.slice(eq + 1));
    }
    const id = props.get("Id");
    if (id === undefined || id === "") continue;
    rows.push(
      unitRow(id, {
        description: props.get("Description"),
        load_state: props.get("LoadState"),
        active_state: props.get("ActiveState"),
        sub_state: props.get("SubState"),
        unit_file_state: props.get("UnitFileState"),
        following: props.get("Following"),
        fragment_path: props.get("FragmentPath"),
        source_path: props.get("SourcePath"),
        user: props.get("User"),
      }),
    );
  }
  return rows;
}

function systemctl(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile("systemctl", args, { timeout: SYSTEMCTL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
        resolve(err ? undefined : stdout),
      );
    } catch {
      resolve(undefined);
    }
  });
}

async function fromSystemctl(ctx: Ctx): Promise<Row[] | undefined> {
  if (ctx.root !== "/" || (await statOf("/run/systemd/system")) === undefined) return undefined; // not booted with systemd
  const list = await systemctl(["list-units", "--all", "--full", "--plain", "--no-legend", "--no-pager"]);
  if (list === undefined) return undefined;
  const ids = list
    .split("\n")
    .map((l) => l.trim().replace(/^●\s*/, "").split(/\s+/)[0] ?? "")
    .filter((id) => id !== "")
    .slice(0, ctx.max);
  const rows: Row[] = [];
  for (let i = 0; i < ids.length; i += SHOW_CHUNK) {
    const text = await systemctl(["show", "--no-pager", `--property=${SHOW_PROPERTIES.join(",")}`, "--", ...ids.slice(i, i + SHOW_CHUNK)]);
    if (text === undefined) return undefined;
    rows.push(...parseSystemctlShow(text));
  }
  return rows;
}

/** Unit ids enabled through a .wants/ or .requires/ link under /etc/systemd/system. */
async function enabledIds(ctx: Ctx): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const dir of ["/etc/systemd/system", "/etc/systemd/user"]) {
    for (const sub of await readDir(ctx.at(dir))) {
      if (!sub.endsWith(".wants") && !sub.endsWith(".requires")) continue;
      for (const link of await readDir(ctx.at(path.posix.join(dir, sub)))) {
        ids.add(link);
        const target = await readLink(ctx.at(path.posix.join(dir, sub, link)));
        if (target !== undefined) ids.add(path.posix.basename(target));
      }
    }
  }
  return ids;
}

async function fromDisk(ctx: Ctx): Promise<Row[]> {
  const enabled = await enabledIds(ctx);
  const rows: Row[] = [];
  const units = await unitFiles(ctx, { withUser: false, first: true });
  const unitDirs = new Set(units.map((u) => path.posix.dirname(u.file)));
  for (const unit of units) {
    // An alias (dbus-org.x.service -> /lib/systemd/system/x.service) is listed under the unit it names.
    const target = unit.link === undefined ? undefined : path.posix.basename(unit.link);
    if (unit.link !== undefined && unit.link !== "/dev/null" && target !== unit.id && unitDirs.has(path.posix.dirname(unit.link))) continue;
    if (unit.link === "/dev/null") {
      rows.push(unitRow(unit.id, { load_state: "masked", unit_file_state: "masked" }));
    } else {
      const fragment = unit.link ?? unit.file;
      const summary = summariseUnit(await readUnitEntries(ctx, fragment));
      const fileState = enabled.has(unit.id) ? "enabled" : summary.hasInstall ? "disabled" : "static";
      rows.push(unitRow(unit.id, { description: summary.description, load_state: "loaded", unit_file_state: fileState, fragment_path: fragment, user: summary.user }));
    }
    if (rows.length >= ctx.max) break;
  }
  return rows;
}

export async function systemdUnits(ctx: Ctx): Promise<Row[]> {
  return (await fromSystemctl(ctx)) ?? (await fromDisk(ctx));
}
