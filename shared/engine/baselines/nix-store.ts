// NixOS and Nix installs run every program from the read-only store, /nix/store/<hash>-<package>-<version>/..., which
// only the Nix daemon (root) writes (nixos.org manual, "The Nix store"; the hash is 32 characters of Nix's base-32
// alphabet, which has no e, o, t or u). A system daemon is its own there when its store path is its package's.
import { str } from "../rows.js";
import type { Row } from "../types.js";
import type { SourceRef } from "./types.js";

export const NIX_STORE_SOURCE: SourceRef = { kind: "doc", name: "Nix reference manual: store paths /nix/store/<hash>-<name>-<version>, written only by the Nix daemon", url: "https://nix.dev/manual/nix/latest/store/store-path" };

const STORE_PATH = /^\/nix\/store\/[0-9a-df-np-sv-z]{32}-([A-Za-z][A-Za-z0-9+_.-]*?)-\d[^/]*\/(.*)$/;

/** A store path's package and the file inside it (`systemd`, `lib/systemd/systemd` for /nix/store/<hash>-systemd-255.6/lib/systemd/systemd). */
export function nixStorePath(path: string): { package: string; file: string } | undefined {
  const m = STORE_PATH.exec(path);
  return m === null ? undefined : { package: m[1] ?? "", file: m[2] ?? "" };
}

/** The package a Nix store path belongs to. */
export function nixStorePackage(path: string): string | undefined {
  return nixStorePath(path)?.package;
}

/** The Nix packages that ship each system daemon a process may be named after. */
const DAEMON_PACKAGES: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^(?:systemd(?:-\w+)?|init|udevd)$/, /^systemd(?:-minimal)?$|^eudev$/],
  [/^sshd$/, /^openssh(?:-with-\w+)?$/],
  [/^crond?$/, /^(?:cronie|cron|fcron)$/],
  [/^rsyslogd$/, /^rsyslog(?:-light)?$/],
  [/^dbus-daemon$/, /^dbus$/],
  [/^agetty$/, /^util-linux(?:-minimal)?$/],
  [/^irqbalance$/, /^irqbalance$/],
  [/^atd$/, /^at$/],
];

/**
 * A system daemon's name run from its own package's Nix store path, under its own file name (udevadm is systemd-udevd's
 * multi-call file). Any user the Nix daemon allows may add a path to the store, so only for system accounts' processes
 * (uid below 1000) on a Nix host (nixHost).
 */
export function nixOwnDaemon(name: string, path: string, uid: string): boolean {
  const pkg = nixStorePackage(path);
  const file = path.slice(path.lastIndexOf("/") + 1);
  const own = file === name || (name.length === 15 && file.startsWith(name)) || (name === "systemd-udevd" && file === "udevadm");
  return pkg !== undefined && own && /^\d+$/.test(uid) && Number(uid) < 1000 && DAEMON_PACKAGES.some(([daemon, packages]) => daemon.test(name) && packages.test(pkg));
}

/** A Nix host: pid 1 is systemd from the store (NixOS), or the Nix daemon runs from the store. */
export function nixHost(processes: readonly Row[]): boolean {
  return processes.some((p) => {
    const store = nixStorePath(str(p, "path"));
    return (str(p, "pid") === "1" && store?.package.startsWith("systemd") === true) || (store?.package === "nix" && /^bin\/nix(?:-daemon)?$/.test(store.file));
  });
}
