// What each server role runs: the daemons, their users, ports and units, as their packages install them.
import type { Rng } from "./prng.js";
import type { HostBuilder } from "./host.js";
import type { Distro } from "./distros.js";
import { GOOD_DESTS, type Fleet, type Role } from "./fleet.js";

function sysUser(h: HostBuilder, name: string, uid: number, home: string, desc = ""): void {
  h.add("users", { uid, gid: uid, uid_signed: uid, gid_signed: uid, username: name, description: desc, directory: home, shell: "/usr/sbin/nologin", uuid: "" });
  h.add("groups", { gid: uid, gid_signed: uid, groupname: name });
  h.add("user_groups", { uid, gid: uid });
  h.add("shadow", { password_status: "locked", hash_alg: "", last_change: 19_900, min: 0, max: 99999, warning: 7, inactive: -1, expire: -1, flag: -1, username: name });
}

export interface Svc {
  unit: string;
  desc: string;
  name: string;
  path: string;
  cmdline: string;
  uid?: number;
  cwd?: string;
  ports?: Array<[number, string]>;
  udp?: Array<[number, string]>;
  threads?: number;
  rss?: number;
}

export function service(h: HostBuilder, s: Svc): number {
  h.unit(s.unit, s.desc, { fragment: s.unit.startsWith("node_exporter") || s.path.startsWith("/usr/local") || s.path.startsWith("/opt") ? `/etc/systemd/system/${s.unit}` : `/usr/lib/systemd/system/${s.unit}` });
  const pid = h.proc({ name: s.name, path: s.path, cmdline: s.cmdline, uid: s.uid ?? 0, cwd: s.cwd ?? "/", cgroup: `/system.slice/${s.unit}`, threads: s.threads, resident_size: s.rss });
  for (const [port, addr] of s.ports ?? []) h.listen(pid, port, { address: addr });
  for (const [port, addr] of s.udp ?? []) h.listen(pid, port, { address: addr, proto: "udp" });
  return pid;
}

function workers(h: HostBuilder, parent: number, n: number, name: string, path: string, cmdline: string, uid: number, unit: string): number {
  let last = parent;
  for (let i = 0; i < n; i++) last = h.proc({ name, path, cmdline, uid, parent, cgroup: `/system.slice/${unit}` });
  return last;
}

function web(h: HostBuilder, rng: Rng, d: Distro): Record<string, number> {
  const deb = d.pkg === "deb";
  const wuid = deb ? 33 : 990;
  if (!deb) sysUser(h, "nginx", 990, "/var/lib/nginx", "Nginx web server");
  const out: Record<string, number> = {};
  if (rng.chance(0.7)) {
    const ng = service(h, { unit: "nginx.service", desc: "A high performance web server and a reverse proxy server", name: "nginx", path: "/usr/sbin/nginx", cmdline: "nginx: master process /usr/sbin/nginx -g daemon on; master_process on;", ports: [[80, "0.0.0.0"], [443, "0.0.0.0"], [80, "::"]] });
    out.nginx = workers(h, ng, h.spec.cpus, "nginx", "/usr/sbin/nginx", "nginx: worker process", wuid, "nginx.service");
    const ver = deb ? (d.tag === "ubuntu-22.04" ? "8.1" : d.tag === "debian-12" ? "8.2" : "8.3") : "8.1";
    const fpmPath = deb ? `/usr/sbin/php-fpm${ver}` : "/usr/sbin/php-fpm";
    const fpmUnit = deb ? `php${ver}-fpm.service` : "php-fpm.service";
    const fpm = service(h, { unit: fpmUnit, desc: `The PHP ${ver} FastCGI Process Manager`, name: deb ? `php-fpm${ver}` : "php-fpm", path: fpmPath, cmdline: deb ? `php-fpm: master process (/etc/php/${ver}/fpm/php-fpm.conf)` : "php-fpm: master process (/etc/php-fpm.conf)" });
    out["php-fpm"] = workers(h, fpm, rng.int(2, 5), deb ? `php-fpm${ver}` : "php-fpm", fpmPath, "php-fpm: pool www", wuid, fpmUnit);
    if (deb) h.add("crontab", { event: "", minute: "09,39", hour: "*", day_of_month: "*", month: "*", day_of_week: "*", command: "root [ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi", path: "/etc/cron.d/php" });
  } else {
    const path = deb ? "/usr/sbin/apache2" : "/usr/sbin/httpd";
    const unit = deb ? "apache2.service" : "httpd.service";
    const m = service(h, { unit, desc: "The Apache HTTP Server", name: deb ? "apache2" : "httpd", path, cmdline: deb ? "/usr/sbin/apache2 -k start" : "/usr/sbin/httpd -DFOREGROUND", ports: [[80, "::"], [443, "::"]] });
    out.apache2 = workers(h, m, rng.int(3, 6), deb ? "apache2" : "httpd", path, deb ? "/usr/sbin/apache2 -k start" : "/usr/sbin/httpd -DFOREGROUND", deb ? 33 : 48, unit);
  }
  return out;
}

function app(h: HostBuilder, rng: Rng, d: Distro): Record<string, number> {
  if (rng.chance(0.5)) {
    sysUser(h, "tomcat", 997, "/opt/tomcat", "Apache Tomcat");
    const java = d.pkg === "deb" ? "/usr/lib/jvm/java-17-openjdk-amd64/bin/java" : "/usr/lib/jvm/java-17-openjdk-17.0.12.0.7-2.el9.x86_64/bin/java";
    const pid = service(h, {
      unit: "tomcat.service", desc: "Apache Tomcat Web Application Container", name: "java", path: java, uid: 997, cwd: "/opt/tomcat", threads: 58, rss: 900_000_000,
      cmdline: `${java} -Djava.util.logging.config.file=/opt/tomcat/conf/logging.properties -Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager -Xms512M -Xmx1024M -Dcatalina.base=/opt/tomcat -Dcatalina.home=/opt/tomcat -Djava.io.tmpdir=/opt/tomcat/temp org.apache.catalina.startup.Bootstrap start`,
      ports: [[8080, "::"], [8005, "127.0.0.1"]],
    });
    return { tomcat: pid };
  }
  sysUser(h, "app", 1500, "/srv/app", "");
  const pid = service(h, { unit: "app.service", desc: "Orders API", name: "node", path: "/usr/bin/node", cmdline: "/usr/bin/node /srv/app/dist/server.js", uid: 1500, cwd: "/srv/app", ports: [[3000, "0.0.0.0"]], threads: 11, rss: 180_000_000 });
  return { node: pid };
}

function db(h: HostBuilder, rng: Rng, d: Distro): Record<string, number> {
  if (rng.chance(0.6)) {
    sysUser(h, "postgres", d.pkg === "deb" ? 113 : 26, "/var/lib/postgresql", "PostgreSQL administrator,,,");
    const uid = d.pkg === "deb" ? 113 : 26;
    const bin = d.pkg === "deb" ? "/usr/lib/postgresql/16/bin/postgres" : "/usr/bin/postgres";
    const pid = service(h, { unit: d.pkg === "deb" ? "postgresql@16-main.service" : "postgresql.service", desc: "PostgreSQL Cluster 16-main", name: "postgres", path: bin, uid, cmdline: d.pkg === "deb" ? `${bin} -D /var/lib/postgresql/16/main -c config_file=/etc/postgresql/16/main/postgresql.conf` : `${bin} -D /var/lib/pgsql/data`, ports: [[5432, "0.0.0.0"], [5432, "::"]], rss: 220_000_000 });
    for (const w of ["checkpointer", "background writer", "walwriter", "autovacuum launcher", "logical replication launcher"]) h.proc({ name: "postgres", path: bin, cmdline: `postgres: 16/main: ${w} `, uid, parent: pid });
    return { postgres: pid };
  }
  sysUser(h, "mysql", 114, "/nonexistent", "MySQL Server,,,");
  const pid = service(h, { unit: "mysql.service", desc: "MySQL Community Server", name: "mysqld", path: "/usr/sbin/mysqld", uid: 114, cmdline: "/usr/sbin/mysqld", ports: [[3306, "0.0.0.0"], [33060, "127.0.0.1"]], threads: 39, rss: 420_000_000 });
  return { mysqld: pid };
}

function cache(h: HostBuilder, rng: Rng): Record<string, number> {
  if (rng.chance(0.65)) {
    sysUser(h, "redis", 115, "/var/lib/redis", "");
    const bind = rng.pick(["0.0.0.0", "127.0.0.1", h.spec.ip]);
    return { redis: service(h, { unit: "redis-server.service", desc: "Advanced key-value store", name: "redis-server", path: "/usr/bin/redis-server", uid: 115, cmdline: `/usr/bin/redis-server ${bind}:6379`, ports: [[6379, bind]], threads: 5 }) };
  }
  sysUser(h, "memcache", 116, "/nonexistent", "Memcached,,,");
  return { memcached: service(h, { unit: "memcached.service", desc: "memcached daemon", name: "memcached", path: "/usr/bin/memcached", uid: 116, cmdline: `/usr/bin/memcached -m 1024 -p 11211 -u memcache -l ${h.spec.ip} -P /var/run/memcached/memcached.pid`, ports: [[11211, h.spec.ip]] }) };
}

function broker(h: HostBuilder, rng: Rng): Record<string, number> {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    sysUser(h, "kafka", 996, "/opt/kafka");
    const java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
    return { kafka: service(h, { unit: "kafka.service", desc: "Apache Kafka", name: "java", path: java, uid: 996, cwd: "/opt/kafka", threads: 92, rss: 1_600_000_000, cmdline: `${java} -Xmx1G -Xms1G -server -XX:+UseG1GC -Dkafka.logs.dir=/opt/kafka/bin/../logs -Dlog4j.configuration=file:/opt/kafka/bin/../config/log4j.properties -cp /opt/kafka/bin/../libs/* kafka.Kafka /opt/kafka/config/server.properties`, ports: [[9092, "::"], [9093, "::"]] }) };
  }
  if (kind === 1) {
    sysUser(h, "rabbitmq", 117, "/var/lib/rabbitmq", "RabbitMQ messaging server,,,");
    h.proc({ name: "epmd", path: "/usr/lib/erlang/erts-13.2.2.5/bin/epmd", cmdline: "/usr/lib/erlang/erts-13.2.2.5/bin/epmd -daemon", uid: 117 });
    return { rabbitmq: service(h, { unit: "rabbitmq-server.service", desc: "RabbitMQ Messaging Server", name: "beam.smp", path: "/usr/lib/erlang/erts-13.2.2.5/bin/beam.smp", uid: 117, threads: 40, cmdline: "/usr/lib/erlang/erts-13.2.2.5/bin/beam.smp -W w -MBas ageffcbf -MHas ageffcbf -MBlmbcs 512 -MHlmbcs 512 -MMmcs 30 -P 1048576 -t 5000000 -stbt db -zdbbl 128000 -sbwt none -sbwtdcpu none -sbwtdio none -B i -- -root /usr/lib/erlang -bindir /usr/lib/erlang/erts-13.2.2.5/bin -progname erl -- -home /var/lib/rabbitmq -- -pa  -noshell -noinput -s rabbit boot -boot start_sasl -syslog logger [] -syslog syslog_error_logger false -kernel prevent_overlapping_partitions false", ports: [[5672, "::"], [15672, "0.0.0.0"], [25672, "0.0.0.0"]] }) };
  }
  sysUser(h, "nats", 995, "/var/lib/nats");
  return { nats: service(h, { unit: "nats-server.service", desc: "NATS Server", name: "nats-server", path: "/usr/local/bin/nats-server", uid: 995, cmdline: "/usr/local/bin/nats-server -c /etc/nats/nats-server.conf", ports: [[4222, "0.0.0.0"], [6222, "0.0.0.0"], [8222, "0.0.0.0"]] }) };
}

function k8s(h: HostBuilder, rng: Rng): Record<string, number> {
  const ctr = service(h, { unit: "containerd.service", desc: "containerd container runtime", name: "containerd", path: "/usr/bin/containerd", cmdline: "/usr/bin/containerd", threads: 30 });
  h.listen(ctr, rng.int(33000, 45000), { address: "127.0.0.1" });
  const kubelet = service(h, {
    unit: "kubelet.service", desc: "kubelet: The Kubernetes Node Agent", name: "kubelet", path: "/usr/bin/kubelet", threads: 24, rss: 120_000_000,
    cmdline: "/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml --container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.9",
    ports: [[10250, "::"], [10248, "127.0.0.1"]],
  });
  h.conn(kubelet, `10.${rng.int(0, 60)}.0.${rng.int(2, 9)}`, 6443);
  const shim = h.proc({ name: "containerd-shim", path: "/usr/bin/containerd-shim-runc-v2", cmdline: `/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id ${rng.hex(64)} -address /run/containerd/containerd.sock`, cgroup: "/system.slice/containerd.service" });
  h.proc({ name: "pause", path: "/pause", cmdline: "/pause", uid: 65535, parent: shim, cgroup: `/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${rng.hex(8)}.slice` });
  const kp = h.proc({ name: "kube-proxy", path: "/usr/local/bin/kube-proxy", cmdline: `/usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf --hostname-override=${h.spec.hostname}`, parent: shim, cgroup: `/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${rng.hex(8)}.slice/cri-containerd-${rng.hex(64)}.scope` });
  h.listen(kp, 10249, { address: "127.0.0.1" });
  h.listen(kp, 10256, { address: "::" });
  h.add("kernel_modules", { name: "br_netfilter", size: 32768, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  h.add("kernel_modules", { name: "overlay", size: 196608, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  h.add("kernel_modules", { name: "ip_vs", size: 192512, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  return { kubelet, containerd: ctr, shim };
}

export function dockerd(h: HostBuilder, rng: Rng): number {
  service(h, { unit: "containerd.service", desc: "containerd container runtime", name: "containerd", path: "/usr/bin/containerd", cmdline: "/usr/bin/containerd", threads: 20 });
  h.unit("docker.socket", "Docker Socket for the API", { sub: "running" });
  h.add("groups", { gid: 988, gid_signed: 988, groupname: "docker" });
  h.add("kernel_modules", { name: "overlay", size: 196608, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  h.add("kernel_modules", { name: "bridge", size: 417792, used_by: "br_netfilter,", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  h.add("kernel_modules", { name: "br_netfilter", size: 32768, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  return service(h, { unit: "docker.service", desc: "Docker Application Container Engine", name: "dockerd", path: "/usr/bin/dockerd", cmdline: "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock", threads: 25, rss: 95_000_000 });
}

function ciRunner(h: HostBuilder, rng: Rng): Record<string, number> {
  const dk = dockerd(h, rng);
  if (rng.chance(0.5)) {
    sysUser(h, "gitlab-runner", 999, "/home/gitlab-runner", "GitLab Runner");
    const r = service(h, { unit: "gitlab-runner.service", desc: "GitLab Runner", name: "gitlab-runner", path: "/usr/bin/gitlab-runner", cmdline: "/usr/bin/gitlab-runner run --working-directory /home/gitlab-runner --config /etc/gitlab-runner/config.toml --service gitlab-runner --user gitlab-runner", threads: 12 });
    h.conn(r, rng.pick(GOOD_DESTS.gitlab), 443);
    return { runner: r, dockerd: dk };
  }
  sysUser(h, "runner", 1600, "/home/runner", "");
  const svcPid = service(h, { unit: "actions.runner.acme-platform.ci-01.service", desc: "GitHub Actions Runner (acme-platform.ci-01)", name: "runsvc.sh", path: "/usr/bin/bash", cmdline: "/bin/bash /home/runner/actions-runner/runsvc.sh", uid: 1600, cwd: "/home/runner/actions-runner" });
  const listener = h.proc({ name: "Runner.Listener", path: "/home/runner/actions-runner/bin/Runner.Listener", cmdline: "/home/runner/actions-runner/bin/Runner.Listener run --startuptype service", uid: 1600, parent: svcPid, cwd: "/home/runner/actions-runner", threads: 18 });
  h.conn(listener, rng.pick(GOOD_DESTS.github), 443);
  return { runner: listener, dockerd: dk };
}

function monitoring(h: HostBuilder): Record<string, number> {
  sysUser(h, "prometheus", 994, "/var/lib/prometheus", "Prometheus daemon");
  sysUser(h, "grafana", 993, "/usr/share/grafana", "");
  const p = service(h, { unit: "prometheus.service", desc: "Prometheus", name: "prometheus", path: "/usr/local/bin/prometheus", uid: 994, cmdline: "/usr/local/bin/prometheus --config.file=/etc/prometheus/prometheus.yml --storage.tsdb.path=/var/lib/prometheus/ --web.listen-address=0.0.0.0:9090", ports: [[9090, "::"]], threads: 20, rss: 1_200_000_000 });
  service(h, { unit: "alertmanager.service", desc: "Alertmanager", name: "alertmanager", path: "/usr/local/bin/alertmanager", uid: 994, cmdline: "/usr/local/bin/alertmanager --config.file=/etc/alertmanager/alertmanager.yml --storage.path=/var/lib/alertmanager/", ports: [[9093, "::"], [9094, "::"]] });
  const g = service(h, { unit: "grafana-server.service", desc: "Grafana instance", name: "grafana", path: "/usr/share/grafana/bin/grafana", uid: 993, cwd: "/usr/share/grafana", cmdline: "/usr/share/grafana/bin/grafana server --config=/etc/grafana/grafana.ini --pidfile=/run/grafana/grafana-server.pid --packaging=deb cfg:default.paths.logs=/var/log/grafana cfg:default.paths.data=/var/lib/grafana cfg:default.paths.plugins=/var/lib/grafana/plugins cfg:default.paths.provisioning=/etc/grafana/provisioning", ports: [[3000, "::"]] });
  return { prometheus: p, grafana: g };
}

function bastion(h: HostBuilder): Record<string, number> {
  return { fail2ban: service(h, { unit: "fail2ban.service", desc: "Fail2Ban Service", name: "fail2ban-server", path: "/usr/bin/python3.12", cmdline: "/usr/bin/python3 /usr/bin/fail2ban-server -xf start", threads: 5 }) };
}

export function addRole(h: HostBuilder, rng: Rng, role: Role, d: Distro, _fleet: Fleet): Record<string, number> {
  switch (role) {
    case "web": return web(h, rng, d);
    case "app": return app(h, rng, d);
    case "db": return db(h, rng, d);
    case "cache": return cache(h, rng);
    case "broker": return broker(h, rng);
    case "k8s": return k8s(h, rng);
    case "ci-runner": return ciRunner(h, rng);
    case "monitoring": return monitoring(h);
    case "bastion": return bastion(h);
  }
}
