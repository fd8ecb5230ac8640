// A container with the container-runtime socket (docker.sock, containerd.sock, crio.sock) bind-mounted: whoever runs
// code in it can start a privileged container on the host (root on the host).
import { containerImageBaseline, GITLAB_SOCKET_BINDING, meetsImageConditions } from "../baselines/container-images.js";
import { compareText } from "../order.js";
import { flag, rowsOf, str, tagList, containerBindMounts } from "../rows.js";
import type { HostData, Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

/** Runtime API sockets (Docker, containerd, CRI-O, cri-dockerd, Podman). */
const RUNTIME_SOCKET = /(?:^|\/)(?:docker|containerd|crio|cri-dockerd|podman)\.sock$/;

/** Whether a docker_container_mounts row is read-only (rw is authoritative; mode "ro" when rw is absent). */
export function mountReadOnly(row: Row): boolean {
  const rw = str(row, "rw").trim().toLowerCase();
  if (rw !== "") return !flag(row, "rw");
  return str(row, "mode").split(/[,\s]+/).includes("ro");
}

/** Image allowed by the host's allowed_privileged_images tag (name, name:tag or name@digest). */
export function taggedImage(image: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => image === a || image.startsWith(`${a}:`) || image.startsWith(`${a}@`));
}

/** The Docker executor's job containers: runner-<token>-project-<id>-concurrent-<n>-... (GitLab Runner's naming). */
const GITLAB_JOB_CONTAINER = /^\/?runner-[A-Za-z0-9_-]{6,}-project-\d+-concurrent-\d+(?:-|$)/;

/** Whether GitLab Runner runs here: its process, or its container. */
function runsGitlabRunner(host: HostData, containers: ReadonlyMap<string, Row>): boolean {
  return rowsOf(host, "processes").some((p) => /^gitlab-(?:runner|ci-multi)/.test(str(p, "name"))) || [...containers.values()].some((c) => /(?:^|\/)gitlab-runner(?::|@|$)/.test(str(c, "image")));
}

export const dockerSocketMount = defineDetection({
  id: "docker-socket-mount",
  title: "Container with the container-runtime socket mounted",
  reads: {
    docker_container_mounts: ["id", "type", "source", "mode", "rw"],
    docker_containers: ["id", "name", "image", "privileged", "command"],
    processes: ["name"],
  },
  severity: "high",
  attack: ["T1611", "T1610"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives:
    "Monitoring, log and management agents that read the Docker API (cAdvisor, Datadog, Portainer agent, Traefik, Promtail, Watchtower, GitLab Runner with socket binding) — listed in baselines/container-images.ts; images pulled through a private mirror under another registry name.",
  advice: {
    triage: ["On {hosts}, identify the container's image, who started it, and whether the image is a sanctioned agent."],
    containment: ["Stop the container on {hosts} if the image is unknown; a read-only bind does not stop API calls through the socket."],
    investigation: ["Look for containers created through the socket (privileged, host PID/network, / mounted) and for docker exec activity around the container's start time."],
    remediation: ["Remove the socket mount or put a filtering proxy (e.g. docker-socket-proxy) in front of it; list sanctioned images in allowed_privileged_images."],
  },
  baseline_tag: "allowed_privileged_images",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_privileged_images");
    const { containers, byContainer } = containerBindMounts(host, (row) => RUNTIME_SOCKET.test(str(row, "source").trim()));
    const hits: DetectionHit[] = [];
    for (const [id, mounts] of [...byContainer.entries()].sort(([a], [b]) => compareText(a, b))) {
      const container = containers.get(id);
      const image = str(container, "image");
      const label = str(container, "name").replace(/^\//, "") || id.slice(0, 12);
      const writable = mounts.filter((m) => !mountReadOnly(m));
      const privileged = flag(container, "privileged");
      const evidence: EvidenceRow[] = [...mounts.map((row) => ({ table: "docker_container_mounts", row }))];
      if (container) evidence.push({ table: "docker_containers", row: container });
      const sockets = [...new Set(mounts.map((m) => str(m, "source")))].join(", ");
      const mode = writable.length > 0 ? "read-write" : "read-only (the API is still fully usable through a read-only bind)";
      const summary = `Container ${label} (image ${image || "unknown"}) has the runtime socket ${sockets} mounted ${mode}${privileged ? " and runs privileged" : ""}.`;
      const entity = `container:${id}`;
      const identity = { command: str(container, "command"), name: str(container, "name") };
      const baseline = image !== "" ? mounts.map((m) => containerImageBaseline(image, str(m, "source"), identity)).find((b) => b !== undefined) : undefined;
      if (baseline && mounts.every((m) => containerImageBaseline(image, str(m, "source"), identity) !== undefined) && meetsImageConditions(baseline, str(container, "command"), privileged)) {
        hits.push({ summary, evidence, entity, kept_by: baseline.id, severity: "info" });
        continue;
      }
      if (image !== "" && taggedImage(image, allowed)) {
        hits.push({ summary, evidence, entity, kept_by: "tag:allowed_privileged_images", severity: "info" });
        continue;
      }
      // GitLab Runner's Docker executor with socket binding gives every job container the socket, whatever image the
      // job uses: a job container of a runner this host runs, given the socket and nothing else, is that set-up.
      if (!privileged && GITLAB_JOB_CONTAINER.test(str(container, "name")) && runsGitlabRunner(host, containers)) {
        hits.push({ summary: `${summary} It is a job container of this host's GitLab Runner with socket binding (${GITLAB_SOCKET_BINDING.source}).`, evidence, entity, kept_by: GITLAB_SOCKET_BINDING.id, severity: "info" });
        continue;
      }
      hits.push({ summary, evidence, entity, severity: writable.length > 0 || privileged ? "high" : "medium" });
    }
    return hits;
  },
});
