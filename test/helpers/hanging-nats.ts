// A nats-server stand-in (NATS_SERVER_BIN) for starts that fail: it runs the real server for every node but the
// third, which never opens its port, and records each node's pid so that a test can check none is left running.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { natsServerBin } from "../../scripts/dev/processes.js";

/** A NATS_SERVER_BIN that records each node's pid and hangs the third node; the pids it started, read back. */
export function hangingNats(dir: string): { bin: string; pids: () => number[] } {
  const bin = join(dir, "fake-nats.sh");
  const pidFile = join(dir, "nats-pids");
  writeFileSync(
    bin,
    [
      "#!/bin/sh",
      'case "$*" in --version) exec ' + natsServerBin() + ' --version;; esac',
      `echo $$ >> ${pidFile}`,
      'case "$*" in *nats-3.conf*) exec sleep 300;; esac',
      `exec ${natsServerBin()} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(bin, 0o755);
  const pids = () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim().split("\n").map(Number) : []);
  return { bin, pids };
}

/** Alive and not a zombie waiting to be reaped. */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

