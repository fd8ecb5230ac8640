// Library injection: LD_PRELOAD in a process environment, or a system-wide /etc/ld.so.preload.
import { basename, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** Allocators and tools that legitimately use LD_PRELOAD. */
const BENIGN_LIBRARIES = [/^libjemalloc/, /^libtcmalloc/, /^libeatmydata/, /^libstdbuf/, /^libfaketime/, /^libgtk3-nocsd/, /^libmimalloc/];

function benign(value: string): boolean {
  const libs = value.split(/[\s:]+/).filter((s) => s !== "");
  return libs.length > 0 && libs.every((lib) => BENIGN_LIBRARIES.some((re) => re.test(basename(lib))));
}

export const ldPreload = defineDetection({
  id: "ld-preload",
  title: "LD_PRELOAD or /etc/ld.so.preload library injection",
  tables: ["process_envs", "processes", "hash"],
  severity: "high",
  attack: ["T1574.006"],
  maturity: "test",
  category: "persistence",
  keywords: ["ld_preload", "ld preload", "ld.so.preload", "preload", "rootkit", "library injection", "hooking"],
  false_positives: "APM and security agents that install a system-wide preload (Dynatrace OneAgent, some EDRs); memory allocators.",
  advice: {
    triage: ["Read /etc/ld.so.preload and the preloaded library paths on {hosts}; hash the libraries."],
    containment: ["Treat process listings from {hosts} as untrusted until the preload is removed (userland rootkits hide processes)."],
    investigation: ["Compare the library against vendor packages (dpkg -S) and look for hidden files and processes."],
    remediation: ["Remove the preload entry and library, then reboot; reimage if the library is unknown."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const procs = processIndex(host);
    for (const row of rowsOf(host, "process_envs")) {
      if (str(row, "key") !== "LD_PRELOAD") continue;
      const value = str(row, "value");
      if (value.trim() === "" || benign(value)) continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      hits.push({
        summary: `${processLabel(proc, pid)} (pid ${pid}) runs with LD_PRELOAD=${value}.`,
        evidence: proc ? [{ table: "process_envs", row }, { table: "processes", row: proc }] : [{ table: "process_envs", row }],
        entity: `pid:${pid}`,
      });
    }
    for (const row of rowsOf(host, "hash")) {
      if (str(row, "path") !== "/etc/ld.so.preload") continue;
      hits.push({
        summary: `/etc/ld.so.preload exists (sha256 ${str(row, "sha256").slice(0, 12) || "unknown"}): every dynamically linked program loads the listed libraries.`,
        evidence: [{ table: "hash", row }],
        entity: "path:/etc/ld.so.preload",
      });
    }
    return hits;
  },
});
