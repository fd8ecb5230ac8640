// Linux telemetry collector: osquery-shaped tables read straight from files (/proc, /etc, /var),
// no subprocesses. Adding a table = one collector function + one registry line below.
import { authorizedKeys, shellHistory, sudoers, users } from "./accounts.js";
import { dockerContainers } from "./containers.js";
import { createContext } from "./context.js";
import { listeningPorts, processOpenSockets } from "./net.js";
import { debPackages } from "./packages.js";
import { crontab, systemdUnits } from "./persistence.js";
import { hashes, processEnvs, processes } from "./proc.js";
import { etcHosts, kernelModules, suidBin } from "./system.js";
import { last, loggedInUsers } from "./utmp.js";
import type { Collector, Row } from "./util.js";

export type { Row } from "./util.js";

export interface LinuxCollectorOptions {
  /** Filesystem root, default "/". Tests point it at a fake tree. */
  root?: string;
  /** Per-table row cap, default 5000. */
  maxRowsPerTable?: number;
}

const REGISTRY: ReadonlyMap<string, Collector> = new Map<string, Collector>([
  ["processes", processes],
  ["process_envs", processEnvs],
  ["hash", hashes],
  ["listening_ports", listeningPorts],
  ["process_open_sockets", processOpenSockets],
  ["users", users],
  ["authorized_keys", authorizedKeys],
  ["shell_history", shellHistory],
  ["sudoers", sudoers],
  ["crontab", crontab],
  ["systemd_units", systemdUnits],
  ["kernel_modules", kernelModules],
  ["etc_hosts", etcHosts],
  ["suid_bin", suidBin],
  ["deb_packages", debPackages],
  ["last", last],
  ["logged_in_users", loggedInUsers],
  ["docker_containers", dockerContainers],
]);

export const LINUX_TABLES: readonly string[] = Object.freeze([...REGISTRY.keys()]);

const DEFAULT_MAX_ROWS = 5000;

/** Collect the requested tables. Unknown names are skipped; a table whose collector fails
 *  comes back empty rather than failing the whole collection. Never throws. */
export async function collectLinux(tables: readonly string[], opts: LinuxCollectorOptions = {}): Promise<Record<string, Row[]>> {
  const requested = Math.floor(opts.maxRowsPerTable ?? DEFAULT_MAX_ROWS);
  const max = Number.isFinite(requested) && requested >= 0 ? requested : DEFAULT_MAX_ROWS;
  const ctx = createContext(opts.root ?? "/", max);
  const wanted = [...new Set(tables)].filter((t) => REGISTRY.has(t));
  const results = await Promise.all(
    wanted.map(async (table): Promise<Row[]> => {
      const collect = REGISTRY.get(table);
      if (collect === undefined || max === 0) return [];
      try {
        return (await collect(ctx)).slice(0, max);
      } catch {
        return [];
      }
    }),
  );
  const out: Record<string, Row[]> = {};
  wanted.forEach((table, i) => (out[table] = results[i] ?? []));
  return out;
}
