// CI runners connecting to public addresses on ports outside the usual egress set.
import { tagBaseline } from "../baselines/index.js";
import { num, processIndex, processLabel, rowsOf, str, tagNumbers } from "../rows.js";
import { isPublic } from "../net.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** HTTPS, HTTP, SSH (git), DNS, git protocol. */
const CI_EGRESS_PORTS: readonly number[] = [22, 53, 80, 443, 9418];

export const ciRunnerEgress = defineDetection({
  id: "ci-runner-egress",
  title: "CI runner with unexpected egress",
  reads: { process_open_sockets: ["pid", "remote_address", "remote_port"], processes: ["pid", "name", "path", "cmdline"] },
  severity: "medium",
  attack: ["T1041", "T1195.002"],
  maturity: "experimental",
  category: "exfiltration",
  keywords: ["ci", "ci runner", "runner", "runners", "pipeline", "build agent", "egress", "exfiltration", "supply chain", "github actions"],
  false_positives: "Builds that pull from registries or caches on non-standard ports (a registry on 5000, a cache on 8080).",
  advice: {
    triage: ["Map the connection on {hosts} to the job that ran at the time (repository, workflow, commit)."],
    containment: ["Pause the runner on {hosts} and revoke the tokens the job could read."],
    investigation: ["Diff the job's dependencies and workflow for new install scripts (a supply-chain payload)."],
    remediation: ["Enforce an egress allow-list for runners; list sanctioned ports in allowed_egress_ports."],
  },
  evaluate(host) {
    if (host.tags.role !== "ci-runner") return [];
    const tagged = new Set(tagNumbers(host.tags, "allowed_egress_ports"));
    const procs = processIndex(host);
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "process_open_sockets")) {
      const remote = str(row, "remote_address");
      const port = num(row, "remote_port") ?? 0;
      if (port <= 0 || CI_EGRESS_PORTS.includes(port) || !isPublic(remote)) continue;
      const pid = str(row, "pid");
      const proc = procs.get(pid);
      if (tagged.has(port)) {
        hits.push({
          summary: `CI runner process ${processLabel(proc, pid)} (pid ${pid}) connects to ${remote}:${port}, a port in the host's allowed_egress_ports tag.`,
          evidence: proc ? [{ table: "process_open_sockets", row }, { table: "processes", row: proc }] : [{ table: "process_open_sockets", row }],
          entity: `pid:${pid}`,
          kept_by: tagBaseline("allowed_egress_ports"),
        });
        continue;
      }
      hits.push({
        summary: `CI runner process ${processLabel(proc, pid)} (pid ${pid}) connects to ${remote}:${port}${host.tags.repository ? ` (runner for ${host.tags.repository})` : ""}, outside the runner's egress ports.`,
        evidence: proc ? [{ table: "process_open_sockets", row }, { table: "processes", row: proc }] : [{ table: "process_open_sockets", row }],
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
