// Linux telemetry collector: osquery's Linux tables (names, columns and string values as in
// reference/osquery-linux-schema.json) read straight from /proc, /etc and /var; the only other sources are
// the Docker API socket and, on a live systemd host, systemctl.
// Adding a table = one collector function + one registry line below.
import { authorizedKeys, shellHistory, sudoers, users } from "./accounts.js";
import { dockerContainerMounts, dockerContainers } from "./containers.js";
import { createContext } from "./context.js";
import { groups, shadow, userGroups } from "./credentials.js";
import { files } from "./files.js";
import { processMemoryMap } from "./memory-map.js";
import { listeningPorts, processOpenSockets } from "./net.js";
import { debPackages } from "./packages.js";
import { crontab } from "./persistence.js";
import { pythonPackages } from "./python-packages.js";
import { hashes, processEnvs, processes } from "./proc.js";
import { systemdUnits } from "./systemd-units.js";
import { etcHosts, kernelModules, suidBin } from "./system.js";
import { augeas } from "./unit-files.js";
import { last, loggedInUsers } from "./utmp.js";
import type { Collector, Row as CollectorRow } from "./util.js";

/** An emitted row: osquery's column names, every value a string (as osquery's results carry them). */
export type Row = Record<string, string>;

export interface LinuxCollectorOptions {
  /** Filesystem root, default "/". Tests point it at a fake tree. */
  root?: string;
  /** Per-table row cap, default 5000. */
  maxRowsPerTable?: number;
  /** Told each table whose rows may be partial (the agent names it in `truncated`): it reached the cap or another
   *  bound of its collector (ctx.cut), or the time budget ran out. */
  onCapped?: (table: string) => void;
  /**
   * How long the collection may take, in ms (unset: no bound). A table still being read then comes back empty and
   * named: a blocked /proc read, a socket that trickles, a huge directory must not hold the scan (and the plans
   * waiting behind it) forever. Its reads are abandoned, not stopped: a blocked read cannot be.
   */
  budgetMs?: number;
}

const REGISTRY: ReadonlyMap<string, Collector> = new Map<string, Collector>([
  ["processes", processes],
  ["process_envs", processEnvs],
  ["process_memory_map", processMemoryMap],
  ["hash", hashes],
  ["listening_ports", listeningPorts],
  ["process_open_sockets", processOpenSockets],
  ["users", users],
  ["groups", groups],
  ["user_groups", userGroups],
  ["shadow", shadow],
  ["authorized_keys", authorizedKeys],
  ["shell_history", shellHistory],
  ["sudoers", sudoers],
  ["crontab", crontab],
  ["systemd_units", systemdUnits],
  ["augeas", augeas],
  ["file", files],
  ["kernel_modules", kernelModules],
  ["etc_hosts", etcHosts],
  ["suid_bin", suidBin],
  ["deb_packages", debPackages],
  ["python_packages", pythonPackages],
  ["last", last],
  ["logged_in_users", loggedInUsers],
  ["docker_containers", dockerContainers],
  ["docker_container_mounts", dockerContainerMounts],
]);

function toStrings(row: CollectorRow): Row {
  const out: Row = {};
  for (const [column, value] of Object.entries(row)) out[column] = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value;
  return out;
}

export const LINUX_TABLES: readonly string[] = Object.freeze([...REGISTRY.keys()]);

const DEFAULT_MAX_ROWS = 5000;

const TIME_UP = Symbol("time up");

/** Resolves TIME_UP once `ms` have passed (never, without a budget); clear() drops the timer. */
function timeBudget(ms: number | undefined): { over: Promise<typeof TIME_UP>; clear(): void } {
  if (ms === undefined) return { over: new Promise(() => undefined), clear: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<typeof TIME_UP>((resolve) => (timer = setTimeout(() => resolve(TIME_UP), Math.max(0, ms))));
  return { over, clear: () => clearTimeout(timer) };
}

/** Collect the requested tables. Unknown names are skipped; a table whose collector fails
 *  comes back empty rather than failing the whole collection. Never throws. */
export async function collectLinux(tables: readonly string[], opts: LinuxCollectorOptions = {}): Promise<Record<string, Row[]>> {
  const requested = Math.floor(opts.maxRowsPerTable ?? DEFAULT_MAX_ROWS);
  const max = Number.isFinite(requested) && requested >= 0 ? requested : DEFAULT_MAX_ROWS;
  const ctx = createContext(opts.root ?? "/", max);
  const wanted = [...new Set(tables)].filter((t) => REGISTRY.has(t));
  const budget = timeBudget(opts.budgetMs);
  const results = await Promise.all(
    wanted.map(async (table): Promise<Row[]> => {
      const collect = REGISTRY.get(table);
      if (collect === undefined || max === 0) return [];
      try {
        let cut = false;
        const rows = await Promise.race([collect({ ...ctx, cut: () => (cut = true) }), budget.over]);
        if (rows === TIME_UP) {
          opts.onCapped?.(table);
          return [];
        }
        // Collectors stop at the cap themselves: a table that reached it may have had more rows.
        if (cut || rows.length >= max) opts.onCapped?.(table);
        return rows.slice(0, max).map(toStrings);
      } catch {
        return [];
      }
    }),
  ).finally(() => budget.clear());
  const out: Record<string, Row[]> = {};
  wanted.forEach((table, i) => (out[table] = results[i] ?? []));
  return out;
}
