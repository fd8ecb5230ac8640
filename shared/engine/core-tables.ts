// The core telemetry tables every agent reports (the agent contract: docs/telemetry.md). Detections may also read
// supplementary osquery tables (augeas, file, process_memory_map, docker_container_mounts, ...) for deeper checks;
// a host that does not return those is not a coverage gap that makes a verdict inconclusive, only a note.
export const CORE_TABLES: ReadonlySet<string> = new Set([
  "processes", "listening_ports", "process_open_sockets", "users", "crontab", "authorized_keys", "suid_bin", "kernel_modules",
  "logged_in_users", "last", "shell_history", "deb_packages", "hash", "process_envs", "systemd_units", "sudoers", "etc_hosts",
  "docker_containers",
]);

export const isCoreTable = (table: string): boolean => CORE_TABLES.has(table);
