// Container images that legitimately mount the container-runtime socket or host paths, as their vendors document it.
// Used by docker-socket-mount and container-host-mount: a match turns the hit into a baseline note (kept_by = id).
// An image is matched by repository (registry + path, tag and digest ignored); Docker Hub names are compared in their
// short form ("docker.io/library/traefik" == "traefik"). A mirror under another registry name does not match on purpose.
import { withoutTrailingSlashes } from "../rows.js";
import { HA_ARCHES, HA_MACHINES } from "./containers.js";

export interface ContainerImageBaseline {
  /** Stable id reported as `kept_by`. */
  id: string;
  /** Image repositories, without tag or digest. */
  images: readonly string[];
  /** Host paths (bind-mount sources) the vendor documents for this image; a mount at or under one of them is expected. */
  host_paths: readonly string[];
  /** Where the mount list was taken from. */
  source: string;
  /**
   * For an image anyone can tag locally and whose job needs nothing more: the container's command must match, and it
   * must not run privileged (a retagged image running its own `sh -c` with the socket is no longer the vendor's).
   */
  only?: { command: RegExp; unprivileged: true };
  /**
   * For images whose job is privileged itself (Home Assistant's Supervisor): the container must run the image's own
   * entrypoint under the name its installer gives it, so the real image run as `bash -c ...` is not the vendor's.
   */
  container?: { command: RegExp; names: RegExp };
}

/** What a container runs and is called (docker_containers.command, .name), for `container` conditions. */
export interface ContainerIdentity {
  command: string;
  name: string;
}

const HA_REGISTRY = "ghcr.io/home-assistant";

export const CONTAINER_IMAGE_BASELINES: readonly ContainerImageBaseline[] = [
  {
    id: "container-images:home-assistant-supervisor",
    images: HA_ARCHES.map((a) => `${HA_REGISTRY}/${a}-hassio-supervisor`),
    container: { command: /^\/init$/, names: /^\/?hassio_supervisor$/ },
    host_paths: ["/var/run/docker.sock", "/run/docker.sock", "/run/dbus", "/run/systemd/journal", "/run/systemd-journal-gatewayd.sock", "/usr/share/hassio", "/var/lib/homeassistant", "/etc/machine-id", "/run/os-release", "/etc/os-release"],
    source: "https://github.com/home-assistant/supervised-installer (hassio-supervisor: docker run --privileged -v /run/docker.sock:/run/docker.sock:rw -v /run/dbus:/run/dbus:ro -v /run/systemd/journal:... -v $SUPERVISOR_DATA:/data)",
  },
  {
    id: "container-images:home-assistant-observer",
    images: HA_ARCHES.map((a) => `${HA_REGISTRY}/${a}-hassio-observer`),
    container: { command: /^\/init$/, names: /^\/?hassio_observer$/ },
    host_paths: ["/var/run/docker.sock", "/run/docker.sock"],
    source: "https://github.com/home-assistant/supervisor/blob/main/supervisor/docker/observer.py (the observer watches the Supervisor through the Docker socket, read-only)",
  },
  {
    id: "container-images:home-assistant-core",
    images: HA_MACHINES.map((m) => `${HA_REGISTRY}/${m}-homeassistant`),
    container: { command: /^\/init$/, names: /^\/?homeassistant$/ },
    host_paths: ["/dev", "/run/dbus", "/run/udev", "/etc/machine-id", "/usr/share/hassio", "/var/lib/homeassistant", "/run/audio", "/etc/pulse"],
    source: "https://github.com/home-assistant/supervisor/blob/main/supervisor/docker/homeassistant.py (Core runs privileged with /dev, /run/dbus, /run/udev and the Supervisor's data shares)",
  },
  {
    id: "container-images:localstack",
    images: ["localstack/localstack", "localstack/localstack-pro"],
    host_paths: ["/var/run/docker.sock", "/var/lib/localstack", "/tmp/localstack"],
    source: "https://docs.localstack.cloud/getting-started/installation/ (docker-compose: /var/run/docker.sock for Lambda and ECS containers)",
  },
  {
    id: "container-images:cadvisor",
    images: ["gcr.io/cadvisor/cadvisor", "google/cadvisor"],
    host_paths: ["/", "/var/run", "/sys", "/var/lib/docker", "/dev/disk", "/dev/kmsg"],
    source: "https://github.com/google/cadvisor#quick-start-running-cadvisor-in-a-docker-container",
  },
  {
    id: "container-images:datadog-agent",
    images: ["datadog/agent", "gcr.io/datadoghq/agent", "public.ecr.aws/datadog/agent", "datadog/cluster-agent"],
    host_paths: ["/var/run/docker.sock", "/run/containerd/containerd.sock", "/proc", "/sys/fs/cgroup", "/var/lib/docker/containers", "/var/log", "/etc/passwd", "/opt/datadog-agent/run"],
    source: "https://docs.datadoghq.com/containers/docker/ (docker run -v /var/run/docker.sock:/var/run/docker.sock:ro -v /proc/:/host/proc/:ro ...)",
  },
  {
    id: "container-images:portainer-agent",
    images: ["portainer/agent"],
    host_paths: ["/var/run/docker.sock", "/var/lib/docker/volumes", "/"],
    source: "https://docs.portainer.io/admin/environments/add/docker/agent (-v /var/run/docker.sock -v /var/lib/docker/volumes, optional -v /:/host)",
  },
  {
    id: "container-images:portainer",
    images: ["portainer/portainer-ce", "portainer/portainer-ee", "portainer/portainer"],
    host_paths: ["/var/run/docker.sock"],
    source: "https://docs.portainer.io/start/install-ce/server/docker/linux",
  },
  {
    id: "container-images:traefik",
    images: ["traefik"],
    host_paths: ["/var/run/docker.sock"],
    source: "https://doc.traefik.io/traefik/providers/docker/ (-v /var/run/docker.sock:/var/run/docker.sock:ro)",
  },
  {
    id: "container-images:promtail",
    images: ["grafana/promtail"],
    host_paths: ["/var/run/docker.sock", "/var/log", "/var/lib/docker/containers", "/run/promtail"],
    source: "https://grafana.com/docs/loki/latest/send-data/promtail/configuration/#docker_sd_configs",
  },
  {
    id: "container-images:grafana-agent",
    images: ["grafana/agent", "grafana/alloy"],
    host_paths: ["/var/run/docker.sock", "/var/log", "/var/lib/docker/containers", "/", "/proc", "/sys"],
    source: "https://grafana.com/docs/alloy/latest/set-up/install/docker/",
  },
  {
    id: "container-images:pumba",
    images: ["gaiaadm/pumba", "ghcr.io/alexei-led/pumba"],
    host_paths: ["/var/run/docker.sock"],
    only: { command: /^\/pumba(?:\s|$)/, unprivileged: true },
    source: "https://github.com/alexei-led/pumba#running-inside-docker-container (chaos testing: kills, pauses and delays other containers through -v /var/run/docker.sock:/var/run/docker.sock)",
  },
  {
    id: "container-images:watchtower",
    images: ["containrrr/watchtower"],
    host_paths: ["/var/run/docker.sock"],
    source: "https://containrrr.dev/watchtower/ (docker run -v /var/run/docker.sock:/var/run/docker.sock containrrr/watchtower)",
  },
  {
    id: "container-images:gitlab-runner",
    images: ["gitlab/gitlab-runner", "gitlab/gitlab-runner-helper", "registry.gitlab.com/gitlab-org/gitlab-runner/gitlab-runner-helper"],
    host_paths: ["/var/run/docker.sock", "/srv/gitlab-runner/config", "/etc/gitlab-runner"],
    source: "https://docs.gitlab.com/runner/install/docker/ and https://docs.gitlab.com/ci/docker/using_docker_build/#use-the-docker-executor-with-docker-socket-binding",
  },
  {
    // Gitea's and Forgejo's runners start job containers through the host's Docker socket (the documented setup).
    id: "container-images:gitea-act-runner",
    images: ["gitea/act_runner", "docker.io/gitea/act_runner", "code.forgejo.org/forgejo/runner", "data.forgejo.org/forgejo/runner"],
    host_paths: ["/var/run/docker.sock"],
    source: "https://docs.gitea.com/usage/actions/act-runner (docker run -v /var/run/docker.sock:/var/run/docker.sock gitea/act_runner) and https://forgejo.org/docs/latest/admin/runner-installation/",
  },
  {
    id: "container-images:node-exporter",
    images: ["prom/node-exporter", "quay.io/prometheus/node-exporter"],
    host_paths: ["/", "/proc", "/sys"],
    source: "https://github.com/prometheus/node_exporter#docker (-v \"/:/host:ro,rslave\" --path.rootfs=/host)",
  },
  {
    id: "container-images:calico-node",
    images: ["calico/node", "docker.io/calico/node", "quay.io/calico/node", "calico/cni"],
    host_paths: ["/lib/modules", "/run/xtables.lock", "/var/run/calico", "/var/lib/calico", "/var/log/calico", "/etc/cni/net.d", "/opt/cni/bin", "/proc", "/sys/fs", "/var/run/nodeagent"],
    source: "https://github.com/projectcalico/calico/blob/master/manifests/calico.yaml (calico-node DaemonSet hostPath volumes)",
  },
  {
    id: "container-images:cilium",
    images: ["quay.io/cilium/cilium", "cilium/cilium"],
    host_paths: ["/lib/modules", "/run/xtables.lock", "/run/cilium", "/var/run/cilium", "/sys/fs/bpf", "/sys/fs/cgroup", "/proc", "/etc/cni/net.d", "/opt/cni/bin"],
    source: "https://github.com/cilium/cilium/tree/main/install/kubernetes/cilium/templates/cilium-agent (DaemonSet hostPath volumes)",
  },
  {
    id: "container-images:kube-proxy",
    images: ["registry.k8s.io/kube-proxy", "k8s.gcr.io/kube-proxy"],
    host_paths: ["/lib/modules", "/run/xtables.lock", "/var/lib/kube-proxy"],
    source: "https://github.com/kubernetes/kubernetes/blob/master/cluster/addons/kube-proxy/kube-proxy-ds.yaml",
  },
  {
    id: "container-images:csi-node",
    images: ["registry.k8s.io/sig-storage/csi-node-driver-registrar", "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver", "registry.k8s.io/provider-aws/aws-ebs-csi-driver", "longhornio/longhorn-manager"],
    host_paths: ["/var/lib/kubelet", "/dev", "/run/udev", "/sys"],
    source: "https://kubernetes-csi.github.io/docs/deploying.html (node plugin mounts the kubelet dir with Bidirectional propagation and /dev)",
  },
  {
    id: "container-images:log-shippers",
    images: ["fluent/fluent-bit", "cr.fluentbit.io/fluent/fluent-bit", "fluent/fluentd", "fluent/fluentd-kubernetes-daemonset", "docker.elastic.co/beats/filebeat", "elastic/filebeat", "docker.elastic.co/elastic-agent/elastic-agent", "timberio/vector"],
    host_paths: ["/var/log", "/var/lib/docker/containers", "/var/run/docker.sock", "/run/log/journal", "/etc/machine-id"],
    source: "https://www.elastic.co/guide/en/beats/filebeat/current/running-on-docker.html and https://docs.fluentbit.io/manual/installation/kubernetes",
  },
];

/** The repository part of an image reference in short Docker Hub form (no tag, no digest). */
export function imageRepository(image: string): string {
  let ref = image.trim().toLowerCase().replace(/@sha256:[0-9a-f]+$/, "");
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon > slash) ref = ref.slice(0, colon);
  ref = ref.replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, "");
  return ref.replace(/^library\//, "");
}

function underPath(path: string, base: string): boolean {
  return path === base || (base === "/" ? false : path.startsWith(`${base}/`));
}

/** The baseline that documents `image` mounting `hostPath`, if any. */
/**
 * GitLab Runner's Docker executor with socket binding (`volumes = ["/var/run/docker.sock:/var/run/docker.sock"]`):
 * every job container gets the host's socket, whatever its image. Matched by the job container's name on a host
 * that runs the runner (docker-socket-mount).
 */
export const GITLAB_SOCKET_BINDING = {
  id: "container-images:gitlab-runner-job",
  source: "https://docs.gitlab.com/ci/docker/using_docker_build/#use-the-docker-executor-with-docker-socket-binding (job containers runner-<token>-project-<id>-concurrent-<n>-...)",
} as const;

/** Whether a container meets its image baseline's `only` conditions (none: it does). */
export function meetsImageConditions(baseline: ContainerImageBaseline, command: string, privileged: boolean): boolean {
  return baseline.only === undefined || (baseline.only.command.test(command.trim()) && !privileged);
}

export function containerImageBaseline(image: string, hostPath: string, container?: ContainerIdentity): ContainerImageBaseline | undefined {
  const repo = imageRepository(image);
  if (repo === "") return undefined;
  const path = withoutTrailingSlashes(hostPath) || "/";
  return CONTAINER_IMAGE_BASELINES.find(
    (b) =>
      b.images.some((i) => imageRepository(i) === repo) &&
      b.host_paths.some((p) => underPath(path, p)) &&
      (b.container === undefined || (container !== undefined && b.container.command.test(container.command.trim()) && b.container.names.test(container.name))),
  );
}
