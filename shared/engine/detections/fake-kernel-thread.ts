// A userland process dressed up as a kernel thread ("[kworker/0:1]", "kswapd0"): real kernel threads have no
// executable and no argv (osquery: path "" and cmdline ""), and hang off kthreadd (parent 2).
import { kernelThreadName } from "../baselines/kernel-thread-names.js";
import { processLabel, rowsOf, str } from "../rows.js";
import type { Severity } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** Directories distributions install daemons into (for names a userland daemon may legitimately carry). */
const SYSTEM_DIRS = ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/", "/usr/lib/", "/usr/libexec/", "/lib/"];
/** The whole command line is one bracketed word, as ps prints kernel threads. */
const BRACKETED = /^\[([^\s\]][^\]]*)\]$/;

export const fakeKernelThread = defineDetection({
  id: "fake-kernel-thread",
  title: "Process pretending to be a kernel thread",
  reads: { processes: ["pid", "name", "path", "cmdline", "parent"] },
  severity: "high",
  attack: ["T1036.004", "T1036.005"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "A userland daemon that shares a kernel thread's name (troglobit's watchdogd in /usr/sbin is allowed); a collector that renders kernel threads ps-style ([name]) with an empty path and parent 2 is recognised as a kernel thread.",
  advice: {
    triage: ["On {hosts}, read /proc/<pid>/exe, /proc/<pid>/status and the parent chain of the process; hash the executable (copy it from /proc/<pid>/exe if it was deleted)."],
    containment: ["Suspend (SIGSTOP) the process on {hosts}, capture its memory and binary, then kill it and block its network peers."],
    investigation: ["Find how it started (cron, systemd unit, rc.local, a web-server child) and what it talks to; miners and backdoors (kswapd0, BPFDoor) use this disguise."],
    remediation: ["Remove the binary and its persistence; reimage if it ran as root."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "processes")) {
      const pid = str(row, "pid");
      const path = str(row, "path").replace(/ \(deleted\)$/, "");
      const cmdline = str(row, "cmdline").trim();
      const name = str(row, "name").trim();
      const parent = str(row, "parent").trim();
      if (path === "" && cmdline === "") continue;
      const kthreadChild = parent === "2" || parent === "0" || pid === "2";
      if (path === "" && (kthreadChild || parent === "")) continue;
      const bracket = BRACKETED.exec(cmdline);
      const argvKernel = bracket ? kernelThreadName(bracket[1] ?? "") : undefined;
      const nameKernel = kernelThreadName(name);
      const from = path !== "" ? `runs the executable ${path}` : `has no readable executable but its parent is pid ${parent}, not kthreadd`;
      let why = "";
      let severity: Severity | undefined;
      if (bracket && argvKernel) {
        why = `shows the command line ${cmdline} like a kernel thread but ${from}`;
        severity = path !== "" ? undefined : "medium";
      } else if (nameKernel && path !== "" && !(nameKernel.ambiguous && SYSTEM_DIRS.some((d) => path.startsWith(d)))) {
        why = `carries the kernel-thread name ${name} but ${from}`;
      } else if (bracket && path !== "") {
        why = `hides its command line behind ${cmdline}, ps-style, but ${from}`;
        severity = "medium";
      }
      if (why === "") continue;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}, parent ${parent || "?"}) ${why}.`,
        evidence: [{ table: "processes", row }],
        entity: `pid:${pid}`,
        severity,
      });
    }
    return hits;
  },
});
