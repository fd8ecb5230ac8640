// /etc/hosts pointing security-agent, cloud-monitoring or package-repository domains at a dead address (127.0.0.1,
// 0.0.0.0, ::1): the agent goes quiet without being uninstalled, and security updates stop.
import { securityDomain, type SecurityDomain } from "../intel/security-domains.js";
import { rowsOf, str } from "../rows.js";
import { isLoopback, isWildcard } from "../net.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

/** More sinkholed lines than this means a downloaded block list, not a dropper's handful. */
const BLOCKLIST_ROWS = 200;

/** An address that goes nowhere useful: loopback or the unspecified address. */
function sinkhole(address: string): boolean {
  const a = address.trim();
  return a !== "" && (isLoopback(a) || isWildcard(a));
}

export const securityToolSinkhole = defineDetection({
  id: "security-tool-sinkhole",
  title: "/etc/hosts blocks security, monitoring or update domains",
  reads: { etc_hosts: ["address", "hostnames"] },
  severity: "high",
  attack: ["T1562.001", "T1565"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "Desktop hosts-file block lists (thousands of 0.0.0.0 lines) that include monitoring beacons (info unless a security agent is blocked); an air-gapped host whose administrators deliberately black-hole the public package mirrors (medium, not high); a lab machine testing an agent's offline behaviour. Ad-block lists (doubleclick.net -> 0.0.0.0) and internal mirror pins to private addresses do not match.",
  advice: {
    triage: ["On {hosts}, read /etc/hosts, note its mtime, and check whether the blocked agent is still installed and reporting."],
    containment: ["Remove the sinkhole lines on {hosts}, make /etc/hosts immutable-free (lsattr/chattr -i) and confirm the agent reconnects."],
    investigation: ["Look for what usually comes with it: the agent uninstalled or killed, a miner, new cron jobs, competitor-killing scripts, SSH keys added around the same time."],
    remediation: ["Manage /etc/hosts from configuration management and alert on agent check-in gaps."],
  },
  evaluate(host) {
    const evidence: EvidenceRow[] = [];
    const matched = new Map<string, SecurityDomain>();
    const rows = rowsOf(host, "etc_hosts");
    // A hosts-file block list (thousands of 0.0.0.0 lines) is a desktop ad blocker; dropper scripts add a handful.
    const blocklist = rows.filter((r) => sinkhole(str(r, "address"))).length > BLOCKLIST_ROWS;
    for (const row of rows) {
      const address = str(row, "address");
      if (!sinkhole(address)) continue;
      let hit = false;
      for (const name of str(row, "hostnames").toLowerCase().split(/\s+/)) {
        if (name === "" || /^[\d.]+$/.test(name) || name.includes(":")) continue;
        const domain = securityDomain(name);
        if (!domain) continue;
        matched.set(name, domain);
        hit = true;
      }
      if (hit) evidence.push({ table: "etc_hosts", row: row as Row });
    }
    if (matched.size === 0) return [];
    const names = [...matched.keys()].sort();
    const domains = [...matched.values()];
    const protective = domains.filter((d) => d.kind !== "package-repository");
    const agents = domains.filter((d) => d.kind === "security-agent");
    const vendors = [...new Set(domains.map((d) => d.vendor))].sort();
    const hit: DetectionHit = {
      summary: `/etc/hosts points ${names.join(", ")} at a dead address (${[...new Set(evidence.map((e) => str(e.row, "address")))].join(", ")}), cutting off ${vendors.join("; ")}.`,
      evidence,
      severity: blocklist && agents.length === 0 ? "info" : protective.length > 0 ? "high" : "medium",
      entity: "path:/etc/hosts",
    };
    return [hit];
  },
});
