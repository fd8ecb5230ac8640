// Container images whose documented way to run is --privileged (host monitoring, runtime security, CI docker-in-docker).
import type { SourceRef } from "./types.js";

export interface PrivilegedImage {
  id: string;
  /** Repository paths, without registry host and tag (docker.io/library/ and library/ are dropped). */
  repositories: readonly string[];
  /** A tag pattern the image must carry (docker:dind but not docker:cli). */
  tag?: RegExp;
  /**
   * Kubernetes node agents: the container names their DaemonSets give (the kubelet names a Docker container
   * `k8s_<container>_<pod>_<namespace>_<pod uid>_<attempt>`), in these namespaces. The image is then often only its
   * ID (`sha256:...`, pulled by digest), so the pod's own names are what is left to match.
   */
  k8s?: { containers: readonly string[]; namespaces: readonly string[] };
  /**
   * Kept only from this registry (the image reference must start with it), running its own entrypoint under the name
   * its installer gives it: for images anyone could tag locally and run privileged with another command.
   */
  exact?: { registry: string; command: RegExp; names: RegExp };
  source: SourceRef;
}

/** Home Assistant's image names: the Supervisor's per CPU architecture, Core's per machine (ghcr.io/home-assistant/). */
export const HA_ARCHES: readonly string[] = ["amd64", "aarch64", "armv7", "armhf", "i386"];
export const HA_MACHINES: readonly string[] = ["qemux86-64", "qemux86", "qemuarm-64", "qemuarm", "generic-x86-64", "intel-nuc", "odroid-n2", "odroid-c4", "odroid-m1", "raspberrypi3-64", "raspberrypi4-64", "raspberrypi5-64", "raspberrypi3", "raspberrypi4", "tinker", "khadas-vim3", "green", "yellow"];

export const PRIVILEGED_IMAGES: readonly PrivilegedImage[] = [
  { id: "container:cadvisor", repositories: ["cadvisor/cadvisor", "google/cadvisor"], source: { kind: "doc", name: "cAdvisor README: docker run ... --privileged --device=/dev/kmsg gcr.io/cadvisor/cadvisor", url: "https://github.com/google/cadvisor#quick-start-running-cadvisor-in-a-docker-container" } },
  { id: "container:docker-dind", repositories: ["docker"], tag: /dind/, source: { kind: "doc", name: "Docker Official Image 'docker': the dind variant must run with --privileged; GitLab CI docs (services: docker:dind, privileged = true)", url: "https://hub.docker.com/_/docker" } },
  { id: "container:falco", repositories: ["falcosecurity/falco", "falcosecurity/falco-no-driver", "falcosecurity/falco-driver-loader"], source: { kind: "doc", name: "Falco docs: Install with Docker (docker run --rm -i -t --privileged ...)", url: "https://falco.org/docs/setup/container/" } },
  { id: "container:sysdig-agent", repositories: ["sysdig/agent", "sysdig/agent-slim", "sysdig/agent-kmodule"], source: { kind: "doc", name: "Sysdig agent: Docker install (--privileged)" } },
  { id: "container:gitlab-runner-helper", repositories: ["gitlab-org/gitlab-runner/gitlab-runner-helper", "gitlab/gitlab-runner-helper"], source: { kind: "doc", name: "GitLab Runner Docker executor: privileged = true for docker-in-docker jobs", url: "https://docs.gitlab.com/runner/executors/docker/" } },
  { id: "container:rancher-agent", repositories: ["rancher/rancher-agent"], source: { kind: "doc", name: "Rancher: custom cluster node registration (docker run -d --privileged rancher/rancher-agent)" } },
  { id: "container:kube-proxy", repositories: ["kube-proxy", "google_containers/kube-proxy", "eks/kube-proxy"], k8s: { containers: ["kube-proxy"], namespaces: ["kube-system"] }, source: { kind: "doc", name: "kubeadm's kube-proxy DaemonSet (securityContext: privileged: true); EKS and GKE kube-proxy add-ons", url: "https://github.com/kubernetes/kubernetes/blob/master/cmd/kubeadm/app/phases/addons/proxy/manifests.go" } },
  { id: "container:cni-node-agent", repositories: ["calico/node", "calico/cni", "tigera/operator", "cilium/cilium", "cilium/cilium-envoy", "flannel/flannel", "flannelcni/flannel", "flannel/flannel-cni-plugin", "weaveworks/weave-kube", "weaveworks/weave-npc", "amazon-k8s-cni", "amazon-k8s-cni-init", "amazon/aws-network-policy-agent", "cloudnativelabs/kube-router", "antrea/antrea-agent-ubuntu", "kube-vip/kube-vip", "multus-cni/multus-cni", "k8snetworkplumbingwg/multus-cni"], k8s: { containers: ["calico-node", "install-cni", "flexvol-driver", "cilium-agent", "mount-cgroup", "apply-sysctl-overwrites", "clean-cilium-state", "kube-flannel", "install-cni-plugin", "aws-node", "aws-vpc-cni-init", "aws-eks-nodeagent", "kube-router", "weave", "weave-npc", "antrea-agent", "antrea-ovs", "kube-vip", "kube-multus"], namespaces: ["kube-system", "calico-system", "kube-flannel", "cilium", "tigera-operator"] }, source: { kind: "doc", name: "The CNI plugins' node DaemonSets run privileged to program the host's network: Calico (calico-node), Cilium (cilium-agent and its init containers), Flannel, Weave, the AWS VPC CNI (aws-node), kube-router, Antrea, kube-vip, Multus", url: "https://docs.tigera.io/calico/latest/getting-started/kubernetes/self-managed-onprem/onpremises" } },
  { id: "container:csi-node-plugin", repositories: ["ebs-csi-driver/aws-ebs-csi-driver", "efs-csi-driver/aws-efs-csi-driver", "cloud-provider-gcp/gcp-compute-persistent-disk-csi-driver", "longhornio/longhorn-manager", "longhornio/longhorn-engine", "rook/ceph", "cephcsi/cephcsi", "sig-storage/csi-node-driver-registrar", "sig-storage/nfsplugin", "openebs/node-disk-manager"], k8s: { containers: ["ebs-plugin", "efs-plugin", "gce-pd-driver", "csi-rbdplugin", "csi-cephfsplugin", "longhorn-manager", "nfs", "node-driver-registrar", "liveness-probe"], namespaces: ["kube-system", "longhorn-system", "rook-ceph", "openebs"] }, source: { kind: "doc", name: "Kubernetes CSI docs: node plugins run privileged for bidirectional mount propagation (AWS EBS/EFS, GCE PD, Ceph CSI, Longhorn, NFS CSI)", url: "https://kubernetes-csi.github.io/docs/deploying.html" } },
  { id: "container:binfmt", repositories: ["tonistiigi/binfmt", "docker/binfmt", "multiarch/qemu-user-static"], source: { kind: "doc", name: "Docker docs, multi-platform builds: install the QEMU emulators with docker run --privileged --rm tonistiigi/binfmt --install all (it registers binfmt_misc handlers in the host's kernel); multiarch/qemu-user-static README: docker run --rm --privileged multiarch/qemu-user-static --reset -p yes", url: "https://docs.docker.com/build/building/multi-platform/#qemu" } },
  { id: "container:buildkit", repositories: ["moby/buildkit"], source: { kind: "doc", name: "Docker docs: Buildx's docker-container driver runs BuildKit in a privileged container (buildx_buildkit_<builder>0, image moby/buildkit:buildx-stable-1); BuildKit README: rootful buildkitd needs --privileged", url: "https://docs.docker.com/build/builders/drivers/docker-container/" } },
  { id: "container:home-assistant-supervised", repositories: [...HA_ARCHES.map((a) => `home-assistant/${a}-hassio-supervisor`), ...HA_MACHINES.map((m) => `home-assistant/${m}-homeassistant`)], exact: { registry: "ghcr.io/", command: /^\/init$/, names: /^\/?(?:hassio_supervisor|homeassistant)$/ }, source: { kind: "doc", name: "Home Assistant Supervised: the installer starts the Supervisor privileged with the Docker socket (supervised-installer, hassio-supervisor); the Supervisor runs Home Assistant Core privileged with /dev (supervisor/docker/homeassistant.py)", url: "https://github.com/home-assistant/supervised-installer" } },
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

/** The kubelet's Docker container name `k8s_<container>_<pod>_<namespace>_<pod uid>_<attempt>`, split. */
export function kubeletContainerName(name: string): { container: string; pod: string; namespace: string } | undefined {
  const m = /^\/?k8s_([^_]+)_([^_]+)_([^_]+)_[^_]+_\d+$/.exec(name);
  return m ? { container: m[1] as string, pod: m[2] as string, namespace: m[3] as string } : undefined;
}
