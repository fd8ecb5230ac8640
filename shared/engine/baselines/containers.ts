// Container images whose documented way to run is --privileged (host monitoring, runtime security, CI docker-in-docker).
import type { SourceRef } from "./types.js";

export interface PrivilegedImage {
  id: string;
  /** Repository paths, without registry host and tag (docker.io/library/ and library/ are dropped). */
  repositories: readonly string[];
  /** A tag pattern the image must carry (docker:dind but not docker:cli). */
  tag?: RegExp;
  source: SourceRef;
}

export const PRIVILEGED_IMAGES: readonly PrivilegedImage[] = [
  { id: "container:cadvisor", repositories: ["cadvisor/cadvisor", "google/cadvisor"], source: { kind: "doc", name: "cAdvisor README: docker run ... --privileged --device=/dev/kmsg gcr.io/cadvisor/cadvisor", url: "https://github.com/google/cadvisor#quick-start-running-cadvisor-in-a-docker-container" } },
  { id: "container:docker-dind", repositories: ["docker"], tag: /dind/, source: { kind: "doc", name: "Docker Official Image 'docker': the dind variant must run with --privileged; GitLab CI docs (services: docker:dind, privileged = true)", url: "https://hub.docker.com/_/docker" } },
  { id: "container:falco", repositories: ["falcosecurity/falco", "falcosecurity/falco-no-driver", "falcosecurity/falco-driver-loader"], source: { kind: "doc", name: "Falco docs: Install with Docker (docker run --rm -i -t --privileged ...)", url: "https://falco.org/docs/setup/container/" } },
  { id: "container:sysdig-agent", repositories: ["sysdig/agent", "sysdig/agent-slim", "sysdig/agent-kmodule"], source: { kind: "doc", name: "Sysdig agent: Docker install (--privileged)" } },
  { id: "container:gitlab-runner-helper", repositories: ["gitlab-org/gitlab-runner/gitlab-runner-helper", "gitlab/gitlab-runner-helper"], source: { kind: "doc", name: "GitLab Runner Docker executor: privileged = true for docker-in-docker jobs", url: "https://docs.gitlab.com/runner/executors/docker/" } },
  { id: "container:rancher-agent", repositories: ["rancher/rancher-agent"], source: { kind: "doc", name: "Rancher: custom cluster node registration (docker run -d --privileged rancher/rancher-agent)" } },
  { id: "container:nvidia-driver", repositories: ["nvidia/driver", "nvidia/gpu-operator", "nvidia/k8s-device-plugin"], source: { kind: "doc", name: "NVIDIA GPU Operator / driver container: runs privileged to load kernel modules" } },
];

/** Repository path of an image reference: registry host, tag and digest dropped. */
export function imageRepository(image: string): { repository: string; tag: string } {
  const [withoutDigest = ""] = image.split("@");
  const slash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.lastIndexOf(":");
  const tag = colon > slash ? withoutDigest.slice(colon + 1) : "latest";
  let repo = colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
  const first = repo.split("/")[0] ?? "";
  if (repo.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost")) repo = repo.slice(first.length + 1);
  repo = repo.replace(/^library\//, "");
  return { repository: repo, tag };
}
