// Whose SSH key a client uses: the key a command line names, and the account whose ~/.ssh holds it. A key in another
// account's ~/.ssh, used by this one, was taken from it (SSH-Snake walks every home's ~/.ssh and logs in onwards with
// what it finds; ATT&CK T1552.004).
import { resolvedSegments } from "../paths.js";
import { str } from "../rows.js";
import type { Row } from "../types.js";

/** The key an ssh/scp/sftp command line names (`-i path`, `-ipath`, `-o IdentityFile=path`, `-oIdentityFile path`). */
export function sshIdentityFile(cmdline: string): string | undefined {
  if (!/^\s*(?:\S*\/)?(?:ssh|scp|sftp|autossh)\s/.test(cmdline)) return undefined;
  const m = /\s-i\s*(["']?)([^\s"']+)\1/.exec(cmdline) ?? /\s-o\s*IdentityFile[=\s]\s*(["']?)([^\s"']+)\1/i.exec(cmdline);
  return m?.[2];
}

/** A path as the kernel resolves it. */
const resolved = (path: string): string => `/${resolvedSegments(path).join("/")}`;

/** Homes that are no person's or service's own place for keys (system accounts point at /, /dev, /bin...). */
const SYSTEM_HOMES = /^\/(?:$|dev|bin|sbin|proc|sys|run|usr(?:\/|$)|nonexistent|var\/empty|var\/run)/;

export interface TakenKey {
  key: string;
  /** The account whose ~/.ssh holds the key. */
  owner: string;
}

/**
 * The account a key was taken from: the key sits in another account's ~/.ssh (the longest home that holds it, `~user`
 * expanded), and the process's own account has no home there (root's own /root is root's, whoever shares it).
 */
export function keyTakenFrom(key: string, uid: string, users: readonly Row[]): TakenKey | undefined {
  const homes = users.map((u) => ({ uid: str(u, "uid"), user: str(u, "username"), home: resolved(str(u, "directory")) })).filter((u) => !SYSTEM_HOMES.test(u.home));
  const tilde = /^~([a-z_][a-z0-9_-]*)\//.exec(key);
  const expanded = tilde ? `${homes.find((u) => u.user === tilde[1])?.home ?? "/nonexistent"}/${key.slice(tilde[0].length)}` : key;
  const path = resolved(expanded);
  const holders = homes.filter((u) => path.startsWith(`${u.home}/.ssh/`));
  if (holders.length === 0 || holders.some((u) => u.uid === uid) || (uid === "0" && path.startsWith("/root/"))) return undefined;
  const owner = holders.sort((a, b) => b.home.length - a.home.length)[0];
  return owner === undefined ? undefined : { key: path, owner: owner.user };
}
