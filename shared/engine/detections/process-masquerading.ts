// Processes pretending to be something else: a kernel-thread name in the command line, daemon names from odd paths.
import { basename, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir } from "./patterns.js";
import { systemdProgramElsewhere, unknownSystemdProgram } from "../baselines/systemd-programs.js";

/** Names attackers borrow (kernel threads and core daemons). */
const BORROWED = /^(?:kworker|kthreadd|ksoftirqd|kswapd\d*|migration|rcu_\w+|watchdog|kdevtmpfs|systemd(?:-\w+)?|sshd|cron|crond|rsyslogd|dbus-daemon|agetty|init|udevd|irqbalance|atd)(?:[/:].*)?$/;
/** A whole command line in brackets: [kworker/0:1], [kthreadd]. */
const KERNEL_THREAD_CMDLINE = /^\[[^\]\s]{1,40}\](?:\s|$)/;
const SYSTEM_DIRS = ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/", "/usr/lib/", "/lib/", "/usr/libexec/", "/lib/systemd/"];

export const processMasquerading = defineDetection({
  id: "process-masquerading",
  title: "Process masquerading as a system process",
  reads: { processes: ["pid", "name", "path", "cmdline"] },
  severity: "high",
  attack: ["T1036.005", "T1036.004"],
  maturity: "experimental",
  category: "defense-evasion",
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
      const cmdline = str(row, "cmdline").trim();
      const pid = str(row, "pid");
      // Real kernel threads have an empty cmdline and path; osquery shows their comm (kworker/0:1-events) unbracketed.
      // Anything that shows a bracketed name in its cmdline rewrote its argv to look like one.
      const bracketed = KERNEL_THREAD_CMDLINE.exec(cmdline);
      let why = "";
      if (bracketed) why = `command line ${cmdline} imitates a kernel thread, but kernel threads have no command line${path !== "" ? ` and this runs ${path}` : ""}`;
      else if (path === "" || name === "") continue;
      else if (BORROWED.test(name) && !SYSTEM_DIRS.some((d) => path.startsWith(d))) why = `system process name ${name} but runs from ${path}`;
      else if (unknownSystemdProgram(path)) why = `${path} is named like a systemd program, in systemd's directory, but no systemd release installs ${basename(path)}`;
      else if (systemdProgramElsewhere(path)) why = `${basename(path)} is systemd's program, which lives in /lib/systemd, but this one runs from ${path}`;
      else if (inTmpDir(path)) {
        const base = basename(path);
        if (!base.startsWith(name.slice(0, 15)) && !name.startsWith(base.slice(0, 15))) why = `name ${name} does not match its binary ${path}`;
      }
      if (why === "") continue;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}): ${why}.`,
        evidence: [{ table: "processes", row }],
        severity: bracketed && path !== "" ? "high" : undefined,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
