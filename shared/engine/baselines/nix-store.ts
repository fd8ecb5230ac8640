// NixOS and Nix installs run every program from the read-only store, /nix/store/<hash>-<package>-<version>/..., which
// only the Nix daemon (root) writes (nixos.org manual, "The Nix store"; the hash is 32 characters of Nix's base-32
// alphabet, which has no e, o, t or u). A system daemon is its own there when its store path is its package's.
import type { SourceRef } from "./types.js";

export const NIX_STORE_SOURCE: SourceRef = { kind: "doc", name: "Nix reference manual: store paths /nix/store/<hash>-<name>-<version>, written only by the Nix daemon", url: "https://nix.dev/manual/nix/latest/store/store-path" };

const STORE_PATH = /^\/nix\/store\/[0-9a-df-np-sv-z]{32}-([A-Za-z][A-Za-z0-9+_.-]*?)-(\d[^/]*)\//;

/** The package a Nix store path belongs to (`systemd` for /nix/store/<hash>-systemd-255.6/lib/systemd/systemd). */
export function nixStorePackage(path: string): string | undefined {
  return STORE_PATH.exec(path)?.[1];
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

/** A system daemon's name run from its own package's Nix store path. */
export function nixOwnDaemon(name: string, path: string): boolean {
  const pkg = nixStorePackage(path);
  return pkg !== undefined && DAEMON_PACKAGES.some(([daemon, packages]) => daemon.test(name) && packages.test(pkg));
}
