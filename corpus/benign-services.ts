// Benign look-alikes from ordinary services: exporters on their registered ports, databases and brokers
// listening widely, Kubernetes node components, ingress controllers, monitoring agents with docker.sock.
import { run, withDecoys, type Family } from "./kit.js";
import { service, dockerd } from "./roles.js";
import { containerRow, mount } from "./attacks-container.js";

const OPEN_PORT_Q = {
  direct: ["any unexpected listening ports on {host}?", "what is listening on non-standard ports in {env}?", "any backdoor listeners on the {role}?", "is anything listening on a high port on {host}?"],
  paraphrase: ["is {host} accepting connections it shouldn't?", "what doors are open on {host}?", "is anything on the {role} waiting for outsiders to connect?"],
};

const EXPORTERS: Array<[string, number, string]> = [
  ["node_exporter", 9100, "/usr/local/bin/node_exporter --collector.systemd --collector.processes"], ["mysqld_exporter", 9104, "/usr/local/bin/mysqld_exporter --config.my-cnf=/etc/mysqld_exporter/.my.cnf"],
  ["postgres_exporter", 9187, "/usr/local/bin/postgres_exporter --web.listen-address=:9187"], ["redis_exporter", 9121, "/usr/local/bin/redis_exporter -redis.addr redis://localhost:6379"],
  ["blackbox_exporter", 9115, "/usr/local/bin/blackbox_exporter --config.file=/etc/blackbox_exporter/blackbox.yml"], ["process-exporter", 9256, "/usr/local/bin/process-exporter -config.path /etc/process-exporter/all.yaml"],
  ["kafka_exporter", 9308, "/usr/local/bin/kafka_exporter --kafka.server=localhost:9092"], ["nginx-prometheus-exporter", 9113, "/usr/local/bin/nginx-prometheus-exporter --nginx.scrape-uri=http://127.0.0.1:8080/stub_status"],
  ["haproxy_exporter", 9101, "/usr/local/bin/haproxy_exporter"], ["memcached_exporter", 9150, "/usr/local/bin/memcached_exporter"], ["elasticsearch_exporter", 9114, "/usr/local/bin/elasticsearch_exporter --es.uri=http://localhost:9200"],
  ["pushgateway", 9091, "/usr/local/bin/pushgateway"], ["systemd_exporter", 9558, "/usr/local/bin/systemd_exporter"], ["smartctl_exporter", 9633, "/usr/local/bin/smartctl_exporter"],
  ["statsd_exporter", 9102, "/usr/local/bin/statsd_exporter --statsd.listen-udp=:9125"],
];

const exporters: Family = {
  name: "prometheus-exporters", kind: "benign", attack: [], count: 5,
  sources: ["Prometheus wiki: Default port allocations", "prometheus/node_exporter README", "Prometheus docs: Exporters and integrations"],
  q: OPEN_PORT_Q,
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["db", "cache", "broker", "web", "app"] as const)));
    for (const b of hosts) {
      for (const [name, port, cmd] of rng.sample(EXPORTERS, rng.int(2, 4))) {
        const uid = 980 + rng.int(0, 9);
        service(b.h, { unit: `${name}.service`, desc: `Prometheus ${name}`, name: name.slice(0, 15), path: cmd.split(" ")[0] ?? "", cmdline: cmd, uid, ports: [[port, "::"]] });
      }
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const datastores: Family = {
  name: "datastores", kind: "benign", attack: [], count: 5,
  sources: ["PostgreSQL docs: Connections and Authentication (port 5432)", "MongoDB docs: Default MongoDB Port", "Elasticsearch docs: Networking settings (9200/9300)", "Redis docs: redis.conf bind"],
  q: { direct: [...OPEN_PORT_Q.direct, "any database exposed on all interfaces in {env}?"], paraphrase: OPEN_PORT_Q.paraphrase },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["db", "db", "cache"] as const));
    const h = b.h;
    const kind = rng.int(0, 2);
    if (kind === 0) service(h, { unit: "mongod.service", desc: "MongoDB Database Server", name: "mongod", path: "/usr/bin/mongod", cmdline: "/usr/bin/mongod --config /etc/mongod.conf", uid: 118, ports: [[27017, "0.0.0.0"]], threads: 33, rss: 700_000_000 });
    else if (kind === 1) {
      const es = service(h, { unit: "elasticsearch.service", desc: "Elasticsearch", name: "java", path: "/usr/share/elasticsearch/jdk/bin/java", uid: 119, cwd: "/usr/share/elasticsearch", threads: 80, rss: 4_000_000_000, cmdline: "/usr/share/elasticsearch/jdk/bin/java -Xms4g -Xmx4g -XX:+UseG1GC -Djava.io.tmpdir=/tmp/elasticsearch-3827261637845532001 -XX:+HeapDumpOnOutOfMemoryError -Des.path.home=/usr/share/elasticsearch -Des.path.conf=/etc/elasticsearch -Des.distribution.type=deb -cp /usr/share/elasticsearch/lib/* org.elasticsearch.bootstrap.Elasticsearch", ports: [[9200, "::"], [9300, "::"]] });
      h.proc({ name: "controller", path: "/usr/share/elasticsearch/modules/x-pack-ml/platform/linux-x86_64/bin/controller", cmdline: "/usr/share/elasticsearch/modules/x-pack-ml/platform/linux-x86_64/bin/controller", uid: 119, parent: es });
    } else service(h, { unit: "redis-server@sessions.service", desc: "Advanced key-value store (sessions)", name: "redis-server", path: "/usr/bin/redis-server", uid: 115, cmdline: `/usr/bin/redis-server ${h.spec.ip}:6380`, ports: [[6380, h.spec.ip]] });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const brokers: Family = {
  name: "brokers", kind: "benign", attack: [], count: 5,
  sources: ["RabbitMQ docs: Networking and RabbitMQ (ports 4369, 5672, 15672, 25672)", "NATS docs: Server configuration (4222/6222/8222)", "Apache Kafka docs: listeners"],
  q: { direct: [...OPEN_PORT_Q.direct, "is epmd or beam.smp something to worry about on {host}?"], paraphrase: OPEN_PORT_Q.paraphrase },
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base("broker"));
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const k8sNode: Family = {
  name: "k8s-node-components", kind: "benign", attack: [], count: 5,
  sources: ["Kubernetes docs: Ports and Protocols", "Calico docs: calico-node requirements (privileged, hostNetwork)", "Cilium docs: system requirements", "Kubernetes docs: hostPath volumes"],
  q: {
    direct: ["any privileged containers or raw sockets on the k8s nodes?", "is anything listening on 10250 that shouldn't be?", "any container escapes on {host}?", "any packet sniffers on the {role}?"],
    paraphrase: ["is anything on {host} watching all network traffic?", "are any containers on {host} reaching into the host?", "is the {role} set up safely?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base("k8s"));
    for (const b of hosts) {
      const h = b.h;
      const shim = b.svc.shim ?? 1;
      const cni = rng.pick(["calico", "cilium"] as const);
      const cg = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${rng.hex(8)}.slice`;
      if (cni === "calico") {
        const felix = h.proc({ name: "calico-node", path: "/usr/bin/calico-node", cmdline: "calico-node -felix", parent: shim, cgroup: cg, threads: 20 });
        h.proc({ name: "bird", path: "/usr/bin/bird", cmdline: "bird -R -s /var/run/calico/bird.ctl -d -c /etc/calico/confd/config/bird.cfg", parent: shim, cgroup: cg });
        h.listen(felix, 9099, { address: "127.0.0.1" });
        h.add("kernel_modules", { name: "ipip", size: 20480, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
      } else {
        const ag = h.proc({ name: "cilium-agent", path: "/usr/bin/cilium-agent", cmdline: "cilium-agent --config-dir=/tmp/cilium/config-map", parent: shim, cgroup: cg, threads: 30 });
        h.packetSocket(ag, 3);
        h.listen(ag, 9879, { address: "127.0.0.1" });
        h.listen(ag, 4240, { address: "::" });
      }
      const agent = rng.pick([["fluent-bit", "/fluent-bit/bin/fluent-bit", "/fluent-bit/bin/fluent-bit -c /fluent-bit/etc/fluent-bit.conf", "/var/log"], ["node-exporter", "/bin/node_exporter", "/bin/node_exporter --path.rootfs=/host", "/"], ["datadog-agent", "/opt/datadog-agent/bin/agent/agent", "agent run", "/proc"]] as const);
      const pid = h.proc({ name: agent[0].slice(0, 15), path: agent[1], cmdline: agent[2], parent: shim, cgroup: cg });
      if (agent[0] === "node-exporter") h.listen(pid, 9100, { address: "::" });
      void pid;
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const ingress: Family = {
  name: "ingress-controller", kind: "benign", attack: [], count: 5,
  sources: ["ingress-nginx docs: Installation Guide (bare-metal, hostNetwork)", "HAProxy docs: configuration manual", "Kubernetes docs: Ingress Controllers"],
  q: OPEN_PORT_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["k8s", "web"] as const));
    const h = b.h;
    if (b.svc.shim) {
      const cg = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${rng.hex(8)}.slice`;
      const ctl = h.proc({ name: "nginx-ingress-c", path: "/nginx-ingress-controller", cmdline: "/nginx-ingress-controller --publish-service=ingress-nginx/ingress-nginx-controller --election-id=ingress-nginx-leader --controller-class=k8s.io/ingress-nginx --ingress-class=nginx --configmap=ingress-nginx/ingress-nginx-controller --validating-webhook=:8443", parent: b.svc.shim, uid: 101, cgroup: cg });
      const ng = h.proc({ name: "nginx", path: "/usr/bin/nginx", cmdline: "nginx: master process /usr/bin/nginx -c /etc/nginx/nginx.conf", parent: ctl, uid: 101, cgroup: cg });
      for (const p of [80, 443, 8443, 10254]) h.listen(p === 8443 || p === 10254 ? ctl : ng, p, { address: "::" });
    } else {
      service(h, { unit: "haproxy.service", desc: "HAProxy Load Balancer", name: "haproxy", path: "/usr/sbin/haproxy", cmdline: "/usr/sbin/haproxy -Ws -f /etc/haproxy/haproxy.cfg -p /run/haproxy.pid -S /run/haproxy-master.sock", ports: [[8404, "0.0.0.0"], [8443, "0.0.0.0"], [5000, "0.0.0.0"]] });
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const MON_AGENTS = [
  { image: "gcr.io/cadvisor/cadvisor:v0.49.1", name: "cadvisor", cmd: "/usr/bin/cadvisor -logtostderr", mounts: [["/", "/rootfs"], ["/var/run", "/var/run"], ["/sys", "/sys"], ["/var/lib/docker/", "/var/lib/docker"]], priv: true, port: 8080 },
  { image: "gcr.io/datadoghq/agent:7", name: "datadog-agent", cmd: "/bin/entrypoint.sh", mounts: [["/var/run/docker.sock", "/var/run/docker.sock"], ["/proc/", "/host/proc"], ["/sys/fs/cgroup/", "/host/sys/fs/cgroup"]], priv: false, port: 8126 },
  { image: "grafana/promtail:3.0.0", name: "promtail", cmd: "/usr/bin/promtail -config.file=/etc/promtail/config.yml", mounts: [["/var/log", "/var/log"], ["/var/lib/docker/containers", "/var/lib/docker/containers"], ["/var/run/docker.sock", "/var/run/docker.sock"]], priv: false, port: 9080 },
  { image: "portainer/agent:2.19.4", name: "portainer_agent", cmd: "./agent", mounts: [["/var/run/docker.sock", "/var/run/docker.sock"], ["/var/lib/docker/volumes", "/var/lib/docker/volumes"]], priv: false, port: 9001 },
  { image: "containrrr/watchtower", name: "watchtower", cmd: "/watchtower", mounts: [["/var/run/docker.sock", "/var/run/docker.sock"]], priv: false, port: 0 },
] as const;

const monDockerSock: Family = {
  name: "monitoring-docker-sock", kind: "benign", attack: [], count: 5,
  sources: ["cAdvisor README: Quick Start (docker run with / and /var/run mounted, --privileged)", "Datadog docs: Docker Agent installation", "Grafana Loki docs: Promtail with Docker", "Portainer docs: Agent deployment"],
  q: {
    direct: ["is docker.sock mounted into any container on {host}?", "any privileged containers with the host filesystem mounted in {env}?", "any container escape risk on the {role}?"],
    paraphrase: ["can any container on {host} control the whole machine?", "is a container on {host} looking at things outside itself?", "anything risky about how the {role} runs containers?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["monitoring", "app", "ci-runner"] as const));
    const h = b.h;
    if (!b.svc.dockerd) dockerd(h, rng);
    for (const a of rng.sample(MON_AGENTS, rng.int(1, 3))) {
      const pid = run(h, { name: a.cmd.split(" ")[0]?.split("/").pop()?.slice(0, 15) ?? a.name, path: a.cmd.startsWith("/") ? (a.cmd.split(" ")[0] ?? "") : `/opt/${a.name}/agent`, cmdline: a.cmd, ageMin: 86_400, ageMax: 86_400 * 60, cgroup: `/system.slice/docker-${rng.hex(64)}.scope` });
      const c = containerRow(h, rng, { name: a.name, image: a.image, command: a.cmd, privileged: a.priv, pid, ageMin: 86_400, ageMax: 86_400 * 60 });
      for (const [src, dst] of a.mounts) mount(h, c.id, src, dst, !(src === "/" || src === "/sys"));
      if (a.port) h.add("docker_container_ports", { id: c.id, type: "tcp", port: a.port, host_ip: "0.0.0.0", host_port: a.port });
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const dockerHost: Family = {
  name: "docker-host-normal", kind: "benign", attack: [], count: 5,
  sources: ["Docker docs: Protect the Docker daemon socket (TLS on 2376)", "Docker docs: Published ports", "Docker docs: dockerd reference"],
  q: {
    direct: ["is the Docker API exposed on {host}?", "any containers started by outsiders in {env}?", "is dockerd listening on TCP on the {role}?"],
    paraphrase: ["can anyone start programs on {host} through docker?", "who started the containers on {host}?", "is the container engine on {host} open to the world?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["app", "ci-runner", "monitoring"] as const));
    const h = b.h;
    if (!b.svc.dockerd) dockerd(h, rng);
    if (rng.chance(0.5)) {
      h.remove("processes", (p) => p.name === "dockerd");
      const dk = run(h, { name: "dockerd", path: "/usr/bin/dockerd", cmdline: "/usr/bin/dockerd --tlsverify --tlscacert=/etc/docker/ca.pem --tlscert=/etc/docker/server-cert.pem --tlskey=/etc/docker/server-key.pem -H=0.0.0.0:2376 -H fd://", ageMin: 86_400 * 3, ageMax: 86_400 * 40, cgroup: "/system.slice/docker.service" });
      h.listen(dk, 2376, { address: "::" });
      h.conn(dk, `${ctx.fleet.prefix}${rng.int(2, 9)}`, rng.int(40000, 60000), { localPort: 2376 });
    }
    for (const [img, cmd, port] of rng.sample([["nginx:1.27", "nginx -g 'daemon off;'", 8081], ["postgres:16", "docker-entrypoint.sh postgres", 5432], ["redis:7", "docker-entrypoint.sh redis-server", 6379], ["registry:2", "/entrypoint.sh /etc/docker/registry/config.yml", 5000], ["traefik:v3.1", "/entrypoint.sh traefik", 443]] as const, rng.int(1, 3))) {
      const c = containerRow(h, rng, { image: img, command: cmd, ageMin: 86_400, ageMax: 86_400 * 90 });
      h.add("docker_container_ports", { id: c.id, type: "tcp", port, host_ip: "0.0.0.0", host_port: port });
      if (img.startsWith("postgres")) mount(h, c.id, "/srv/pgdata", "/var/lib/postgresql/data");
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

export const BENIGN_SERVICE_FAMILIES: Family[] = [exporters, datastores, brokers, k8sNode, ingress, monDockerSock, dockerHost];
