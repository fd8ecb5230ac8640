// Processes pretending to be something else: kernel-thread names with a binary, daemon names from odd paths.
import { basename, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir } from "./patterns.js";

/** Names attackers borrow (kernel threads and core daemons). */
const BORROWED = /^(?:kworker|kthreadd|ksoftirqd|kswapd\d*|migration|rcu_\w+|watchdog|kdevtmpfs|systemd(?:-\w+)?|sshd|cron|crond|rsyslogd|dbus-daemon|agetty|init|udevd|irqbalance|atd)(?:[/:].*)?$/;
const SYSTEM_DIRS = ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/", "/usr/lib/", "/lib/", "/usr/libexec/", "/lib/systemd/"];

export const processMasquerading = defineDetection({
  id: "process-masquerading",
  title: "Process masquerading as a system process",
  tables: ["processes"],
  severity: "high",
  attack: ["T1036.005", "T1036.004"],
  maturity: "experimental",
  category: "defense-evasion",
  keywords: ["masquerading", "masquerade", "disguised", "fake process", "impersonat", "kworker", "hidden process"],
  false_positives: "Daemons built from source into /usr/local or /opt (a custom sshd); containers with non-standard layouts.",
  advice: {
    triage: ["Compare the process name with its executable path on {hosts}; hash the binary."],
    containment: ["Suspend the process on {hosts} and capture /proc/<pid>/exe."],
    investigation: ["Trace the parent process and how the binary was installed."],
    remediation: ["Remove the binary and its persistence; reimage if it is unknown."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "processes")) {
      const path = str(row, "path").replace(/ \(deleted\)$/, "");
      const name = str(row, "name");
      if (path === "" || name === "") continue;
      const pid = str(row, "pid");
      const bare = name.replace(/^\[|\]$/g, "");
      const base = basename(path);
      let why = "";
      if (name.startsWith("[") && name.endsWith("]")) why = `kernel-thread style name ${name} but runs the binary ${path}`;
      else if (BORROWED.test(bare) && !SYSTEM_DIRS.some((d) => path.startsWith(d))) why = `system process name ${name} but runs from ${path}`;
      else if (inTmpDir(path) && !base.startsWith(bare.slice(0, 15)) && !bare.startsWith(base.slice(0, 15))) why = `name ${name} does not match its binary ${path}`;
      if (why === "") continue;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}): ${why}.`,
        evidence: [{ table: "processes", row }],
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
