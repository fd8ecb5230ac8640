// A process scanning other hosts: many connection attempts at once (TCP SYN_SENT), each to a different address. A
// client talks to a few servers and its connections complete; a scanner has dozens half-open to hosts that mostly never
// answer. Bots spread this way (Mirai and Gafgyt try telnet on 23 and 2323, XorDDoS and worms SSH on 22, Kinsing and
// TeamTNT's masscan and pnscan Redis on 6379 and Docker on 2375), and so does an intruder mapping the network from a
// foothold. Facts: ATT&CK T1046 (Network Service Discovery) and T1595.001; Antonakakis et al., "Understanding the
// Mirai Botnet" (USENIX Security 2017: SYN scans of 23/2323); Cado Security's TeamTNT and Kinsing reports (masscan,
// pnscan). A scanner a security team runs on purpose (nmap in a lab) is a finding too: ask who runs it.
import { isPublic } from "../net.js";
import { processIndex, processLabel, rowsOf, str, num } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

/** Half-open connections to this many different addresses at once make a scan. */
const SCAN_TARGETS = 8;
/** Ports worms and bots spread through (telnet, SSH, ADB, TR-069, Huawei and Realtek router exploits, Redis, Docker). */
const SPREADING_PORTS: Readonly<Record<number, string>> = { 22: "SSH", 23: "telnet", 2323: "telnet", 5555: "ADB", 7547: "TR-069", 37215: "Huawei HG532", 52869: "Realtek UPnP", 6379: "Redis", 2375: "Docker API", 2376: "Docker API" };

export const outboundScan = defineDetection({
  id: "outbound-scan",
  title: "Process scanning other hosts",
  reads: { process_open_sockets: ["pid", "remote_address", "remote_port", "state"], processes: ["pid", "name", "path", "cmdline"] },
  severity: "medium",
  attack: ["T1046", "T1595.001"],
  maturity: "experimental",
  category: "lateral-movement",
  false_positives: "A vulnerability or inventory scanner run on purpose (nmap, a Nessus or Qualys scanner appliance); a crawler opening many connections to slow sites.",
  advice: {
    triage: ["Name the process on {hosts} and who started it; a scanner nobody scheduled is an intruder's or a bot's."],
    containment: ["Kill the process and block {hosts}' outbound traffic to the scanned ports until it is explained."],
    investigation: ["Find how the binary arrived (shell history, cron, the parent process) and which hosts it reached (established connections, logins on them)."],
    remediation: ["Remove the bot and its persistence; close telnet/SSH password logins and exposed Redis or Docker APIs it looks for."],
  },
  evaluate(host) {
    const byPid = new Map<string, { rows: Row[]; targets: Set<string>; ports: Map<number, number>; outside: number }>();
    for (const s of rowsOf(host, "process_open_sockets")) {
      if (str(s, "state") !== "SYN_SENT") continue;
      const pid = str(s, "pid");
      const remote = str(s, "remote_address");
      if (pid === "" || pid === "-1" || remote === "") continue;
      const g = byPid.get(pid) ?? { rows: [], targets: new Set<string>(), ports: new Map<number, number>(), outside: 0 };
      if (!g.targets.has(remote)) {
        g.targets.add(remote);
        if (isPublic(remote)) g.outside++;
      }
      const port = num(s, "remote_port") ?? 0;
      g.ports.set(port, (g.ports.get(port) ?? 0) + 1);
      if (g.rows.length < 6) g.rows.push(s);
      byPid.set(pid, g);
    }
    const procs = processIndex(host);
    const hits: DetectionHit[] = [];
    for (const [pid, g] of byPid) {
      if (g.targets.size < SCAN_TARGETS) continue;
      const [topPort = 0, topCount = 0] = [...g.ports.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
      const spreading = SPREADING_PORTS[topPort];
      const proc = procs.get(pid);
      const evidence: EvidenceRow[] = [...(proc ? [{ table: "processes", row: proc }] : []), ...g.rows.map((row) => ({ table: "process_open_sockets", row }))];
      const where = g.outside > 0 ? `${g.outside} of them outside the site` : "all inside the site";
      hits.push({
        summary: `${processLabel(proc, pid)} (pid ${pid}) is connecting to ${g.targets.size} hosts at once (${where}), ${topCount} on port ${topPort}${spreading ? ` (${spreading}, how bots and worms spread)` : ""}: a scan.`,
        evidence,
        entity: `pid:${pid}`,
        severity: spreading !== undefined ? "high" : undefined,
      });
    }
    return hits;
  },
});
