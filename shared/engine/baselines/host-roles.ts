// What a host's owners say it is for, read from its tags. A red team's jump box or a penetration tester's machine runs
// Metasploit, Sliver, nmap and their listeners as its work: the owners' own tags (role=redteam-jumpbox, env=offsec,
// owner=offensive-security) say so, as allowed_ports says a port is theirs. Detections that would report that tooling
// keep it as a note (`role:offensive-security`); everything else (a root login from the internet, a planted key, a
// tampered binary) is judged as on any host.
import type { Explanation } from "./types.js";

export const OFFENSIVE_SECURITY_ROLE = "role:offensive-security";

/** Tags whose values say what a host is for. */
const PURPOSE_TAGS = ["role", "env", "environment", "purpose", "function", "team", "owner", "usage"] as const;

/** Red teaming, penetration testing, offensive security, adversary emulation, as words of a tag's value. */
const OFFENSIVE = /(?:^|[^a-z])(?:red-?team(?:ing)?|purple-?team(?:ing)?|pen-?test(?:ing|er|ers)?|penetration-?test(?:ing)?|offsec|offensive-?sec(?:urity)?|offensive|adversary-?emulation)(?:$|[^a-z])/;

/** Values that name the team's targets or scope, or deny the role: `pentest-target`, `redteam-scope`, `non-offensive`. */
const NOT_THE_TEAMS = /(?:^|[^a-z])(?:target|targets|victim|scope|in-scope|anti|non|not|no)(?:$|[^a-z])/;

/** Why the host's tags make it an offensive-security host, or undefined. */
export function offensiveSecurityHost(tags: Readonly<Record<string, string>>): Explanation | undefined {
  for (const key of PURPOSE_TAGS) {
    const value = tags[key];
    if (value === undefined) continue;
    const words = value.toLowerCase().replace(/[_\s.]+/g, "-");
    // The red team's targets and scope, and negations, are not its tools' hosts.
    if (OFFENSIVE.test(words) && !NOT_THE_TEAMS.test(words)) {
      return { baseline: OFFENSIVE_SECURITY_ROLE, source: `the host's ${key} tag (${key}=${value.slice(0, 60)}) declares an offensive-security host` };
    }
  }
  return undefined;
}
