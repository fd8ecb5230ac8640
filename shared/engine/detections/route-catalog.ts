// Generated from the detection registry by `make calibrate` (scripts/calibrate.ts); do not edit by hand.
// What the router needs of each detection: its id, category and tables. Routing a question (the gateway's trigger
// path, the runner's main thread) reads this, so those threads never load the detections and their baselines
// (2 MiB of heap, and the code); a test holds it equal to the registry.
import type { Category } from "./detection.js";

export interface RouteEntry {
  id: string;
  category: Category;
  tables: readonly string[];
}

/** Sorted by id, as `allDetections()`. */
export const ROUTE_CATALOG: readonly RouteEntry[] = [
  { id: "ci-runner-egress", category: "exfiltration", tables: ["process_open_sockets", "processes"] },
  { id: "cloud-credential-access", category: "credential-access", tables: ["processes", "shell_history", "users"] },
  { id: "container-host-mount", category: "privilege-escalation", tables: ["docker_container_mounts", "docker_containers"] },
  { id: "credential-exfiltration", category: "exfiltration", tables: ["processes", "shell_history", "users"] },
  { id: "credential-file-access", category: "credential-access", tables: ["processes", "shell_history", "users"] },
  { id: "cryptominer", category: "impact", tables: ["process_open_sockets", "processes"] },
  { id: "defense-impairment", category: "defense-evasion", tables: ["processes", "shell_history", "users"] },
  { id: "deleted-binary-running", category: "defense-evasion", tables: ["processes"] },
  { id: "docker-api-exposed", category: "initial-access", tables: ["docker_containers", "listening_ports", "process_open_sockets", "processes"] },
  { id: "docker-socket-mount", category: "privilege-escalation", tables: ["docker_container_mounts", "docker_containers", "processes"] },
  { id: "download-execute", category: "execution", tables: ["processes", "shell_history"] },
  { id: "exec-from-tmp", category: "execution", tables: ["processes"] },
  { id: "fake-kernel-thread", category: "defense-evasion", tables: ["processes"] },
  { id: "hidden-system-path-exec", category: "defense-evasion", tables: ["augeas", "crontab", "file", "processes"] },
  { id: "history-tampering", category: "defense-evasion", tables: ["file", "process_envs", "shell_history", "users"] },
  { id: "hosts-redirection", category: "defense-evasion", tables: ["etc_hosts"] },
  { id: "ingress-tool-transfer", category: "command-and-control", tables: ["processes", "shell_history", "users"] },
  { id: "install-script-payload", category: "credential-access", tables: ["process_envs", "process_open_sockets", "processes"] },
  { id: "ioc-match", category: "indicator", tables: ["augeas", "authorized_keys", "crontab", "docker_container_mounts", "docker_containers", "etc_hosts", "file", "hash", "last", "listening_ports", "logged_in_users", "process_envs", "process_memory_map", "process_open_sockets", "processes", "shell_history", "suid_bin", "systemd_units"] },
  { id: "known-bad-hash", category: "indicator", tables: ["hash"] },
  { id: "lateral-admin-connection", category: "lateral-movement", tables: ["process_open_sockets", "processes", "users"] },
  { id: "ld-preload", category: "persistence", tables: ["process_envs", "processes"] },
  { id: "ld-so-preload", category: "defense-evasion", tables: ["file", "process_memory_map", "processes", "shell_history"] },
  { id: "log-wiping", category: "defense-evasion", tables: ["processes", "shell_history", "users"] },
  { id: "malicious-package-release", category: "indicator", tables: ["deb_packages", "python_packages", "rpm_packages"] },
  { id: "new-interactive-account", category: "persistence", tables: ["authorized_keys", "processes", "users"] },
  { id: "non-root-uid0", category: "persistence", tables: ["users"] },
  { id: "offensive-tool-present", category: "indicator", tables: ["file", "hash", "processes"] },
  { id: "outbound-scan", category: "lateral-movement", tables: ["process_open_sockets", "processes"] },
  { id: "packet-socket-backdoor", category: "command-and-control", tables: ["process_open_sockets", "processes"] },
  { id: "pam-backdoor", category: "credential-access", tables: ["process_memory_map", "processes"] },
  { id: "privileged-container", category: "privilege-escalation", tables: ["docker_containers", "processes"] },
  { id: "process-masquerading", category: "defense-evasion", tables: ["processes"] },
  { id: "public-interactive-login", category: "initial-access", tables: ["last", "logged_in_users"] },
  { id: "remote-root-login", category: "initial-access", tables: ["deb_packages", "last", "listening_ports", "logged_in_users", "process_open_sockets", "processes"] },
  { id: "replaced-system-binary", category: "persistence", tables: ["deb_packages", "hash", "rpm_packages"] },
  { id: "reverse-shell", category: "command-and-control", tables: ["process_open_sockets", "processes"] },
  { id: "security-tool-sinkhole", category: "defense-evasion", tables: ["etc_hosts"] },
  { id: "service-spawned-shell", category: "initial-access", tables: ["processes"] },
  { id: "ssh-authorized-key", category: "persistence", tables: ["authorized_keys", "shell_history", "users"] },
  { id: "sshd-library-backdoor", category: "credential-access", tables: ["file", "process_memory_map", "processes"] },
  { id: "staged-data-exfiltration", category: "exfiltration", tables: ["processes", "shell_history", "users"] },
  { id: "sudoers-nopasswd-all", category: "privilege-escalation", tables: ["deb_packages", "kernel_modules", "sudoers", "users"] },
  { id: "suspicious-cron", category: "persistence", tables: ["augeas", "crontab", "users"] },
  { id: "suspicious-systemd-unit", category: "persistence", tables: ["augeas", "process_open_sockets", "processes", "systemd_units"] },
  { id: "unexpected-kernel-module", category: "persistence", tables: ["deb_packages", "file", "kernel_modules", "processes", "rpm_packages", "shell_history"] },
  { id: "unexpected-listener", category: "command-and-control", tables: ["listening_ports", "processes"] },
  { id: "unexpected-suid", category: "privilege-escalation", tables: ["file", "processes", "shell_history", "suid_bin"] },
  { id: "vulnerable-package", category: "vulnerability", tables: ["deb_packages", "rpm_packages"] },
  { id: "webshell-shell-spawn", category: "persistence", tables: ["processes"] },
];
