// Processes pretending to be something else: a kernel-thread name in the command line, daemon names from odd paths,
// a utility's command line on another binary, a library file run as a program.
import { basename, processLabel, rowsOf, str } from "../rows.js";
import { kernelThreadName } from "../baselines/kernel-thread-names.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir } from "./patterns.js";
import { inNixSystemdStore, systemdProgramElsewhere, unknownSystemdProgram } from "../baselines/systemd-programs.js";
import { nixHost, nixOwnDaemon } from "../baselines/nix-store.js";
import { COMPILED_DAEMONS, INTERPRETERS, MULTI_CALL, SHORT_LIVED_COMMANDS } from "../intel/argv-disguises.js";

/**
 * A shared library's file name (libudev.so.6), but not the dynamic loader, which may be run directly. Read from the end
 * (version numbers, then ".so") rather than by one pattern, whose backtracking over ".so.1.so.1..." was quadratic.
 */
const LIBRARY_FILE = {
  test(name: string): boolean {
    if (/^(?:ld-linux|ld-musl|ld\.so|ld64\.so)/.test(name)) return false;
    let end = name.length;
    for (;;) {
      const dot = name.lastIndexOf(".", end - 1);
      if (dot < 0 || !/^\d+$/.test(name.slice(dot + 1, end))) break;
      end = dot;
    }
    return end > 3 && name.slice(0, end).endsWith(".so");
  },
};

/**
 * Long program names as the kernel's 15-character comm shows them (`kube-controller` for kube-controller-manager): no
 * package installs a file under the cut name, so a file named that way imitates the listing (RBAC Buster's
 * /usr/local/bin/kube-controller on EKS workers). Only cuts that are no program's own name (containerd-shim and
 * systemd-resolve are real files).
 */
const TRUNCATED_NAMES: ReadonlyMap<string, string> = new Map(
  ["kube-controller-manager", "cloud-controller-manager", "systemd-journald", "systemd-timesyncd", "systemd-networkd", "unattended-upgrades", "gnome-keyring-daemon", "kube-state-metrics", "prometheus-node-exporter", "amazon-ssm-agent"].map((full) => [full.slice(0, 15), full] as const),
);

/** Daemons and data stores whose programs packages install in bin or sbin directories, never in a library directory. */
const SERVICE_NAMES = /^(?:redis(?:-server)?|mysqld?|memcached|mongod|postgresql|dockerd?|containerd|kubelet|php-fpm[\d.]*|haproxy|squid)$/;

/**
 * A daemon's or data store's name on an executable right in /lib, /usr/lib, /lib64... (not in a package's
 * subdirectory): PumaBot's /lib/redis. Only those names: Arch builds with libexecdir=/usr/lib, so its helpers
 * (/usr/lib/gvfsd, /usr/lib/Xorg, /usr/lib/upowerd...) sit right there by design.
 */
function inLibraryRoot(path: string): boolean {
  if (!/^\/(?:usr\/)?lib(?:32|64|x32)?\/[^/]+$/.test(path)) return false;
  const file = basename(path);
  return SERVICE_NAMES.test(file) || COMPILED_DAEMONS.test(file);
}

/** The program a command line's first word names (`-bash` -> bash, `/usr/sbin/httpd` -> httpd, `sshd:` -> sshd). */
function argv0Name(cmdline: string): string {
  const end = cmdline.search(/\s/);
  return basename((end < 0 ? cmdline : cmdline.slice(0, end)).replace(/^-/, "").replace(/:$/, ""));
}

/**
 * A command line that claims to be another program than the one running, the way malware passes in `ps`: an
 * interpreter titled as a compiled daemon (perl as "/usr/sbin/httpd": Perl IRC bots), or a short-lived utility's
 * command line ("ifconfig eth0", "who") on a binary that is not that utility (XorDDoS). Debian's alternatives resolve
 * to suffixed files (w -> w.procps), so the binary's name only has to start with the utility's. The reason, or
 * undefined.
 */
function disguise(cmdline: string, path: string): string | undefined {
  const claimed = argv0Name(cmdline);
  const binary = basename(path);
  if (INTERPRETERS.test(binary) && COMPILED_DAEMONS.test(claimed)) {
    return `its command line "${cmdline.slice(0, 60)}" names the compiled daemon ${claimed}, but the program running is the interpreter ${path} (a script that rewrote its title, as Perl IRC bots do)`;
  }
  if (SHORT_LIVED_COMMANDS.has(claimed) && !binary.startsWith(claimed) && !MULTI_CALL.test(binary)) {
    return `its command line "${cmdline.slice(0, 60)}" claims to be ${claimed}, but the program running is ${path} (argv rewritten to pass in ps, as XorDDoS does)`;
  }
  return undefined;
}

/** Names attackers borrow (kernel threads and core daemons). */
const BORROWED = /^(?:kworker|kthreadd|ksoftirqd|kswapd\d*|migration|rcu_\w+|watchdog|kdevtmpfs|systemd(?:-\w+)?|sshd|cron|crond|rsyslogd|dbus-daemon|agetty|init|udevd|irqbalance|atd)(?:[/:].*)?$/;
/** A whole command line in brackets: [kworker/0:1], [kthreadd]. */
/**
 * System daemons whose names intruders spell with digits for letters, or hide behind a dot (RedXOR's `.po1kitd-update`,
 * Intezer 2021; `sshd` as `ssh0d`): compared with 0->o, 1->l, 3->e, 5->s, 4->a undone and the leading dot dropped.
 */
const LOOKALIKE_TARGETS = /^(polkitd|sshd|systemd|crond|cron|rsyslogd|dbus-daemon|auditd|chronyd|udevd|networkmanager|kworker|kthreadd|kswapd|atd|snapd|containerd|dockerd|journald)(?:[-_.]\w+)?$/;
const DIGIT_FOR_LETTER: Readonly<Record<string, string>> = { "0": "o", "1": "l", "3": "e", "4": "a", "5": "s" };

/** The daemon a name imitates with digits for letters or a leading dot, if it is not that daemon's own spelling. */
function lookalike(name: string): string | undefined {
  const lowered = name.toLowerCase();
  const dotted = lowered.startsWith(".");
  const bare = lowered.replace(/^\.+/, "");
  const undone = bare.replace(/[01345]/g, (d) => DIGIT_FOR_LETTER[d] ?? d);
  const stem = LOOKALIKE_TARGETS.exec(undone)?.[1];
  // The disguise must be in the daemon's own name (`po1kitd`), not in a suffix (`containerd-shim-runc-v2`).
  if (stem === undefined || (!dotted && bare.slice(0, stem.length) === stem)) return undefined;
  return stem;
}

const KERNEL_THREAD_CMDLINE = /^\[([^\]\s]{1,40})\](?:\s+(\S+))?/;

/**
 * A command line dressed as a kernel thread: a bracketed word at its start, unless a process title's state comes
 * before the program's own name (Airflow's gunicorn shows `[ready] gunicorn: worker [airflow-webserver]`; a
 * fourteenth blind corpus). Only that form is excused: the word after the bracket must be the process's name, and the
 * bracket must name no kernel thread (gsocket's `[raid5wq] -c ...`, `[kworker] --config ...` stay findings).
 */
function dressedAsKernelThread(cmdline: string, name: string): boolean {
  const m = KERNEL_THREAD_CMDLINE.exec(cmdline);
  if (!m) return false;
  const next = (m[2] ?? "").replace(/:$/, "");
  return next === "" || next !== name || kernelThreadName(m[1] ?? "") !== undefined;
}

const SYSTEM_DIRS = ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/", "/usr/lib/", "/lib/", "/usr/libexec/", "/lib/systemd/"];

export const processMasquerading = defineDetection({
  id: "process-masquerading",
  title: "Process masquerading as a system process",
  reads: { processes: ["pid", "name", "path", "cmdline", "uid"] },
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
    const nix = nixHost(rowsOf(host, "processes"));
    for (const row of rowsOf(host, "processes")) {
      const path = str(row, "path").replace(/ \(deleted\)$/, "");
      const name = str(row, "name");
      const cmdline = str(row, "cmdline").trim();
      const pid = str(row, "pid");
      // Real kernel threads have an empty cmdline and path; osquery shows their comm (kworker/0:1-events) unbracketed.
      // Anything that shows a bracketed name in its cmdline rewrote its argv to look like one.
      const bracketed = dressedAsKernelThread(cmdline, name);
      // A library file run as a program: one of the reasons, and high whichever reason names the process.
      const library = LIBRARY_FILE.test(basename(path));
      let why = "";
      if (bracketed) why = `command line ${cmdline} imitates a kernel thread, but kernel threads have no command line${path !== "" ? ` and this runs ${path}` : ""}`;
      else if (path === "" || name === "") continue;
      else if (BORROWED.test(name) && !SYSTEM_DIRS.some((d) => path.startsWith(d)) && !(nix && nixOwnDaemon(name, path, str(row, "uid")))) why = `system process name ${name} but runs from ${path}`;
      else if (lookalike(name) !== undefined || lookalike(basename(path)) !== undefined) why = `name ${lookalike(name) !== undefined ? name : basename(path)} spells ${lookalike(name) ?? lookalike(basename(path))} with digits for letters or behind a dot, and runs ${path}`;
      else if (unknownSystemdProgram(path)) why = `${path} is named like a systemd program, in systemd's directory, but no systemd release installs ${basename(path)}`;
      else if (systemdProgramElsewhere(path) && !(nix && inNixSystemdStore(path) !== undefined && nixOwnDaemon(name, path, str(row, "uid")))) why = `${basename(path)} is systemd's program, which lives in /lib/systemd, but this one runs from ${path}`;
      else if (basename(path) === "pause" && /^\S+\s+(?!-v\s*$)\S/.test(cmdline)) why = `runs ${path} with arguments (${cmdline.slice(0, 80)}): a pod sandbox's pause takes none, it only sleeps (CrowdStrike's Dero DaemonSet ran its miner as /pause)`;
      else if (/^\/(?:usr\/)?s?bin\/[^/]+\/[^/]/.test(path)) why = `runs ${path}, from a directory inside ${path.startsWith("/usr") ? path.split("/").slice(0, 3).join("/") : path.split("/").slice(0, 2).join("/")}, where packages put programs and never directories (RotaJakiro's /bin/systemd/systemd-daemon)`;
      else if (inLibraryRoot(path)) why = `runs ${path}, a daemon's name right in a library directory, where packages put libraries and their programs' own directories (/usr/lib/<package>/), never that daemon (PumaBot's /lib/redis)`;
      else if (TRUNCATED_NAMES.has(basename(path))) why = `runs a file named ${basename(path)}, the kernel's 15-character cut of ${TRUNCATED_NAMES.get(basename(path))}'s name: the real program's file carries its whole name, a copy named for how ps shows it is posing as it`;
      else if (library) why = `runs the shared-library file ${path} as its program (command line ${cmdline.slice(0, 60) || "empty"}): a library is loaded, never executed (XorDDoS runs a copy named libudev.so.6)`;
      else {
        const disguised = disguise(cmdline, path);
        if (disguised !== undefined) why = disguised;
        else if (inTmpDir(path)) {
          const base = basename(path);
          if (!base.startsWith(name.slice(0, 15)) && !name.startsWith(base.slice(0, 15))) why = `name ${name} does not match its binary ${path}`;
        }
      }
      if (why === "") continue;
      hits.push({
        summary: `${processLabel(row, pid)} (pid ${pid}): ${why}.`,
        evidence: [{ table: "processes", row }],
        severity: (bracketed && path !== "") || library ? "high" : undefined,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
