// Cryptocurrency miners: miner names and stratum URLs in processes, connections to public pool ports.
import { compareText } from "../order.js";
import { num, processIndex, processLabel, rowsOf, str } from "../rows.js";
import { isPublic } from "../net.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

const MINER_RE = /\b(?:xmrig|xmr-stak|minerd|cpuminer|ethminer|nbminer|t-rex|lolminer|phoenixminer|teamredminer|srbminer|nanominer|kdevtmpfsi|kinsing)\b|stratum\+(?:tcp|ssl|tls):\/\/|--donate-level|\bcryptonight\b|\brandomx\b/i;
/**
 * A mining wallet on a command line, whatever the miner is called: a Monero address (95 base58 characters starting 4
 * or 8) or a Dero one (bech32, `dero1q...`; CrowdStrike's Dero DaemonSet ran it as `/pause -w dero1q...`).
 */
const WALLET_RE = /(?:^|[\s=:])(?:[48][0-9AB][1-9A-HJ-NP-Za-km-z]{93}|dero1q[02-9ac-hj-np-z]{50,})(?:$|[\s.,"'])/;
export const POOL_PORTS: readonly number[] = [3333, 4444, 5555, 7777, 14433, 14444, 45560, 45700];

export const cryptominer = defineDetection({
  id: "cryptominer",
  title: "Cryptocurrency miner",
  reads: { processes: ["pid", "name", "path", "cmdline"], process_open_sockets: ["pid", "remote_address", "remote_port"] },
  severity: "high",
  attack: ["T1496"],
  maturity: "test",
  category: "impact",
  false_positives: "Legitimate services on a public host that happens to use a pool port (4444, 5555); sanctioned research mining.",
  advice: {
    triage: ["Record the pool address and wallet from the miner's command line on {hosts}."],
    containment: ["Kill the miner on {hosts} and block the pool address and stratum ports at the egress."],
    investigation: ["Find the entry point: miners usually arrive through an exposed service or stolen credentials, with a cron or systemd relauncher."],
    remediation: ["Remove the miner's persistence, patch the entry point, rotate credentials."],
  },
  evaluate(host) {
    const procs = processIndex(host);
    const byPid = new Map<string, { proc: Row | undefined; sockets: Row[]; named: boolean }>();
    for (const proc of rowsOf(host, "processes")) {
      const text = `${str(proc, "name")} ${str(proc, "path")} ${str(proc, "cmdline")}`;
      if (MINER_RE.test(text) || WALLET_RE.test(str(proc, "cmdline"))) byPid.set(str(proc, "pid"), { proc, sockets: [], named: true });
    }
    for (const s of rowsOf(host, "process_open_sockets")) {
      const port = num(s, "remote_port") ?? 0;
      const pid = str(s, "pid");
      const known = byPid.get(pid);
      if (known) {
        if (isPublic(str(s, "remote_address"))) known.sockets.push(s);
        continue;
      }
      if (!POOL_PORTS.includes(port) || !isPublic(str(s, "remote_address"))) continue;
      byPid.set(pid, { proc: procs.get(pid), sockets: [s], named: false });
    }
    const hits: DetectionHit[] = [];
    for (const [pid, m] of [...byPid.entries()].sort(([a], [b]) => Number(a) - Number(b) || compareText(a, b))) {
      const evidence: EvidenceRow[] = [];
      if (m.proc) evidence.push({ table: "processes", row: m.proc });
      for (const row of m.sockets) evidence.push({ table: "process_open_sockets", row });
      const peers = m.sockets.map((s) => `${str(s, "remote_address")}:${str(s, "remote_port")}`);
      const label = processLabel(m.proc, pid);
      hits.push({
        summary: m.named
          ? `${label} (pid ${pid}) looks like a miner (${str(m.proc, "cmdline").slice(0, 100) || str(m.proc, "path")})${peers.length > 0 ? `, connected to ${peers.join(", ")}` : ""}.`
          : `${label} (pid ${pid}) is connected to ${peers.join(", ")}, a mining-pool port.`,
        evidence,
        severity: m.named ? undefined : "medium",
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
