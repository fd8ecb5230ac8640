// Places on a Linux host that detections and baselines both weigh: the world-writable temp directories, and hidden
// (dot) directories. One definition, so that what a detection calls a temp directory is what a baseline refuses.

export const TMP_DIRS: readonly string[] = ["/tmp/", "/var/tmp/", "/dev/shm/"];

export function inTmpDir(path: string): boolean {
  return TMP_DIRS.some((d) => path.startsWith(d));
}

/** A path with a hidden directory in it (`/usr/lib/.x/agent`, `~/.cache/x`): a directory component that starts with a dot. */
export function inHiddenDir(path: string): boolean {
  return /\/\.[^/]+\//.test(path);
}

/** A path's directories as the kernel resolves them: "//" and "." dropped, ".." taken back. */
export function resolvedSegments(path: string): string[] {
  const out: string[] = [];
  for (const s of path.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return out;
}
