// Library injection through the LD_PRELOAD environment variable of running processes. (/etc/ld.so.preload, the
// system-wide file, is the ld-so-preload detection's.)
import { bundledAllocatorPreload, knownPreload } from "../baselines/index.js";
import { processIndex, processLabel, rowsOf, str } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir } from "./patterns.js";

export const ldPreload = defineDetection({
  id: "ld-preload",
  title: "LD_PRELOAD library injection",
  reads: { process_envs: ["pid", "key", "value"], processes: ["pid", "name", "path"] },
  severity: "high",
  attack: ["T1574.006"],
  maturity: "test",
  category: "persistence",
  false_positives: "APM and profiling agents outside the preload baseline; allocators installed outside the system library path.",
  advice: {
    triage: ["Hash the preloaded library on {hosts} and find which package (dpkg -S) or deploy put it there."],
    containment: ["Treat process listings from {hosts} as untrusted until the preload is explained (userland rootkits hide processes)."],
    investigation: ["Find how the variable reached the process (unit Environment=, /etc/environment, a wrapper script)."],
    remediation: ["Remove the variable and the library, restart the affected services; reimage if the library is unknown."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const procs = processIndex(host);
    const libraryPaths = new Map<string, Row>();
    for (const row of rowsOf(host, "process_envs")) if (str(row, "key") === "LD_LIBRARY_PATH") libraryPaths.set(str(row, "pid"), row);
    for (const row of rowsOf(host, "process_envs")) {
      if (str(row, "key") !== "LD_PRELOAD") continue;
      const value = str(row, "value");
      if (value.trim() === "") continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      const pathRow = libraryPaths.get(pid);
      const libraryPath = str(pathRow, "value");
      const evidence = [{ table: "process_envs", row }, ...(pathRow ? [{ table: "process_envs", row: pathRow }] : []), ...(proc ? [{ table: "processes", row: proc }] : [])];
      const label = `${processLabel(proc, pid)} (pid ${pid})`;
      const known = knownPreload(value, libraryPath) ?? bundledAllocatorPreload(value, str(proc, "path"));
      if (known) {
        hits.push({ summary: `${label} runs with LD_PRELOAD=${value}, a packaged library (${known.source}).`, evidence, entity: `pid:${pid}`, kept_by: known.baseline });
        continue;
      }
      // Where the libraries are: their own paths, and for bare names the LD_LIBRARY_PATH searched first.
      const libs = value.split(/[\s:]+/);
      const bare = libs.some((lib) => lib !== "" && !lib.includes("/"));
      const places = [...libs, ...(bare ? libraryPath.split(":").map((d) => `${d}/`) : [])];
      const risky = places.some((lib) => inTmpDir(lib) || /\/\.[^/]+/.test(lib) || lib.startsWith("/home/"));
      const searched = bare && libraryPath !== "" ? ` (bare names searched first in LD_LIBRARY_PATH=${libraryPath})` : "";
      hits.push({
        summary: `${label} runs with LD_PRELOAD=${value}${searched}${risky ? ", a library in a temp, home or hidden directory" : ""}.`,
        evidence,
        severity: risky ? undefined : "medium",
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
