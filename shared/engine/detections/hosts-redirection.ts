// /etc/hosts entries that redirect public names (update servers, code hosting, security vendors).
import { rowsOf, str } from "../rows.js";
import { isLoopback, isPrivate, isWildcard } from "../net.js";
import { outsideHost } from "./patterns.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const INTERNAL_SUFFIXES = [".local", ".localdomain", ".internal", ".lan", ".corp", ".home.arpa", ".intra", ".svc", ".cluster.local"];
/** Names whose redirection is a classic supply-chain or anti-security trick. */
const SENSITIVE = /(?:^|\.)(?:github\.com|githubusercontent\.com|gitlab\.com|pypi\.org|pythonhosted\.org|npmjs\.org|registry\.npmjs\.org|debian\.org|ubuntu\.com|docker\.io|docker\.com|amazonaws\.com|microsoft\.com|microsoftonline\.com|google\.com|googleapis\.com|crowdstrike\.com|sentinelone\.net|virustotal\.com|letsencrypt\.org|okta\.com)$/i;

export const hostsRedirection = defineDetection({
  id: "hosts-redirection",
  title: "/etc/hosts redirects a public name",
  reads: { etc_hosts: ["address", "hostnames"] },
  severity: "medium",
  attack: ["T1565.001", "T1562.001"],
  maturity: "experimental",
  category: "defense-evasion",
  false_positives: "Developers pinning a public name to a test address; split-horizon pins for internal endpoints.",
  advice: {
    triage: ["Compare /etc/hosts on {hosts} with the image default and the configuration-management template."],
    containment: ["Restore /etc/hosts on {hosts}; verify downloads made while the pin was active."],
    investigation: ["Check package and repository fetches that resolved through the pinned address."],
    remediation: ["Manage /etc/hosts from configuration management; alert on changes."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const own = host.hostname.toLowerCase();
    // The zone the host itself is named in (web-01.prod.example.net: prod.example.net, example.net): a name there
    // pinned to a private address is the site's own split-horizon entry, not a redirected public name.
    const ownZones = own.split(".").slice(1).map((_, i, labels) => labels.slice(i).join(".")).filter((z) => z.includes("."));
    for (const row of rowsOf(host, "etc_hosts")) {
      const address = str(row, "address");
      const names = str(row, "hostnames").toLowerCase().split(/\s+/).filter((n) => n !== "");
      const sitePin = isPrivate(address) || isLoopback(address);
      const suspicious = names.filter(
        (n) =>
          n.includes(".") &&
          n !== own &&
          !n.startsWith(`${own}.`) &&
          !n.startsWith("ip6-") &&
          // The distributions' own loopback names (RHEL's `::1 localhost6.localdomain6`, `localhost4.localdomain4`).
          !/^localhost[46]?(?:\.localdomain[46]?)?$/.test(n) &&
          !INTERNAL_SUFFIXES.some((s) => n.endsWith(s)) &&
          !(sitePin && (!outsideHost(n) || ownZones.some((z) => n.endsWith(`.${z}`)))) &&
          !/^[\d.]+$/.test(n),
      );
      if (suspicious.length === 0) continue;
      const sensitive = suspicious.filter((n) => SENSITIVE.test(n));
      const blocked = isLoopback(address) || isWildcard(address);
      hits.push({
        summary: `/etc/hosts maps ${suspicious.join(", ")} to ${address}${blocked ? " (blocks the name)" : ""}${sensitive.length > 0 ? "; these are update, code-hosting or security names" : ""}.`,
        evidence: [{ table: "etc_hosts", row }],
        // Blocking a name (loopback or 0.0.0.0) that is not an update, code-hosting or security name is what
        // admins do to vendor telemetry and ads: an observation. Redirecting a name to another address is not.
        // A name pinned to an inside address (a directory server's FQDN for SSSD and Kerberos when DNS is down, a split
        // horizon) is how admins write /etc/hosts; redirection serves the attacker's own, outside, address.
        severity: sensitive.length > 0 ? "high" : blocked || sitePin ? "info" : "low",
        entity: `ip:${address}`,
      });
    }
    return hits;
  },
});
