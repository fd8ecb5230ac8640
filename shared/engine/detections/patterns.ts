// Shared vocabularies for detections: shells, temp directories, suspicious command fragments.
import { basename } from "../rows.js";

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "csh", "tcsh", "ash", "fish", "busybox"]);
export const NETCAT_LIKE: ReadonlySet<string> = new Set(["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat", "telnet"]);

export const TMP_DIRS: readonly string[] = ["/tmp/", "/var/tmp/", "/dev/shm/"];

export function inTmpDir(path: string): boolean {
  return TMP_DIRS.some((d) => path.startsWith(d));
}

export function isShell(nameOrPath: string): boolean {
  return SHELLS.has(basename(nameOrPath));
}

/** An interactive login shell (not nologin/false/sync). */
export function isInteractiveShell(shell: string): boolean {
  return shell !== "" && SHELLS.has(basename(shell));
}

/** The first token of a command line (the program as invoked). */
export function firstToken(cmdline: string): string {
  return cmdline.trim().split(/\s+/)[0] ?? "";
}

/** curl/wget output piped into a shell or interpreter. */
export const PIPE_TO_SHELL = /\b(?:curl|wget|fetch)\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\/\S*\/)?(?:ba|da|z|k)?sh\b|\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:sudo\s+)?python[0-9.]*\b/i;

const DOWNLOADER = /\b(?:curl|wget)\b/i;
const OUTPUT_OPTION = /\s(?:-o|-O|--output)\s*\S/;
const RUNS_IT = /^\s*(?:chmod\s+(?:\+x|[0-7]*[157][0-7]*)\b|(?:ba)?sh\s|\.\/)/i;

/**
 * Download to a file, then make it executable or run it: on one line, a curl or wget command with an output option,
 * and after it a command following `&&` or `;` that is chmod +x (or a mode with an x bit), sh, or ./. Read a simple
 * command at a time: as one regular expression (each curl x each -o x the rest of the line) it took 11 s on 16 KiB.
 */
export function downloadThenRun(command: string): boolean {
  for (const line of command.split("\n")) {
    // The line's simple commands, each operator before the command it starts ("&&" before "&").
    const parts = line.split(/(&&|\|\||[;&|])/);
    let downloaded = false;
    for (let i = 0; i < parts.length; i += 2) {
      const part = parts[i] ?? "";
      const op = parts[i - 1];
      if (downloaded && (op === "&&" || op === ";") && RUNS_IT.test(part)) return true;
      const at = part.search(DOWNLOADER);
      if (!downloaded && at >= 0 && OUTPUT_OPTION.test(part.slice(at))) downloaded = true;
    }
  }
  return false;
}

export interface CommandSignal {
  why: string;
  strong: boolean;
}

const COMMAND_SIGNALS: ReadonlyArray<{ re: RegExp; why: string; strong: boolean }> = [
  { re: PIPE_TO_SHELL, why: "pipes a download into a shell", strong: true },
  { re: /\/dev\/(?:tcp|udp)\//i, why: "opens a /dev/tcp socket", strong: true },
  { re: /\bbase64\s+(?:-d|--decode)\b|\bbase64\s+-di?\b|frombase64|b64decode/i, why: "decodes base64", strong: true },
  { re: /\b(?:nc|ncat|netcat)\b[^\n]*\s-[a-z]*e\s/i, why: "runs netcat with -e", strong: true },
  { re: /(?:^|[\s'"=;|&(>])\/(?:tmp|var\/tmp|dev\/shm)\//, why: "uses a temp directory", strong: false },
  { re: /\b(?:curl|wget)\b/i, why: "downloads with curl/wget", strong: false },
  { re: /\bpython[0-9.]*\s+-c\b|\bperl\s+-e\b/i, why: "runs inline interpreter code", strong: false },
];

/** Which suspicious fragments a cron line, unit ExecStart or command contains. */
export function commandSignals(command: string): CommandSignal[] {
  return COMMAND_SIGNALS.filter((s) => s.re.test(command)).map((s) => ({ why: s.why, strong: s.strong }));
}
