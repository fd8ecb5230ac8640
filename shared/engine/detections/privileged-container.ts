// Containers running privileged (host takeover from inside). Socket and host-path mounts are the
// docker-socket-mount and container-host-mount detections' (docker_container_mounts).
import { privilegedImage, tagBaseline } from "../baselines/index.js";
import { flag, rowsOf, str, tagList } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

export const privilegedContainer = defineDetection({
  id: "privileged-container",
  title: "Privileged container",
  reads: { docker_containers: ["id", "name", "image", "privileged"] },
  severity: "high",
  attack: ["T1611", "T1610"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives: "Monitoring, runtime-security and CI docker-in-docker images run privileged by design (the documented ones are kept quiet).",
  advice: {
    triage: ["Identify who started the container on {hosts} and from which image and registry."],
    containment: ["Stop the container on {hosts} if its image or owner is unknown."],
    investigation: ["Check the container's processes and whether it wrote to the host filesystem."],
    remediation: ["Drop --privileged (grant only the capabilities needed); list sanctioned images in allowed_privileged_images."],
  },
  baseline_tag: "allowed_privileged_images",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_privileged_images");
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "docker_containers")) {
      if (!flag(row, "privileged")) continue;
      const image = str(row, "image");
      const label = `Container ${str(row, "name").replace(/^\//, "") || str(row, "id").slice(0, 12)} (image ${image || "unknown"})`;
      const evidence = [{ table: "docker_containers", row }];
      const entity = `container:${str(row, "id") || str(row, "name")}`;
      if (allowed.some((a) => image === a || image.startsWith(`${a}:`) || image.startsWith(`${a}@`))) {
        hits.push({ summary: `${label} runs privileged; the image is in the host's allowed_privileged_images tag.`, evidence, entity, kept_by: tagBaseline("allowed_privileged_images") });
        continue;
      }
      const documented = privilegedImage(image, str(row, "name"));
      if (documented) {
        hits.push({ summary: `${label} runs privileged, as its documentation requires (${documented.source}).`, evidence, entity, kept_by: documented.baseline });
        continue;
      }
      hits.push({ summary: `${label} runs privileged: it can reach the host's devices and kernel.`, evidence, entity });
    }
    return hits;
  },
});
