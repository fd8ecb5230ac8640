// Commands that read credential stores: /etc/shadow and gshadow, unshadow/john, other users' SSH private keys and
// shell histories, /proc/*/environ scraping, and purpose-built dumpers (mimipenguin, LaZagne). Facts: Atomic Red
// Team T1003.008 and T1552.003/.004, Sigma "Copy Passwd Or Shadow From TMP Path" and "Credentials In Files",
// the tools' own repositories (intel/credential-theft.ts).
import { basename, str } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { authenticatorProcesses } from "./pam-backdoor.js";
import { CREDENTIAL_TOOLS } from "../intel/credential-theft.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, PROCESS_COLUMNS, simpleCommands, USER_COLUMNS, userMaps, type SimpleCommand, type UserMaps } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { InOrder } from "../in-order.js";

/** Programs that read, copy or ship a file's content (not ones that only look at its metadata). */
const READERS: ReadonlySet<string> = new Set([
  "cat", "tac", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "zgrep", "awk", "gawk", "mawk", "sed", "cut", "sort", "uniq",
  "strings", "xxd", "od", "hexdump", "base64", "base32", "gzip", "zip", "7z", "tar", "cp", "mv", "scp", "rsync", "dd", "nc", "ncat", "socat",
  "curl", "wget", "vi", "vim", "nano", "view", "openssl", "python", "python2", "python3", "perl", "ruby", "php", "unshadow",
]);
const EDITORS: ReadonlySet<string> = new Set(["vi", "vim", "nano", "view"]);

const SHADOW = /\/etc\/g?shadow-?(?![\w.])|\/etc\/security\/opasswd\b/;
// `~[^/\s'"~]*`: a user name cannot hold a "~"; with one, every "~" of a long run started a scan to its end.
const PRIVATE_KEY = /(\/root|\/home\/[^/\s'"]+|~[^/\s'"~]*|\$HOME|\/home\/\*)\/\.ssh\/(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|identity|\*)(?![\w.-])/;
const HISTORY = /(\/root|\/home\/[^/\s'"]+|~[^/\s'"~]*|\$HOME|\/home\/\*)\/\.(?:bash|zsh|sh|ash|mysql|psql|python)_history\b/;
const SECRET_WORD = /pass(?:w(?:or)?d)?(?!wordauthentication)|pwd|secret|token|api[_-]?key|aws_/i;
// Sweeps: parts in order within a segment (in-order.ts; as single patterns these were quadratic to cubic in a line's
// length: 8 KiB of `grep -r ` took 6 s, 32 KiB six minutes).
const KEY_SWEEP = new InOrder(
  /[\n|;]/,
  [/\bfind\s+\/\S*\s/i, /-i?name\s+['"]?(?:id_(?:rsa|dsa|ecdsa|ed25519)|\*\.pem|\*id_\*|\*\.key)\b/i],
  // A recursive (or -l) flag: a word of letters holding r or l (the lookahead keeps it one scan per word).
  [/\b(?:grep|rg)\s+/i, /-(?=[a-z]*[rl])[a-z]*\s/i, /BEGIN (?:RSA |OPENSSH |EC |DSA )?PRIVATE KEY|PRIVATE KEY/i],
  [/\blocate\s+id_(?:rsa|dsa|ecdsa|ed25519)\b/i],
);
const ENVIRON_SWEEP = new InOrder(
  /\n/,
  [/\/proc\/(?:\*|\[0-9\]\*?|\[1-9\]\*?)\/environ/],
  [/\/proc\b/, /\$\{?\w+\}?\/environ/],
  [/\bfind\s+\/proc\b/, /environ/],
);
const ENVIRON_ONE = /\/proc\/\d+\/environ/;
const GREP_WORD = /(?:^|\W)(?:grep|egrep|rg)$/i;
// The first r is found once: `[a-z]*r` tried every split of a long bundle of r's (quadratic; a ReDoS audit).
const RECURSIVE_FLAG = /^-[a-qs-z]*r[a-z]*$/i;
const PASSWORD_WORD = /^['"]?(?:pass(?:w(?:or)?d)?|pwd|secret)\b/i;
const TREE_ROOTS: ReadonlySet<string> = new Set(["/", "/home", "/home/", "/root", "/root/", "/var/www", "/var/www/", "/etc", "/etc/", "/opt", "/opt/", "/srv", "/srv/"]);

/**
 * grep/egrep/rg with a recursive flag among its options, a password word as its pattern (the first word after the
 * options) and a whole tree (/, /home, /etc...) later in its segment. Read word by word: as one pattern the
 * options' `(?:-\S+\s+)*` around the flag and the gap before the tree were polynomial in a line's length.
 */
export function passwordGrep(text: string): boolean {
  for (const segment of text.split(/[\n|;]/)) {
    const words = segment.split(/\s+/);
    let lastRoot = -1;
    for (let i = words.length - 1; i >= 0 && lastRoot < 0; i--) if (TREE_ROOTS.has(words[i] as string)) lastRoot = i;
    if (lastRoot < 0) continue;
    for (let i = 0; i < lastRoot; i++) {
      if (!GREP_WORD.test(words[i] as string)) continue;
      let j = i + 1;
      let recursive = false;
      for (; j < lastRoot && /^-./.test(words[j] as string); j++) recursive ||= RECURSIVE_FLAG.test(words[j] as string);
      if (recursive && j < lastRoot && PASSWORD_WORD.test(words[j] as string)) return true;
      i = j - 1;
    }
  }
  return false;
}

/** Whose home a path points into: a uid, "*" for a glob over all homes, "self" for ~ / $HOME, or undefined. */
function ownerOf(prefix: string, users: UserMaps): string | undefined {
  if (prefix === "/home/*") return "*";
  if (prefix.startsWith("~") && prefix.length > 1) {
    const name = prefix.slice(1);
    for (const [uid, n] of users.names) if (n === name) return uid;
    return undefined;
  }
  if (prefix === "~" || prefix === "$HOME") return "self";
  return users.homes.get(prefix);
}

/** Daily /etc/shadow backup (Debian's passwd cron job copies to /var/backups/*.bak). */
function isShadowBackup(cmd: SimpleCommand): boolean {
  return ["cp", "tar", "rsync"].includes(cmd.program) && cmd.args.some((a) => /^\/var\/backups\/|^g?shadow\.bak$/.test(a));
}

interface Finding {
  why: string;
  severity?: Severity;
  known_bad?: boolean;
}

function judge(text: string, uid: string, users: UserMaps): Finding | undefined {
  for (const tool of CREDENTIAL_TOOLS) {
    if (tool.pattern.test(text)) return { why: `runs ${tool.name}`, ...(tool.known_bad ? { known_bad: true } : {}) };
  }
  if (ENVIRON_SWEEP.test(text)) return { why: "scrapes every process's environment (/proc/*/environ)" };
  if (KEY_SWEEP.test(text)) return { why: "searches the file system for SSH/TLS private keys" };
  const commands = simpleCommands(text);
  for (const cmd of commands) {
    if (!READERS.has(cmd.program) && !/^python[0-9.]*$/.test(cmd.program)) continue;
    const inline = /^(?:python[0-9.]*|perl|ruby|php)$/.test(cmd.program);
    const target = inline ? cmd.raw : cmd.args.join(" ");
    if (SHADOW.test(target) || /<\s*\/etc\/g?shadow\b/.test(cmd.raw)) {
      if (isShadowBackup(cmd)) continue;
      return { why: `reads the password hashes (${SHADOW.exec(target)?.[0] ?? "/etc/shadow"}) with ${cmd.program}`, ...(EDITORS.has(cmd.program) ? { severity: "low" as Severity } : {}) };
    }
    const key = PRIVATE_KEY.exec(target);
    if (key && !EDITORS.has(cmd.program)) {
      const owner = ownerOf(key[1] ?? "", users);
      if (owner === "*") return { why: `reads every user's SSH private keys with ${cmd.program}` };
      if (owner !== undefined && owner !== "self" && owner !== uid) {
        const whose = users.names.get(owner) ?? `uid ${owner}`;
        return { why: `reads ${whose}'s SSH private key with ${cmd.program}`, severity: uid === "0" ? "medium" : "high" };
      }
    }
    const hist = HISTORY.exec(target);
    if (hist) {
      const owner = ownerOf(hist[1] ?? "", users);
      const other = owner === "*" || (owner !== undefined && owner !== "self" && owner !== uid);
      const secretGrep = ["grep", "egrep", "fgrep", "rg", "awk"].includes(cmd.program) && SECRET_WORD.test(cmd.args.filter((a) => !HISTORY.test(a)).join(" "));
      if (other && secretGrep) return { why: `searches another user's shell history for secrets (${hist[0]})` };
      if (secretGrep) return { why: `searches shell history for secrets (${hist[0]})`, severity: "medium" };
      if (other) return { why: `reads another user's shell history (${hist[0]})`, severity: owner === "0" && uid !== "0" ? "high" : "medium" };
    }
  }
  if (ENVIRON_ONE.test(text) && !/\/proc\/self\/environ/.test(text)) return { why: "reads one process's environment (/proc/<pid>/environ)", severity: "info" };
  if (passwordGrep(text)) return { why: "greps the file system for passwords", severity: "low" };
  return undefined;
}

const TRACERS: ReadonlySet<string> = new Set(["strace", "ltrace", "gdb"]);
/** `strace -p $(pidof sshd)`, `gdb -p `pgrep -o sudo``: the target named by its program (bounded gaps: linear). */
const TRACE_BY_NAME = /\b(?:strace|ltrace|gdb)\b[^|;&\n]{0,200}?\b(?:pidof|pgrep)\b[^|;&\n)`]{0,80}?\b(sshd|sudo|su|login|passwd|polkitd|gdm-session-worker)\b/;

/** The process ids a tracer attaches to: `-p 1234`, `-p1234`, `--attach=1234`, `--pid 1234` (strace, ltrace, gdb). */
function attachedPids(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const joined = /^(?:-p|--attach=|--pid=)(\d+)$/.exec(a);
    if (joined) out.push(joined[1] as string);
    else if ((a === "-p" || a === "--attach" || a === "--pid") && /^\d+$/.test(args[i + 1] ?? "")) out.push(args[i + 1] as string);
  }
  return out;
}

/**
 * A tracer attached to a program people type passwords into: `strace -f -p <sshd> -e trace=read` logs every password
 * of every login (the strace and gdb sniffers of post-exploitation kits; ATT&CK T1056.001 and T1003.007 procedure
 * examples; Sandfly Security, "Linux SSH password sniffing with strace"). Debugging sshd this way is rare enough to ask.
 */
function tracesAuthenticator(text: string, authenticators: ReadonlyMap<string, Row>): string | undefined {
  for (const cmd of simpleCommands(text)) {
    if (!TRACERS.has(cmd.program)) continue;
    const target = attachedPids(cmd.args).map((pid) => authenticators.get(pid)).find((p) => p !== undefined);
    if (target !== undefined) return `attaches ${cmd.program} to ${str(target, "name") || basename(str(target, "path"))} (pid ${str(target, "pid")}), which reads the passwords typed into it`;
  }
  const byName = TRACE_BY_NAME.exec(text);
  return byName ? `attaches a tracer to ${byName[1]}, which reads the passwords typed into it` : undefined;
}

export const credentialFileAccess = defineDetection({
  id: "credential-file-access",
  title: "Credential files read (shadow, private keys, histories, process environments)",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "high",
  attack: ["T1003.008", "T1552.004", "T1552.003"],
  maturity: "test",
  category: "credential-access",
  false_positives:
    "passwd/chage/useradd, pwck, sudo -l, visudo/sudoedit and metadata-only commands (ls, stat, chmod) are not readers and never match; Debian's daily /etc/shadow backup to /var/backups is ignored. Root reading another user's key to fix a deployment, or an admin reading one process's /proc/<pid>/environ while debugging, still show (medium / info).",
  advice: {
    triage: ["On {hosts}, identify the session or process that read the file and whether its output went to a file, a pipe or the network."],
    containment: ["Treat every credential the command could read as exposed: lock the accounts, revoke the SSH keys and tokens found on {hosts}."],
    investigation: ["Look for copies of the data (/tmp, /dev/shm, hidden files), for cracking tools, and for logins with the stolen accounts or keys on other hosts."],
    remediation: ["Rotate passwords and keys, remove the tools, and restrict who can become root on {hosts}."],
  },
  evaluate(host) {
    const users = userMaps(host);
    const authenticators = authenticatorProcesses(host);
    const hits: DetectionHit[] = [];
    for (const src of commandSources(host, users)) {
      if (src.parent && /\/etc\/cron\.daily\/passwd\b/.test(str(src.parent, "cmdline"))) continue;
      const traced = tracesAuthenticator(src.text, authenticators);
      if (traced !== undefined) {
        hits.push(commandHit(src, `${src.who} ${traced}: ${clip(src.text)}.`, { severity: "high" }));
        continue;
      }
      const finding = judge(src.text, src.uid, users);
      if (finding === undefined) continue;
      hits.push(
        commandHit(src, `${src.who} ${finding.why}: ${clip(src.text)}.`, {
          ...(finding.severity ? { severity: finding.severity } : {}),
          ...(finding.known_bad ? { known_bad: true } : {}),
        }),
      );
    }
    return hits;
  },
});
