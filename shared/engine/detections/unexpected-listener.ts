// A process listening on a non-loopback port outside the host's expected set.
import { compareText } from "../order.js";
import { basename, num, processIndex, processLabel, rowsOf, str, tagNumbers } from "../rows.js";
import { isLoopback, isWildcard } from "../net.js";
import type { HostData } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { inTmpDir } from "./patterns.js";

/** Ports every host may listen on when no `allowed_ports` tag says otherwise. */
const DEFAULT_PORTS: readonly number[] = [22];
/** Extra ports expected from a host's `role` tag. */
const ROLE_PORTS: Readonly<Record<string, readonly number[]>> = {
  web: [80, 443],
  lb: [80, 443],
  db: [5432, 3306, 6379],
  dns: [53],
  mail: [25, 465, 587, 993],
  monitoring: [3000, 9090, 9093, 9100],
  bastion: [],
  "ci-runner": [],
};
/** UDP services on almost every Linux box (DHCP client, NTP, chrony, DHCPv6, mDNS). */
const SYSTEM_UDP: readonly number[] = [68, 123, 323, 546, 5353];
/** Ports loved by bind shells and C2 (raise the severity). */
const BAD_PORTS: readonly number[] = [1337, 4444, 5555, 6666, 6667, 31337, 12345];

export function expectedPorts(host: HostData): Set<number> {
  const tagged = tagNumbers(host.tags, "allowed_ports");
  if (tagged.length > 0) return new Set(tagged);
  const role = host.tags.role ?? "";
  return new Set([...DEFAULT_PORTS, ...(ROLE_PORTS[role] ?? [])]);
}

export const unexpectedListener = defineDetection({
  id: "unexpected-listener",
  title: "Process listening on an unexpected port",
  tables: ["listening_ports", "processes"],
  severity: "medium",
  attack: ["T1571", "T1205"],
  maturity: "test",
  category: "command-and-control",
  keywords: ["listening", "listener", "listen", "open port", "ports", "port", "bind shell", "exposed service", "exposed"],
  false_positives: "New legitimate services not yet in the host's allowed_ports tag (exporters, debug servers, sidecars).",
  advice: {
    triage: ["Identify the owner of the listening process on {hosts} and whether the port is in the service inventory."],
    containment: ["Block the port at the host firewall or security group on {hosts} until the listener is explained."],
    investigation: ["Check how the listening binary arrived (package, deploy, or a temp directory) and who connected to it."],
    remediation: ["Add legitimate ports to the host's allowed_ports tag; remove unexplained services."],
  },
  baseline_tag: "allowed_ports",
  evaluate(host) {
    const allowed = expectedPorts(host);
    const procs = processIndex(host);
    const groups = new Map<string, { port: number; pid: string; evidence: EvidenceRow[]; addresses: string[] }>();
    for (const row of rowsOf(host, "listening_ports")) {
      const port = num(row, "port");
      const address = str(row, "address");
      if (port === undefined || port <= 0 || isLoopback(address)) continue;
      if (num(row, "protocol") === 17 && SYSTEM_UDP.includes(port)) continue;
      if (allowed.has(port)) continue;
      const pid = str(row, "pid");
      const key = `${pid}|${port}`;
      const group = groups.get(key) ?? { port, pid, evidence: [], addresses: [] };
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
      const risky = BAD_PORTS.includes(g.port) || inTmpDir(path);
      const from = path !== "" && basename(path) !== label ? ` (${path})` : path !== "" && inTmpDir(path) ? ` from ${path}` : "";
      hits.push({
        summary: `${label}${from} listens on port ${g.port} (${[...new Set(g.addresses)].join(", ")}), not among the expected ports ${[...allowed].sort((a, b) => a - b).join(",") || "(none)"}.`,
        evidence: g.evidence,
        severity: risky ? "high" : undefined,
        entity: `pid:${g.pid}`,
      });
    }
    return hits;
  },
});
