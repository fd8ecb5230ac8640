// System logs and login records emptied, shredded or deleted: `> /var/log/auth.log`, truncate -s 0, shred/rm of
// wtmp/btmp/lastlog/secure, journalctl --vacuum-time=1s, utmpdump -r rewriting wtmp, cp/ln from /dev/null.
// Facts: Atomic Red Team T1070.002 (tests 13-15: rm /var/log/journal/*, journalctl --vacuum-time=0, echo 0> /var/log/secure),
// Sigma "Linux Logs Clearing Attempts", "Syslog Clearing or Removal Via System Utilities" and
// "Commands to Clear or Remove the Syslog - Builtin" (rules/linux/...).
import { basename, str } from "../rows.js";
import type { Severity } from "../types.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, PROCESS_COLUMNS, simpleCommands, USER_COLUMNS, userMaps, type SimpleCommand } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { allMatches } from "../matches.js";

/** Security logs and login records: what an intruder erases to hide logins and commands. */
const SECURITY_LOG = /^\/var\/log\/(?:auth\.log|secure|syslog|messages|kern\.log|wtmp|btmp|lastlog|faillog|utmp|audit(?:\/audit\.log)?|journal|cron(?:\.log)?|maillog|mail\.log|sudo\.log|daemon\.log|user\.log)(?:\/\*?)?$|^\/var\/run\/utmp$|^\/run\/utmp$|^\/var\/spool\/mail\/\w+$|^\/var\/log\/journal\/|^\/var\/log\/audit\//;
/** All logs at once. */
const ALL_LOGS = /^\/var\/log\/?(?:\*(?:\.log)?)?$|^\/var\/log\/\*\/\*$/;
/** Rotated archives: routine cleanup. */
const ROTATED = /(?:\.(?:gz|xz|bz2|zst|old)|\.\d+|-\d{8})(?:\.gz)?$|\*\.(?:gz|\d)$|\/sysstat\//;

interface Wipe {
  target: string;
  how: string;
  severity?: Severity;
}

/** How bad wiping this path is: undefined for paths that are not logs or are rotated archives. */
function rank(path: string): Severity | "high" | undefined {
  const p = path.replace(/^["']|["']$/g, "");
  if (!p.startsWith("/var/log") && !p.startsWith("/var/spool/mail") && !/^\/(?:var\/)?run\/utmp$/.test(p)) return undefined;
  if (ROTATED.test(p)) return undefined;
  if (ALL_LOGS.test(p) || SECURITY_LOG.test(p)) return "high";
  // One application's log emptied (an admin freeing disk space looks the same).
  return "info";
}

function targets(cmd: SimpleCommand): string[] {
  return cmd.args.filter((a) => a.startsWith("/") && !a.startsWith("/dev/"));
}

function vacuumTooSmall(args: string[]): boolean {
  const joined = args.join(" ");
  const time = /--vacuum-time[= ](\d+)\s*([a-z]*)/i.exec(joined);
  if (time) {
    const n = Number(time[1]);
    const unit = (time[2] ?? "").toLowerCase();
    if (n === 0 || /^(?:s|sec|second|seconds|m|min|minutes?|ms|us)?$/.test(unit)) return true;
    if (/^(?:h|hours?)$/.test(unit) && n < 24) return true;
  }
  const size = /--vacuum-size[= ](\d+)\s*([a-z]*)/i.exec(joined);
  if (size) {
    const n = Number(size[1]);
    const unit = (size[2] ?? "").toUpperCase();
    if (unit === "" || unit === "B" || unit === "K" || (unit === "M" && n < 16)) return true;
  }
  return /--vacuum-files[= ]0?1\b/.test(joined);
}

function judge(text: string): Wipe | undefined {
  // Redirection that empties a file: `> /var/log/x`, `: > x`, `echo > x`, `echo 0> x`, `cat /dev/null > x`. The blanks
  // before the redirection are read once after a separator (two `\s*` around an optional word retried every split of
  // a long run of blanks: quadratic; a ReDoS audit).
  for (const m of allMatches(/(?:^(?::|true|echo(?:\s+-n)?(?:\s+(?:""|''|0))?|printf\s+(?:""|'')|cat\s+\/dev\/(?:null|zero))?\s*|(?:[;&|(]|\bsudo(?=\s))\s*(?:(?::|true|echo(?:\s+-n)?(?:\s+(?:""|''|0))?|printf\s+(?:""|'')|cat\s+\/dev\/(?:null|zero))\s*)?)(?:0|1)?>\|?\s*(\/var\/(?:log|spool\/mail)\/[^\s;|&]+|\/(?:var\/)?run\/utmp)/g, text)) {
    const target = m[1] ?? "";
    const severity = rank(target);
    if (severity !== undefined) return { target, how: "empties it with a redirection", ...(severity === "high" ? {} : { severity }) };
  }
  for (const cmd of simpleCommands(text)) {
    const p = cmd.program;
    if (p === "journalctl") {
      if (vacuumTooSmall(cmd.args)) return { target: "the systemd journal", how: `vacuums it to nothing (${cmd.args.join(" ")})` };
      continue;
    }
    if (p === "utmpdump" && cmd.args.includes("-r") && /\/(?:wtmp|btmp|utmp)\b/.test(cmd.raw)) return { target: /(?<!\S)\S*\/(?:wtmp|btmp|utmp)\b/.exec(cmd.raw)?.[0] ?? "wtmp", how: "rewrites login records with utmpdump -r" };
    let how = "";
    if (p === "truncate" && /(?:-s|--size)[= ]?0\b|-s\s*0\b/.test(cmd.raw)) how = "truncates it to zero";
    else if (p === "shred") how = "shreds it";
    else if (p === "rm" || p === "unlink" || p === "srm" || p === "wipe") how = "deletes it";
    else if (p === "ln" && cmd.args.includes("/dev/null")) how = "links it to /dev/null";
    else if (p === "cp" && /\/dev\/(?:null|zero)/.test(cmd.raw)) how = "overwrites it from /dev/null";
    else if (p === "mv" && cmd.args.some((a) => /^\/var\/log\/(?:wtmp|btmp|lastlog|auth\.log|secure|syslog|messages)$/.test(a))) how = "moves it away";
    else if (p === "find" && /-delete\b|-exec\s+(?:rm|shred|truncate|unlink)\b/.test(cmd.raw) && !/-name\s+['"]?\*\.(?:gz|\d|old)\b|-mtime\s+\+\d/.test(cmd.raw)) how = "deletes or empties everything it finds";
    if (how === "") continue;
    let worst: Wipe | undefined;
    for (const t of p === "find" ? cmd.args.slice(0, 1) : targets(cmd)) {
      const severity = rank(p === "find" ? `${t.replace(/\/$/, "")}/*` : t);
      if (severity === undefined) continue;
      const wipe: Wipe = { target: t, how, ...(severity === "high" ? {} : { severity }) };
      if (worst === undefined || (worst.severity !== undefined && wipe.severity === undefined)) worst = wipe;
    }
    if (worst) return worst;
  }
  return undefined;
}

export const logWiping = defineDetection({
  id: "log-wiping",
  title: "System logs or login records wiped",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "high",
  attack: ["T1070.002", "T1070.003"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "logrotate and its postrotate scripts, deleting rotated archives (*.gz, *.1), find -mtime retention jobs and journalctl --vacuum-size/--vacuum-time with routine limits are ignored; an admin emptying one application's log to free disk shows as info.",
  advice: {
    triage: ["On {hosts}, compare what is left of the logs with the copies shipped off-host (SIEM, journald remote) for the same period."],
    containment: ["Forward logs off {hosts} immediately (they can no longer be trusted locally) and restrict root access."],
    investigation: ["Rebuild the timeline from off-host logs, auditd, EDR and file timestamps; the wiped window is where the intrusion is."],
    remediation: ["Ship logs in real time to a write-once store and alert on gaps; rebuild the host if root was used."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const src of commandSources(host, userMaps(host))) {
      if (src.parent && /^logrotate$/.test(basename(str(src.parent, "name")))) continue;
      if (src.table === "processes" && /^logrotate$/.test(basename(str(src.row, "name")))) continue;
      const wipe = judge(src.text);
      if (wipe === undefined) continue;
      hits.push(commandHit(src, `${src.who} ${wipe.how}: ${wipe.target} (${clip(src.text)}).`, wipe.severity ? { severity: wipe.severity } : {}));
    }
    return hits;
  },
});
