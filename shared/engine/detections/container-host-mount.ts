// A container bind-mounting the host root or a sensitive host directory read-write (write a cron job, an SSH key or a
// kubelet credential on the host from inside the container).
import { containerImageBaseline } from "../baselines/container-images.js";
import { compareText } from "../order.js";
import { containerBindMounts, flag, str, tagList, withoutTrailingSlashes } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { mountReadOnly, taggedImage } from "./docker-socket-mount.js";

/**
 * Host directories whose write access is host takeover. The CIS Docker Benchmark (5.5, "sensitive host system
 * directories are not mounted on containers") names /, /boot, /dev, /etc, /lib, /proc, /sys, /usr; /root, the
 * kubelet and Docker state and the runtime directories are added for the same reason. `subtree` also covers paths
 * under the directory; otherwise only the directory itself counts (a single device or a config subdirectory is normal).
 */
const SENSITIVE: ReadonlyArray<{ path: string; subtree: boolean }> = [
  { path: "/", subtree: false },
  { path: "/boot", subtree: true },
  { path: "/dev", subtree: false },
  { path: "/etc", subtree: false },
  { path: "/lib", subtree: false },
  { path: "/usr", subtree: false },
  { path: "/proc", subtree: false },
  { path: "/sys", subtree: false },
  { path: "/root", subtree: true },
  { path: "/var/lib/kubelet", subtree: true },
  { path: "/etc/kubernetes", subtree: true },
  { path: "/var/lib/docker", subtree: false },
  { path: "/var/run", subtree: false },
  { path: "/run", subtree: false },
];
/** Files and directories under /etc that grant persistence or credentials when writable. */
const SENSITIVE_ETC = /^\/etc\/(?:shadow|gshadow|passwd|group|sudoers(?:\.d)?|crontab|cron\.(?:d|hourly|daily|weekly|monthly)|systemd|ssh|pam\.d|ld\.so\.preload|profile\.d|rc\.local|init\.d)(?:\/|$)/;
/** Read-only mounts that still expose host secrets (shadow, SSH keys, kubelet credentials): reported as info. */
const SECRET_READ = ["/", "/etc", "/root", "/var/lib/kubelet", "/etc/kubernetes"];

function normalize(path: string): string {
  const p = withoutTrailingSlashes(path.trim());
  return p === "" && path.trim().startsWith("/") ? "/" : p;
}

function sensitive(path: string): boolean {
  if (SENSITIVE_ETC.test(path)) return true;
  return SENSITIVE.some((s) => path === s.path || (s.subtree && path.startsWith(`${s.path}/`)));
}

const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

export const containerHostMount = defineDetection({
  id: "container-host-mount",
  title: "Container mounting the host root or a sensitive host path",
  reads: {
    docker_container_mounts: ["id", "type", "source", "destination", "mode", "rw"],
    docker_containers: ["id", "name", "image", "privileged", "command"],
  },
  severity: "medium",
  attack: ["T1611"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives:
    "Node agents that document host mounts: node-exporter (/ read-only at /host), CNI/CSI/kube-proxy DaemonSets (/lib/modules, /run/xtables.lock, the kubelet directory), log shippers (/var/log) — see baselines/container-images.ts; debugging containers an administrator started with -v /:/host.",
  advice: {
    triage: ["On {hosts}, identify the container's image and owner and what it wrote under the mounted host path."],
    containment: ["Stop the container on {hosts} if the image is unknown; check the host paths it could write for new cron jobs, SSH keys, systemd units or SUID files."],
    investigation: ["Compare the host's /etc, /root/.ssh and /var/lib/kubelet with a known-good node; review the container's process list and shell history."],
    remediation: ["Mount only the paths the workload needs, read-only; enforce Pod Security 'baseline' or an admission policy that rejects hostPath."],
  },
  baseline_tag: "allowed_privileged_images",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_privileged_images");
    const { containers, byContainer } = containerBindMounts(host, (row) => {
      const source = normalize(str(row, "source"));
      if (!source.startsWith("/")) return false;
      return mountReadOnly(row) ? SECRET_READ.includes(source) : sensitive(source);
    });
    const hits: DetectionHit[] = [];
    for (const [id, mounts] of [...byContainer.entries()].sort(([a], [b]) => compareText(a, b))) {
      const container = containers.get(id);
      const image = str(container, "image");
      const privileged = flag(container, "privileged");
      const identity = { command: str(container, "command"), name: str(container, "name") };
      const unexplained = mounts.filter((m) => image === "" || containerImageBaseline(image, normalize(str(m, "source")), identity) === undefined);
      const evidence: EvidenceRow[] = mounts.map((row) => ({ table: "docker_container_mounts", row }));
      if (container) evidence.push({ table: "docker_containers", row: container });
      const label = str(container, "name").replace(/^\//, "") || id.slice(0, 12);
      const describe = (m: Row): string => `${normalize(str(m, "source"))} -> ${str(m, "destination") || "?"} (${mountReadOnly(m) ? "ro" : "rw"})`;
      const entity = `container:${id}`;
      const summaryOf = (list: Row[]): string =>
        `Container ${label} (image ${image || "unknown"}${privileged ? ", privileged" : ""}) mounts host ${list.map(describe).join(", ")}.`;
      if (unexplained.length === 0) {
        const baseline = containerImageBaseline(image, normalize(str(mounts[0], "source")), identity);
        hits.push({ summary: summaryOf(mounts), evidence, entity, severity: "info", kept_by: baseline?.id ?? "container-images" });
        continue;
      }
      if (image !== "" && taggedImage(image, allowed)) {
        hits.push({ summary: summaryOf(mounts), evidence, entity, severity: "info", kept_by: "tag:allowed_privileged_images" });
        continue;
      }
      let severity: Severity = "info";
      for (const m of unexplained) {
        const source = normalize(str(m, "source"));
        const s: Severity = mountReadOnly(m) ? "info" : source === "/" || privileged ? "high" : "medium";
        if (RANK[s] > RANK[severity]) severity = s;
      }
      hits.push({ summary: summaryOf(unexplained), evidence, entity, severity });
    }
    return hits;
  },
});
