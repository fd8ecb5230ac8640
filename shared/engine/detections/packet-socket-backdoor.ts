// A process holding an AF_PACKET socket, or a raw IP socket for TCP or UDP, that is not a known packet user: the shape
// of a passive "magic packet" backdoor (BPFDoor, GTPDOOR) that sniffs traffic with a BPF filter instead of opening a
// port. Raw ICMP and routing-protocol sockets (ping, OSPF, VRRP, router advertisements) are not read here.
import { packetSocketProgram } from "../baselines/packet-socket-programs.js";
import { bpfdoorMasquerade } from "../intel/bpfdoor.js";
import { compareText } from "../order.js";
import { appendTo, basename, num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { firstToken, inTmpDir } from "./patterns.js";

/** AF_PACKET as osquery reports it in process_open_sockets.family. */
const AF_PACKET = 17;
/** A raw IP socket (/proc/net/raw[6]): protocol IPPROTO_RAW as osquery reports it, the IP protocol in local_port. */
const RAW = 255;
/** Raw sockets of these IP protocols read every TCP or UDP packet the host gets, as GTPDOOR's and BPFDoor's do. */
const RAW_TRANSPORTS: Readonly<Record<number, string>> = { 6: "raw TCP", 17: "raw UDP" };

/** What a socket reads, in words: a packet socket's ethertype, a raw socket's IP protocol; undefined for others. */
function sniffing(s: Row): string | undefined {
  const family = num(s, "family");
  if (family === AF_PACKET) return ethertype(num(s, "protocol"));
  if ((family === 2 || family === 10) && num(s, "protocol") === RAW) return RAW_TRANSPORTS[num(s, "local_port") ?? -1];
  return undefined;
}

/** Ethertype of the socket (process_open_sockets.protocol) in words. */
function ethertype(protocol: number | undefined): string {
  if (protocol === 3) return "ETH_P_ALL";
  if (protocol === 2048) return "ETH_P_IP";
  if (protocol === 2054) return "ETH_P_ARP";
  if (protocol === 34525) return "ETH_P_IPV6";
  if (protocol === 35020) return "LLDP";
  return protocol !== undefined ? `protocol ${protocol}` : "protocol ?";
}

/** The program argv[0] claims to be (basename, without the trailing ":" of "nginx:" style titles or systemd's "@"). */
function claimed(cmdline: string): string {
  return basename(firstToken(cmdline).replace(/^@/, "")).replace(/:$/, "");
}

/** Whether argv[0] is consistent with the executable (symlinked/merged-usr paths and version suffixes allowed). */
function consistent(cmdline: string, name: string, exe: string): boolean {
  if (exe === "busybox") return true;
  if (cmdline.trim() === "") return name === "" || exe.startsWith(name) || name.startsWith(exe.slice(0, 15));
  const argv = claimed(cmdline);
  return argv !== "" && (argv.startsWith(exe) || exe.startsWith(argv));
}

export const packetSocketBackdoor = defineDetection({
  id: "packet-socket-backdoor",
  title: "Unexpected process holding a raw packet (AF_PACKET) or raw TCP/UDP socket",
  reads: {
    process_open_sockets: ["pid", "family", "protocol", "local_port"],
    processes: ["pid", "name", "path", "cmdline", "on_disk"],
  },
  severity: "medium",
  attack: ["T1205.002", "T1014"],
  maturity: "test",
  category: "command-and-control",
  false_positives:
    "Tools that read raw frames (DHCP clients and servers, tcpdump/dumpcap, keepalived, lldpd, IDS sensors, cilium, MetalLB, ptp4l) from their packaged paths — baselines/packet-socket-programs.ts; ad-hoc scapy or pcap scripts run by administrators (medium).",
  advice: {
    triage: ["On {hosts}, compare /proc/<pid>/exe with the command line, check `ss -0pb` for the BPF filter attached to the socket, and look for /var/run/*.pid or *.lock mutex files BPFDoor creates."],
    containment: ["Isolate {hosts} at the network layer (the backdoor needs no open port, so port filtering does not stop it); capture /proc/<pid>/exe and memory before killing it."],
    investigation: ["Search the fleet for the same binary hash and for iptables NAT redirects to ports 42391-43390; review how it got in (it is usually a late-stage implant)."],
    remediation: ["Reimage the host; rotate credentials that were used on it."],
  },
  evaluate(host) {
    const procs = processIndex(host);
    const byPid = new Map<string, Row[]>();
    for (const s of rowsOf(host, "process_open_sockets")) {
      if (sniffing(s) === undefined) continue;
      const pid = str(s, "pid");
      if (pid === "" || pid === "-1") continue;
      appendTo(byPid, pid, s);
    }
    const hits: DetectionHit[] = [];
    for (const [pid, sockets] of [...byPid.entries()].sort(([a], [b]) => compareText(a, b))) {
      const proc = procs.get(pid);
      const evidence = [...(proc ? [{ table: "processes", row: proc }] : []), ...sockets.map((row) => ({ table: "process_open_sockets", row }))];
      const kinds = [...new Set(sockets.map((s) => sniffing(s) ?? ""))].join(", ");
      const held = `${kinds.startsWith("raw") ? "" : "packet "}socket (${kinds})`;
      const entity = `pid:${pid}`;
      if (!proc) {
        hits.push({ summary: `pid ${pid} holds a ${held} but has no process row (exited, or hidden from the process list).`, evidence, entity, severity: "info" });
        continue;
      }
      const path = str(proc, "path").replace(/ \(deleted\)$/, "");
      const name = str(proc, "name");
      const cmdline = str(proc, "cmdline");
      const exe = basename(path);
      const deleted = num(proc, "on_disk") === 0;
      const label = processLabel(proc, pid);
      const shown = cmdline.trim() !== "" ? `"${cmdline.trim().slice(0, 80)}"` : label;
      const binary = path === "" ? "no readable executable" : `the executable ${path}${deleted ? " (deleted from disk)" : ""}`;
      const baseline = path !== "" ? packetSocketProgram(path) : undefined;
      const matches = path !== "" && consistent(cmdline, name, exe);
      if (baseline && matches && !deleted) {
        hits.push({ summary: `${label} (pid ${pid}, ${path}) holds a ${held}.`, evidence, entity, severity: "info", kept_by: baseline.id });
        continue;
      }
      const masquerade = bpfdoorMasquerade(cmdline);
      let severity: Severity = "medium";
      let why = `holds a ${held} and is not a known packet-capture, DHCP or cluster-networking program`;
      let knownBad = false;
      if (masquerade && claimed(masquerade) !== exe) {
        severity = "high";
        knownBad = true;
        why = `holds a ${held} under the BPFDoor disguise "${masquerade}"`;
      } else if (path === "" || deleted || inTmpDir(path)) {
        severity = "high";
        why = `holds a ${held} from a ${path === "" ? "hidden" : deleted ? "deleted" : "temporary"} executable`;
      } else if (!matches && cmdline.trim() !== "") {
        severity = "high";
        why = `holds a ${held} while its command line claims to be ${claimed(cmdline)}`;
      }
      hits.push({
        summary: `${shown} (pid ${pid}) runs ${binary} and ${why}.`,
        evidence,
        entity,
        severity,
        known_bad: knownBad || undefined,
      });
    }
    return hits;
  },
});
