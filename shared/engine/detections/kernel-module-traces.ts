// Traces a kernel module leaves outside /proc/modules, for rootkits that hide themselves from the module list
// (Diamorphine and Reptile both do): a module loaded by hand from a path outside the kernel's module tree (shell
// history: insmod /tmp/x.ko), a .ko file sitting outside the places packages and DKMS put them (file table), and the
// userland parts of a known kit running or on disk (Reptile's /reptile/reptile_shell). Sources: Diamorphine's README
// (hides itself; `kill -63 0` toggles visibility), Reptile's installer (installs /reptile/* and /lib/udev/reptile),
// ATT&CK T1547.006 procedure examples.
import { knownRootkitModule, type RootkitModule } from "../intel/rootkits.js";
import { compareText } from "../order.js";
import { basename, rowsOf, str, withoutTrailingSlashes } from "../rows.js";
import type { HostData, Row } from "../types.js";
import { simpleCommands } from "./command-lines.js";
import type { EvidenceRow } from "./detection.js";
import { inHiddenDir, inTmpDir } from "./patterns.js";

/** Where packaged and DKMS-built modules live (Debian: linux-image-*, dkms(8)). */
const MODULE_TREES = /^\/(?:usr\/)?lib\/modules\/|^\/var\/lib\/dkms\/|^\/usr\/src\//;

export interface ModuleTrace {
  /** The module or kit (file base name without .ko, or the kit's name). */
  name: string;
  path: string;
  rootkit: RootkitModule | undefined;
  why: string;
  evidence: EvidenceRow[];
  /** In a temp, hidden or home place, or a known kit. */
  strong: boolean;
}

const moduleName = (path: string): string => basename(path).replace(/\.ko(?:\.xz|\.zst|\.gz)?$/, "");
const oddPlace = (path: string): boolean => inTmpDir(path) || inHiddenDir(path) || /^\/(?:home|root)\//.test(path);

/** Userland components of known kits, by file name (Reptile: reptile_shell, reptile_cmd, reptile_start). */
function kitComponent(path: string): RootkitModule | undefined {
  const base = basename(path);
  const m = /^(reptile)(?:_(?:shell|cmd|start|client))?$/.exec(base);
  return m ? knownRootkitModule(m[1] ?? "") : undefined;
}

export function moduleTraces(host: HostData): ModuleTrace[] {
  const out = new Map<string, ModuleTrace>();
  const add = (path: string, name: string, rootkit: RootkitModule | undefined, why: string, table: string, row: Row): void => {
    const t = out.get(path) ?? { name, path, rootkit, why, evidence: [], strong: rootkit !== undefined || oddPlace(path) };
    if (t.evidence.length < 4) t.evidence.push({ table, row });
    out.set(path, t);
  };
  for (const row of rowsOf(host, "shell_history")) {
    const cwd = { dir: "" };
    for (const cmd of simpleCommands(str(row, "command"))) {
      if (cmd.program === "cd") cwd.dir = cmd.args[0] ?? "";
      if (cmd.program !== "insmod") continue;
      const arg = cmd.args.find((a) => /\.ko(?:\.xz|\.zst|\.gz)?$/.test(a));
      if (arg === undefined) continue;
      const path = arg.startsWith("/") ? arg : `${withoutTrailingSlashes(cwd.dir) || "."}/${arg.replace(/^\.\//, "")}`;
      if (MODULE_TREES.test(path)) continue;
      add(path, moduleName(path), knownRootkitModule(moduleName(path)), `loaded by hand with insmod from ${path}`, "shell_history", row);
    }
  }
  for (const row of rowsOf(host, "file")) {
    const path = str(row, "path");
    if (!/\.ko(?:\.xz|\.zst|\.gz)?$/.test(path) || MODULE_TREES.test(path)) continue;
    add(path, moduleName(path), knownRootkitModule(moduleName(path)), `a kernel module file outside the module tree (${path})`, "file", row);
  }
  for (const [table, column] of [["processes", "path"], ["file", "path"]] as const) {
    for (const row of rowsOf(host, table)) {
      const path = str(row, column);
      const kit = kitComponent(path);
      if (kit !== undefined) add(path, kit.name, kit, `${path} is part of the ${kit.family}${table === "processes" ? ", running" : ""}`, table, row);
    }
  }
  return [...out.values()].sort((a, b) => compareText(a.path, b.path));
}
