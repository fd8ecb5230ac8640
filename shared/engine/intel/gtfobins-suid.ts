// Programs that hand out a shell or arbitrary file access when they carry the SUID bit (known-bad when found SUID
// outside their package's mode). Source: GTFOBins, the "SUID" function list <https://gtfobins.github.io/#+suid>.
import { withoutTrailing } from "../rows.js";

export const GTFOBINS_SUID_SOURCE = "GTFOBins: binaries with the SUID function (https://gtfobins.github.io/#+suid)";

export const GTFOBINS_SUID: ReadonlySet<string> = new Set([
  "bash", "sh", "dash", "zsh", "ksh", "csh", "tcsh", "ash", "fish", "busybox", "rbash",
  "python", "python2", "python3", "perl", "ruby", "php", "lua", "node", "tclsh", "wish", "expect", "gdb", "rlwrap",
  "awk", "gawk", "mawk", "nawk", "find", "xargs", "env", "nice", "ionice", "taskset", "timeout", "stdbuf", "setarch",
  "flock", "watch", "time", "start-stop-daemon", "run-parts", "chroot", "unshare", "nohup", "strace", "ltrace",
  "vim", "vi", "view", "rvim", "nano", "ed", "less", "more", "sed", "tee", "dd", "cp", "mv", "install", "chmod",
  "chown", "tar", "zip", "unzip", "rsync", "make", "git", "docker", "systemctl", "nmap", "socat", "openssl",
  "base64", "xxd", "od", "curl", "wget", "cat", "head", "tail", "sort", "cut", "diff", "jq", "busctl", "capsh",
]);

/** The program name behind a path, without version suffixes (python3.11 -> python3). */
export function gtfobinsName(path: string): string | undefined {
  const base = (path.split("/").pop() ?? "").replace(/ \(deleted\)$/, "").replace(/^\.+/, "");
  if (GTFOBINS_SUID.has(base)) return base;
  const stripped = withoutTrailing(base, "0123456789."); // one scan back (a pattern ending in `+$` rescans the run)
  const dot = base.indexOf(".", stripped.length);
  const major = dot >= 0 && dot < base.length - 1 ? base.slice(0, dot) : base;
  if (GTFOBINS_SUID.has(major)) return major;
  return GTFOBINS_SUID.has(stripped) ? stripped : undefined;
}
