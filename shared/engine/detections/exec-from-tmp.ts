// Processes executing from world-writable temp directories, or from directories that hold configuration, logs, mail,
// spools or boot files and never programs (/etc/sysconfig/<binary> is BRICKSTORM's place on vCenter, /etc/<digits>
// Kaiji's). Only the executable counts: an interpreter running an init or dispatcher script from /etc is ordinary.
import { flexVolumeDriver, tempExecution } from "../baselines/index.js";
import { basename, num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { firstToken, inHiddenDir, inTmpDir } from "./patterns.js";

export const execFromTmp = defineDetection({
  id: "exec-from-tmp",
  title: "Execution from /tmp, /var/tmp, /dev/shm or a directory that holds no programs",
  reads: { processes: ["pid", "name", "path", "cmdline", "on_disk", "parent", "uid"] },
  severity: "medium",
  attack: ["T1059.004", "T1036.005"],
  maturity: "test",
  category: "execution",
  false_positives: "Self-extracting installers and build tools outside the temp-execution baseline (go run, AppImage and PyInstaller layouts are kept quiet); an appliance vendor that ships binaries under /etc.",
  advice: {
    triage: ["List the files under the directory used on {hosts} and hash the running binary."],
    containment: ["Mount /tmp and /dev/shm noexec on {hosts} once the process is captured."],
    investigation: ["Find the parent process and the download that put the binary there (shell history, cron)."],
    remediation: ["Remove the dropped files and the persistence that relaunches them."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const procs = processIndex(host);
    for (const row of rowsOf(host, "processes")) {
      const path = str(row, "path");
      const exe = path !== "" ? path : firstToken(str(row, "cmdline"));
      const pid = str(row, "pid");
      // The executable itself (not a command line's first word, which a process may set to anything).
      const dataDir = path !== "" ? programlessDir(path) : undefined;
      if (dataDir) {
        const parent = procs.get(str(row, "parent"));
        const driver = flexVolumeDriver(exe, str(row, "cmdline"), str(parent, "name"), str(parent, "path"));
        if (driver) {
          hits.push({ summary: `${processLabel(row, pid)} (pid ${pid}) executes ${exe}, a FlexVolume driver the kubelet runs (${driver.source}).`, evidence: parent ? [{ table: "processes", row }, { table: "processes", row: parent }] : [{ table: "processes", row }], entity: `pid:${pid}`, kept_by: driver.baseline });
          continue;
        }
        hits.push({ summary: `${processLabel(row, pid)} (pid ${pid}) executes ${exe}: ${dataDir} holds ${PROGRAMLESS_DIRS[dataDir]}, not programs.`, evidence: [{ table: "processes", row }], entity: `pid:${pid}` });
        continue;
      }
      if (!inTmpDir(exe)) continue;
      const documented = tempExecution(exe.replace(/ \(deleted\)$/, ""), str(row, "uid"));
      if (documented) {
        hits.push({ summary: `${processLabel(row, pid)} (pid ${pid}) executes from ${exe}, the temp layout of ${documented.baseline.replace("tmp-exec:", "")} (${documented.source}).`, evidence: [{ table: "processes", row }], entity: `pid:${pid}`, kept_by: documented.baseline });
        continue;
      }
      const hidden = basename(exe).startsWith(".") || inHiddenDir(exe);
      const deleted = num(row, "on_disk") === 0;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}) executes from ${exe}${hidden ? " (hidden path)" : ""}${deleted ? " and the file is deleted" : ""}.`,
        evidence: [{ table: "processes", row }],
        severity: hidden || deleted ? "high" : undefined,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});

/** Directories whose files are never executables a package installs (FHS 3.0), and what they hold. */
const PROGRAMLESS_DIRS: Readonly<Record<string, string>> = {
  "/etc/": "host-specific configuration",
  "/var/log/": "logs",
  "/var/spool/": "queued work (mail, print, cron tables)",
  "/var/mail/": "mailboxes",
  "/var/backups/": "backups",
  "/boot/": "the kernel and boot loader's files",
  "/usr/include/": "C headers",
  "/usr/share/man/": "manual pages",
  "/usr/share/doc/": "documentation",
  "/lost+found/": "what fsck recovered",
};

/** The programless directory an executable path sits in (`/etc/`...), or undefined; any file system's lost+found too. */
export function programlessDir(exe: string): string | undefined {
  if (exe.includes("/lost+found/")) return "/lost+found/";
  return Object.keys(PROGRAMLESS_DIRS).find((d) => exe.startsWith(d));
}
