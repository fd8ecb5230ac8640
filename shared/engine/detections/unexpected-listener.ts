// A process listening on a non-loopback port that is neither the default port of the program holding it nor in the
// host's allowed_ports tag.
import { expectedListener, tagBaseline } from "../baselines/index.js";
import { compareText } from "../order.js";
import { basename, inRuntimeContainer, num, processIndex, processLabel, rowsOf, str, tagNumbers } from "../rows.js";
import { isLoopback, isWildcard } from "../net.js";
import { offensiveSecurityHost } from "../baselines/host-roles.js";
import { systemdLookalikeInBin, systemdProgramElsewhere, unknownSystemdProgram } from "../baselines/systemd-programs.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { SHELLS, inHiddenDir, inTmpDir, limeLoader, NETCAT_LIKE, socatForwarder } from "./patterns.js";
import { clip } from "./command-lines.js";
import type { Row } from "../types.js";

/** Ports bind shells and C2 kits default to (raise the severity). Source: Metasploit defaults (4444), ATT&CK T1571 examples. */
const BIND_SHELL_PORTS: readonly number[] = [1337, 4444, 5555, 6666, 6667, 31337, 12345];

/** Applets that serve a port without handing out a program of the caller's choice (httpd runs CGI, so it is not one). */
const BUSYBOX_DAEMONS: ReadonlySet<string> = new Set(["telnetd", "udhcpd", "ntpd", "syslogd"]);

/** BusyBox telnetd's options that take a value (its getopt string `f:l:Kip:b:FSw:`). */
const TELNETD_VALUES = new Set(["f", "l", "p", "b", "w"]);

/** telnetd's login program as BusyBox's getopt reads it: grouped flags, values attached or next, the last -l winning. */
function telnetdLogin(args: readonly string[]): string | undefined {
  let login: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i] ?? "";
    if (a === "--") break;
    if (!/^-[A-Za-z]/.test(a)) continue;
    for (let j = 1; j < a.length; j += 1) {
      const letter = a[j] ?? "";
      if (!TELNETD_VALUES.has(letter)) continue;
      const value = j + 1 < a.length ? a.slice(j + 1) : args[(i += 1)];
      if (letter === "l") login = value;
      break;
    }
  }
  return login;
}

/** The applet a BusyBox process runs as (its argv[0]), when it is a daemon that hands out nothing; else "busybox". */
function busyboxApplet(proc: Row | undefined): string {
  const words = str(proc, "cmdline").split(/\s+/).filter((w) => w !== "");
  const viaBusybox = basename(words[0] ?? "") === "busybox";
  const applet = basename((viaBusybox ? words[1] : words[0]) ?? "");
  if (!BUSYBOX_DAEMONS.has(applet)) return "busybox";
  if (applet !== "telnetd") return applet;
  const login = telnetdLogin(words.slice(viaBusybox ? 2 : 1));
  return login === undefined || login === "/bin/login" || login === "/usr/bin/login" ? applet : "busybox";
}

/** The insmod (kmod's, as root) that loads LiME to serve memory on this TCP port (path=tcp:<port>, format=), if one runs. */
function limeStreaming(procs: Iterable<Row>, port: number): Row | undefined {
  for (const p of procs) {
    if (!limeLoader(p)) continue;
    const cmd = str(p, "cmdline");
    if (/\bpath=tcp:(\d+)\b/.exec(cmd)?.[1] === String(port)) return p;
  }
  return undefined;
}

export const unexpectedListener = defineDetection({
  id: "unexpected-listener",
  title: "Process listening on an unexpected port",
  reads: { listening_ports: ["pid", "port", "protocol", "address"], processes: ["pid", "name", "path", "cmdline", "uid", "root", "cgroup_path", "on_disk"] },
  severity: "medium",
  attack: ["T1571", "T1205"],
  maturity: "test",
  category: "command-and-control",
  false_positives: "Services on non-default ports (an exporter moved to 9200, an app on 8081) not yet in the host's allowed_ports tag.",
  advice: {
    triage: ["Identify the owner of the listening process on {hosts} and whether the port is in the service inventory."],
    containment: ["Block the port at the host firewall or security group on {hosts} until the listener is explained."],
    investigation: ["Check how the listening binary arrived (package, deploy, or a temp directory) and who connected to it."],
    remediation: ["Add legitimate ports to the host's allowed_ports tag; remove unexplained services."],
  },
  baseline_tag: "allowed_ports",
  evaluate(host) {
    const allowed = new Set(tagNumbers(host.tags, "allowed_ports"));
    const offsec = offensiveSecurityHost(host.tags);
    const procs = processIndex(host);
    const groups = new Map<string, { port: number; protocol: number | undefined; pid: string; evidence: EvidenceRow[]; addresses: string[] }>();
    for (const row of rowsOf(host, "listening_ports")) {
      const port = num(row, "port");
      const address = str(row, "address");
      if (port === undefined || port <= 0 || isLoopback(address)) continue;
      const pid = str(row, "pid");
      const key = `${pid}|${port}`;
      const group = groups.get(key) ?? { port, protocol: num(row, "protocol"), pid, evidence: [], addresses: [] };
      group.evidence.push({ table: "listening_ports", row });
      group.addresses.push(isWildcard(address) ? "*" : address);
      groups.set(key, group);
    }
    const hits: DetectionHit[] = [];
    for (const g of [...groups.values()].sort((a, b) => a.port - b.port || compareText(a.pid, b.pid))) {
      const proc = procs.get(g.pid);
      const path = str(proc, "path");
      if (proc) g.evidence.push({ table: "processes", row: proc });
      const label = processLabel(proc, g.pid);
      const kernel = g.pid === "" || Number(g.pid) <= 0;
      // BusyBox is one executable for every applet: the applet it runs as is its argv[0] (telnetd, httpd, udhcpd).
      const exe = basename(path) === "busybox" ? busyboxApplet(proc) : basename(path);
      const name = exe !== "busybox" && basename(path) === "busybox" ? exe : str(proc, "name");
      // A listener whose program is inline interpreter code (python3 -c "...socket...") is a bind shell too.
      // The interpreter must be a word of its own, a program's name or a path's last part (`python3 -c`,
      // `/usr/bin/perl -e`), not the end of a file name (Knot Resolver's `distro-preconfig.lua -c kresd.conf`); the code
      // may follow its flag at once (`-e$s=...`: the agent's cmdline is argv joined by spaces, quotes long gone).
      const inlineCode = /[\s/](?:python[0-9.]*|perl|ruby|php[0-9.]*|node|lua)\s+(?:-\S+\s+)*-(?:[ce]\S*|r)\s/.test(` ${str(proc, "cmdline")} `);
      const forwarder = socatForwarder(str(proc, "cmdline"));
      // inetutils' telnetd -E and netkit's in.telnetd -L name the login program: anything but login hands out a program.
      const telnetExec = /telnetd$/.test(exe) ? /(?:^|\s)(?:-[EL]\s*|--exec-login[=\s]\s*)(\S+)/.exec(str(proc, "cmdline"))?.[1] : undefined;
      // systemd-socket-activate hands each connection to the program it names: a shell there is a bind shell.
      const activatesShell = exe === "systemd-socket-activate" && str(proc, "cmdline").split(/\s+/).slice(1).some((w) => !w.startsWith("-") && SHELLS.has(basename(w)));
      const shellish = activatesShell || SHELLS.has(name) || SHELLS.has(exe) || ((NETCAT_LIKE.has(name) || NETCAT_LIKE.has(exe)) && !forwarder) || inlineCode || (telnetExec !== undefined && !/\/login$/.test(telnetExec));
      const bindShellPort = BIND_SHELL_PORTS.includes(g.port);
      const risky = bindShellPort || inTmpDir(path) || shellish;
      const where = `${[...new Set(g.addresses)].join(", ")}`;
      const entity = `pid:${g.pid}`;
      // On a bind shell's port only a program documented for that very port (Selenium Grid's hub on 4444, Galera's SST),
      // run from a system or vendor directory, is expected.
      const systemPath = /^\/(?:usr\/(?:s?bin|lib|lib64|libexec|share)|opt|snap)\//.test(path) && !inHiddenDir(path);
      // docker-proxy publishes for dockerd, as root, to a container's address; run by anyone else, or towards loopback,
      // it is a relay to something listening only on this host.
      const relay = exe === "docker-proxy" && (str(proc, "uid") !== "0" || /(?:^|\s)-container-ip\s+(?:127\.|::1\b|localhost\b)/.test(str(proc, "cmdline")));
      const expected =
        relay || (risky && !(bindShellPort && systemPath && !shellish)) ? undefined : expectedListener({ port: g.port, protocol: g.protocol, processName: name, path, cmdline: str(proc, "cmdline"), kernel: kernel && !proc, listedOnly: bindShellPort });
      if (expected) {
        hits.push({ summary: `${label} listens on port ${g.port} (${where}), its default port (${expected.source}).`, evidence: g.evidence, entity, kept_by: expected.baseline });
        continue;
      }
      // LiME streaming a memory image from the kernel (insmod lime.ko path=tcp:<port> format=lime): the listener is the
      // module's, on the port its loading named; an observation (unexpected-kernel-module says what LiME is).
      const limeLoad = kernel && !proc ? limeStreaming(procs.values(), g.port) : undefined;
      if (limeLoad !== undefined) {
        hits.push({ summary: `The kernel listens on port ${g.port} (${where}) for LiME, loaded by "${clip(str(limeLoad, "cmdline"), 100)}": a memory image served over TCP (an incident responder's capture, or someone reading this host's memory: ask who).`, evidence: [...g.evidence, { table: "processes", row: limeLoad }], entity, severity: "info" });
        continue;
      }
      // A red team's box: its handlers and C2 servers are its work; a shell or netcat bound to a port, a program from a
      // temp or hidden directory, or one with no executable to read stay findings there too.
      if (offsec && !shellish && path !== "" && !inTmpDir(path) && !inHiddenDir(path)) {
        hits.push({ summary: `${label} listens on port ${g.port} (${where}) on a host ${offsec.source}.`, evidence: g.evidence, entity, kept_by: offsec.baseline });
        continue;
      }
      if (!shellish && allowed.has(g.port)) {
        hits.push({ summary: `${label} listens on port ${g.port} (${where}), listed in the host's allowed_ports tag.`, evidence: g.evidence, entity, kept_by: tagBaseline("allowed_ports") });
        continue;
      }
      // A program from a packaged system directory on a port the baseline does not know is an inventory question
      // (a second instance, a custom port), not an alert: reported as info. Anything else keeps the default.
      // Inside a container, a program that is no shell nor from a temp directory on a port of its own is the container's
      // service (its image's); what reaches it from the host is docker-proxy's publish, judged where it listens.
      const containerService = !risky && !kernel && inRuntimeContainer(proc) && !inHiddenDir(path) && !path.endsWith(" (deleted)") && str(proc, "on_disk") !== "0";
      // A systemd-* name no systemd release installs, from a bin directory, is a borrowed look, not a package's program.
      const file = path.replace(/ \(deleted\)$/, "");
      const lookalike = systemdLookalikeInBin(file) || unknownSystemdProgram(file) || systemdProgramElsewhere(file);
      const packaged = !risky && !lookalike && (systemPath || containerService);
      const from = path !== "" && basename(path) !== label ? ` (${path})` : path !== "" && inTmpDir(path) ? ` from ${path}` : "";
      hits.push({
        summary: `${label}${from} listens on port ${g.port} (${where})${containerService ? " inside a container" : ""}; the port is not a default of that program nor in the host's allowed ports${shellish ? ", and the listener is a shell or netcat-like tool" : ""}${lookalike ? `, and ${basename(path)} is named like a systemd program that no systemd release installs` : ""}.`,
        evidence: g.evidence,
        severity: risky ? "high" : packaged ? "info" : undefined,
        entity,
        // The same program listening on most hosts is the fleet's inventory: the same file on whatever port (promtail's
        // is picked by the kernel), or a program of the same name on the same port from wherever it was installed
        // (each user's conda python on PyTorch's 29500). A shell, a temp-directory program or a bind-shell port never is.
        ...(risky || (path === "" && name === "") ? {} : { fleet_key: [path !== "" ? path : `name:${name}`, `${exe || name} port ${g.port}`] }),
      });
    }
    return hits;
  },
});
