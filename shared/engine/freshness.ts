// How long a table's rows stay fresh (the cached/auto mode decides on a live re-run from this).

/** Tables whose rows change minute to minute: processes, sockets, sessions, containers. */
export const VOLATILE_TABLES: readonly string[] = [
  "docker_containers", "listening_ports", "logged_in_users", "process_envs", "process_open_sockets", "processes",
];

export const VOLATILE_TTL_SECONDS = 3600;
export const INVENTORY_TTL_SECONDS = 86400;

/** Volatile tables: 1 h; persistence and inventory tables (and unknown ones): 24 h. */
export function tableTtlSeconds(table: string): number {
  return VOLATILE_TABLES.includes(table) ? VOLATILE_TTL_SECONDS : INVENTORY_TTL_SECONDS;
}
