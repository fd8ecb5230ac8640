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

/** Firewall programs, and the words that make their rule a block. */
const FIREWALLS: ReadonlySet<string> = new Set(["iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft", "nft", "ufw", "firewall-cmd", "fail2ban-client"]);
const BLOCKING = /(?:^|[\s=])(?:drop|reject|deny|banip)(?:[\s;,}]|$)/i;
/** `ipset add <set> <address>` into a set named as a blocklist. */
const IPSET_BLOCK = /^add\s+\S*(?:block|black|deny|ban|drop)/i;

/** find runs what -exec names: only a find without it is a search. */
const FIND_RUNS = /(?:^|\s)-(?:exec|execdir|ok|okdir)(?:\s|$)/;

function hunts(cmd: SimpleCommand): boolean {
  if (SEARCHES.has(cmd.program) || LOOKUPS.has(cmd.program)) return true;
  if (cmd.program === "find") return !FIND_RUNS.test(cmd.raw);
  if (cmd.program === "ip") return /\broute\s+(?:add|replace)\s+(?:blackhole|unreachable|prohibit)\b/.test(cmd.raw);
  if (cmd.program === "ipset") return IPSET_BLOCK.test(cmd.args.join(" "));
  return FIREWALLS.has(cmd.program) && BLOCKING.test(cmd.args.join(" ")) && !/\b(?:accept|allow)\b/i.test(cmd.raw);
}

/**
 * Whether every simple command of `command` that mentions `indicator` searches for it, looks it up or blocks it
 * (`grep 203.0.113.7 /var/log/auth.log | tail`, `dig +short evil.example`, `iptables -I OUTPUT -d 203.0.113.7 -j DROP`).
 * A command that also fetches, connects to or writes the indicator anywhere (`curl`, `nc`, `echo ... >> /etc/hosts`,
 * `sh -c 'grep ...'` whose shell line names it) is not a hunt.
 */
export function onlyHuntsFor(command: string, indicator: string): boolean {
  const needle = indicator.toLowerCase();
  const naming = simpleCommands(command).filter((c) => c.raw.toLowerCase().includes(needle));
  return naming.length > 0 && naming.every(hunts);
}
