// Containers running privileged or with the Docker socket mounted (host takeover from inside).
import { flag, rowsOf, str, tagList } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

export const privilegedContainer = defineDetection({
  id: "privileged-container",
  title: "Privileged container or Docker socket mount",
  tables: ["docker_containers"],
  severity: "high",
  attack: ["T1611", "T1610"],
  maturity: "test",
  category: "privilege-escalation",
  keywords: ["container", "containers", "docker", "privileged", "docker.sock", "docker socket", "container escape", "kubernetes"],
  false_positives: "Monitoring agents (cAdvisor, Datadog) that mount docker.sock read-only; CI docker-in-docker runners.",
  advice: {
    triage: ["Identify who started the container on {hosts} and from which image and registry."],
    containment: ["Stop the container on {hosts} if its image or owner is unknown."],
    investigation: ["Check the container's processes and whether it wrote to the host filesystem."],
    remediation: ["Drop --privileged and the socket mount; list sanctioned images in allowed_privileged_images."],
  },
  baseline_tag: "allowed_privileged_images",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_privileged_images");
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "docker_containers")) {
      const image = str(row, "image");
      if (allowed.some((a) => image === a || image.startsWith(`${a}:`) || image.startsWith(`${a}@`))) continue;
      const privileged = flag(row, "privileged");
      const socket = /docker\.sock|containerd\.sock|crio\.sock/.test(str(row, "mounts"));
      if (!privileged && !socket) continue;
      const what = [privileged ? "runs privileged" : "", socket ? "mounts the container runtime socket" : ""].filter((s) => s !== "").join(" and ");
      hits.push({
        summary: `Container ${str(row, "name") || str(row, "id").slice(0, 12)} (image ${image || "unknown"}) ${what}.`,
        evidence: [{ table: "docker_containers", row }],
        entity: `container:${str(row, "id") || str(row, "name")}`,
      });
    }
    return hits;
  },
});
