// Entity keys a hit touches, used to connect findings of different detections on one host.
import type { DetectionHit } from "./detections/detection.js";
import { sshKeyId } from "./detections/ssh-authorized-key.js";
import { isPublic, normalizeIp } from "./net.js";
import { str } from "./rows.js";

const PID_TABLES: ReadonlySet<string> = new Set(["processes", "listening_ports", "process_open_sockets", "process_envs"]);
const PATH_TABLES: ReadonlySet<string> = new Set(["processes", "hash", "suid_bin"]);

export function linkKeys(hit: DetectionHit): string[] {
  const keys = new Set<string>();
  if (hit.entity !== undefined && hit.entity !== "") keys.add(hit.entity);
  for (const { table, row } of hit.evidence) {
    const pid = str(row, "pid");
    if (PID_TABLES.has(table) && pid !== "") keys.add(`pid:${pid}`);
    const path = str(row, "path").replace(/ \(deleted\)$/, "");
    if (PATH_TABLES.has(table) && path !== "") keys.add(`path:${path}`);
    for (const column of ["remote_address", "host"]) {
      const ip = normalizeIp(str(row, column));
      if ((table === "process_open_sockets" || table === "last" || table === "logged_in_users") && ip !== "" && isPublic(ip)) keys.add(`ip:${ip}`);
    }
    if (table === "authorized_keys" && str(row, "key") !== "") keys.add(`sshkey:${sshKeyId(str(row, "key"))}`);
  }
  return [...keys].sort();
}
