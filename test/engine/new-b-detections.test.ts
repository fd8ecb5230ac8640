import { test } from "tap";
import type { Detection, DetectionHit } from "../../shared/engine/detections/detection.js";
import { containerHostMount } from "../../shared/engine/detections/container-host-mount.js";
import { dockerApiExposed } from "../../shared/engine/detections/docker-api-exposed.js";
import { dockerSocketMount } from "../../shared/engine/detections/docker-socket-mount.js";
import { fakeKernelThread } from "../../shared/engine/detections/fake-kernel-thread.js";
import { ldSoPreload } from "../../shared/engine/detections/ld-so-preload.js";
import { packetSocketBackdoor } from "../../shared/engine/detections/packet-socket-backdoor.js";
import { publicInteractiveLogin } from "../../shared/engine/detections/public-interactive-login.js";
import { securityToolSinkhole } from "../../shared/engine/detections/security-tool-sinkhole.js";
import type { HostData, QueryEntities, Row } from "../../shared/engine/index.js";
import { FIXTURES_B } from "./fixtures/new-b.js";
import { host, proc, readRepoFile } from "./helpers.js";

const DETECTIONS: Detection[] = [
  dockerSocketMount,
  containerHostMount,
  dockerApiExposed,
  publicInteractiveLogin,
  securityToolSinkhole,
  ldSoPreload,
  fakeKernelThread,
  packetSocketBackdoor,
];
const byId = new Map(DETECTIONS.map((d) => [d.id, d]));
const get = (id: string): Detection => {
  const d = byId.get(id);
  if (!d) throw new Error(`no detection ${id}`);
  return d;
};
const ctx = (partial: Partial<QueryEntities> = {}) => ({ entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {}, ...partial } });
const findings = (hits: DetectionHit[]): DetectionHit[] => hits.filter((h) => h.kept_by === undefined);
const run = (id: string, h: HostData): DetectionHit[] => get(id).evaluate(h, ctx());

/** Wraps every row (and the table map) in proxies that record which tables and columns the detection reads. */
function recording(h: HostData): { host: HostData; reads: Map<string, Set<string>> } {
  const reads = new Map<string, Set<string>>();
  const tables: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(h.tables)) {
    tables[table] = rows.map(
      (row) =>
        new Proxy(row, {
          get(target, prop, receiver) {
            if (typeof prop === "string") {
              const set = reads.get(table) ?? new Set<string>();
              set.add(prop);
              reads.set(table, set);
            }
            return Reflect.get(target, prop, receiver);
          },
        }),
    );
  }
  const tableProxy = new Proxy(tables, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && !reads.has(prop)) reads.set(prop, new Set<string>());
      return Reflect.get(target, prop, receiver);
    },
  });
  return { host: { ...h, tables: tableProxy }, reads };
}

const schema = JSON.parse(readRepoFile("reference/osquery-linux-schema.json")) as { tables: Record<string, { columns: string[] }> };

test("declared reads exist in osquery's Linux schema", async (t) => {
  for (const d of DETECTIONS) {
    for (const [table, columns] of Object.entries(d.reads)) {
      const known = schema.tables[table]?.columns.map((c) => c.split(":")[0]);
      t.ok(known, `${d.id}: table ${table} exists`);
      for (const c of columns) t.ok(known?.includes(c), `${d.id}: ${table}.${c} exists`);
    }
    t.ok(["test", "experimental"].includes(d.maturity), `${d.id} maturity`);
  }
});

for (const d of DETECTIONS) {
  test(`${d.id}: planted positive fires, benign twin yields no finding, reads only declared columns`, async (t) => {
    const fixture = FIXTURES_B[d.id];
    if (!fixture) return t.fail(`no fixture for ${d.id}`);
    for (const [label, h, expectHit] of [["positive", fixture.positive, true], ["benign", fixture.benign, false]] as const) {
      const { host: wrapped, reads } = recording(h);
      const hits = d.evaluate(wrapped, ctx(fixture.entities));
      if (expectHit) {
        t.ok(findings(hits).length > 0, "positive fires");
        for (const hit of hits) {
          t.ok(hit.summary.length > 10, "has a summary");
          t.ok(hit.evidence.length > 0, "has evidence");
          t.match(hit.entity ?? "", /^(?:pid|container|ip|path|user):./, "marks an entity");
          for (const e of hit.evidence) t.ok(d.tables.includes(e.table), `evidence table ${e.table} declared`);
        }
      } else {
        t.same(findings(hits), [], `${label}: no finding`);
      }
      for (const [table, columns] of reads) {
        const declared = d.reads[table];
        t.ok(declared, `${label}: reads declared table ${table}`);
        for (const c of columns) t.ok(declared?.includes(c), `${label}: ${table}.${c} is declared`);
      }
    }
    t.same(d.evaluate(host({}), ctx()), [], "empty host is quiet");
  });
}

const mount = (id: string, source: string, rw: boolean, destination = source) => ({ id, type: "bind", source, destination, mode: rw ? "rw" : "ro", rw: rw ? "1" : "0" });
const ctr = (id: string, image: string, privileged = false) => ({ id, name: `/${id}`, image, privileged: privileged ? "1" : "0" });

test("docker-socket-mount variants", async (t) => {
  const one = (image: string, source: string, rw: boolean, privileged = false, tags: Record<string, string> = {}) =>
    run("docker-socket-mount", host({ docker_containers: [ctr("c1", image, privileged)], docker_container_mounts: [mount("c1", source, rw)] }, tags));
  t.equal(findings(one("alpine", "/run/containerd/containerd.sock", true))[0]?.severity, "high", "containerd socket rw");
  t.equal(findings(one("busybox:latest", "/var/run/crio/crio.sock", true))[0]?.severity, "high", "crio socket");
  t.equal(findings(one("evil/agent", "/var/run/docker.sock", false))[0]?.severity, "medium", "unknown image read-only is medium");
  t.equal(findings(one("evil/agent", "/var/run/docker.sock", false, true))[0]?.severity, "high", "privileged raises it");
  t.equal(findings(one("evil.io/datadog/agent:7", "/var/run/docker.sock", false)).length, 1, "a look-alike registry is not the vendor image");
  t.equal(one("datadog/agent:7", "/var/run/docker.sock", false)[0]?.kept_by, "container-images:datadog-agent");
  t.equal(one("gcr.io/cadvisor/cadvisor:v0.49.1", "/var/run/docker.sock", false)[0]?.kept_by, "container-images:cadvisor", "cadvisor documents /var/run, which covers the socket");
  t.equal(one("docker.io/library/traefik:3.0", "/var/run/docker.sock", false)[0]?.kept_by, "container-images:traefik");
  t.equal(one("portainer/agent:2.19.4", "/var/run/docker.sock", true)[0]?.kept_by, "container-images:portainer-agent");
  t.equal(one("acme/builder:1", "/var/run/docker.sock", true, false, { allowed_privileged_images: "acme/builder" })[0]?.kept_by, "tag:allowed_privileged_images");
  t.same(one("alpine", "/var/run/docker.sock.bak.d/x", true), [], "a path that is not the socket");
  t.same(run("docker-socket-mount", host({ docker_container_mounts: [{ ...mount("c9", "/var/run/docker.sock", true), type: "volume" }] })), [], "named volumes are not binds");
  t.equal(one("localstack/localstack:3.4", "/var/run/docker.sock", true)[0]?.kept_by, "container-images:localstack");
  const job = "runner-x7kq2mzp-project-4821-concurrent-0-1a2b3c4d5e6f-build";
  const gitlab = (name: string, withRunner: boolean, privileged = false) =>
    run("docker-socket-mount", host({
      docker_containers: [{ ...ctr("j1", "node:20-bullseye", privileged), name: `/${name}` }],
      docker_container_mounts: [mount("j1", "/var/run/docker.sock", true)],
      processes: withRunner ? [{ pid: "800", name: "gitlab-runner", path: "/usr/bin/gitlab-runner", cmdline: "/usr/bin/gitlab-runner run" }] : [],
    }));
  t.equal(gitlab(job, true)[0]?.kept_by, "container-images:gitlab-runner-job", "a job container of this host's runner, with socket binding");
  t.equal(findings(gitlab(job, false)).length, 1, "the name alone, with no runner on the host, is not enough");
  t.equal(findings(gitlab(job, true, true)).length, 1, "a privileged job container is more than socket binding");
  t.equal(findings(gitlab("runner-build", true)).length, 1, "a name that only starts like one");
});

test("container-host-mount variants", async (t) => {
  const one = (image: string, mounts: Array<[string, boolean]>, privileged = false) =>
    run("container-host-mount", host({ docker_containers: [ctr("c1", image, privileged)], docker_container_mounts: mounts.map(([s, rw]) => mount("c1", s, rw, `/mnt${s}`)) }));
  t.equal(findings(one("ubuntu", [["/", true]]))[0]?.severity, "high", "host root rw");
  t.equal(findings(one("ubuntu", [["/etc", true]]))[0]?.severity, "medium", "/etc rw");
  t.equal(findings(one("ubuntu", [["/etc", true]], true))[0]?.severity, "high", "/etc rw + privileged");
  t.equal(findings(one("ubuntu", [["/root/.ssh", true]]))[0]?.severity, "medium", "/root subtree");
  t.equal(findings(one("ubuntu", [["/etc/cron.d", true]]))[0]?.severity, "medium", "cron dir");
  t.equal(findings(one("ubuntu", [["/var/lib/kubelet/pki", true]]))[0]?.severity, "medium", "kubelet credentials");
  t.equal(findings(one("ubuntu", [["/", false]]))[0]?.severity, "info", "unknown image reading the host root is info");
  t.equal(one("calico/node:v3.27.0", [["/lib/modules", true], ["/run/xtables.lock", true], ["/var/run/calico", true]]).length, 0, "calico-node mounts are not sensitive or are documented");
  t.equal(one("registry.k8s.io/kube-proxy:v1.30.2", [["/lib/modules", false], ["/run/xtables.lock", true]]).length, 0, "kube-proxy");
  t.equal(one("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.10.0", [["/var/lib/kubelet", true], ["/dev", true]])[0]?.kept_by, "container-images:csi-node");
  t.same(findings(one("gcr.io/cadvisor/cadvisor:v0.49.1", [["/", false], ["/var/run", false], ["/sys", false]])), [], "cadvisor per README");
  t.same(one("ubuntu", [["/dev/kvm", true], ["/etc/nginx", true], ["/srv/data", true], ["/var/log", false]]), [], "device, app config and data dirs are fine");
  t.equal(findings(one("quay.io/prometheus/node-exporter:v1.8.1", [["/etc", true]])).length, 1, "a baseline image outside its documented paths still fires");
});

test("docker-api-exposed variants", async (t) => {
  const d = (cmdline: string, ports: Array<[number, string]> = [], name = "dockerd") =>
    run("docker-api-exposed", host({ processes: [proc(10, name, `/usr/bin/${name}`, cmdline)], listening_ports: ports.map(([port, address]) => ({ pid: "10", port: String(port), protocol: "6", address })) }));
  t.equal(d("/usr/bin/dockerd -H tcp://0.0.0.0:2375")[0]?.severity, "high", "cmdline only");
  t.equal(d("/usr/bin/dockerd", [[2375, "0.0.0.0"]])[0]?.severity, "high", "listening only (daemon.json hosts)");
  t.equal(d("/usr/bin/dockerd -H=tcp://:4243 -H unix:///var/run/docker.sock")[0]?.severity, "high", "non-standard port, empty host");
  t.equal(d("/usr/bin/dockerd --tlsverify --tlscacert=ca.pem -H tcp://0.0.0.0:2376", [[2376, "::"]])[0]?.severity, "info", "tlsverify is info");
  t.equal(d("/usr/bin/dockerd -H tcp://10.0.0.4:2376")[0]?.severity, "medium", "2376 without --tlsverify on the cmdline");
  t.equal(d("/usr/bin/docker daemon -H tcp://0.0.0.0:2375", [], "docker")[0]?.severity, "high", "pre-1.12 docker daemon");
  t.equal(d("socat TCP-LISTEN:2375,fork UNIX-CONNECT:/var/run/docker.sock", [[2375, "0.0.0.0"]], "socat")[0]?.severity, "high", "socat forward");
  t.equal(d("/usr/bin/docker-proxy -proto tcp -host-ip 0.0.0.0 -host-port 2375 -container-ip 172.17.0.2 -container-port 2375", [[2375, "0.0.0.0"]], "docker-proxy")[0]?.severity, "medium", "dind published");
  t.same(d("/usr/bin/dockerd -H tcp://127.0.0.1:2375", [[2375, "127.0.0.1"]]), [], "loopback");
  t.same(d("docker -H tcp://10.0.0.9:2375 ps", [], "docker"), [], "the CLI talking to a remote engine is not an exposed daemon");
  t.same(d("/usr/bin/dockerd -H fd://", [[2377, "::"], [7946, "::"]]), [], "swarm ports");
  t.same(d("nginx: master process", [[2375, "0.0.0.0"]], "nginx"), [], "another program on 2375 is unexpected-listener's business");
});

test("public-interactive-login variants", async (t) => {
  const l = (username: string, from: string, tags: Record<string, string> = {}, extra: Row = {}) =>
    run("public-interactive-login", host({ last: [{ username, host: from, type: "7", type_name: "user-process", ...extra }] }, tags));
  t.equal(findings(l("root", "198.51.100.20"))[0]?.severity, "high", "root from public");
  t.equal(findings(l("alice", "8.8.4.4"))[0]?.severity, "medium", "user from public");
  t.equal(findings(l("alice", "2001:db8::5"))[0]?.severity, "medium", "IPv6 documentation prefix counts as public");
  t.equal(findings(l("alice", "203.0.113.9 via mosh [2211]"))[0]?.entity, "ip:203.0.113.9", "mosh roaming client");
  t.equal(findings(run("public-interactive-login", host({ logged_in_users: [{ type: "user", user: "bob", host: "192.0.2.44" }] })))[0]?.severity, "medium", "live session");
  t.equal(l("alice", "203.0.113.9", { allowed_login_sources: "203.0.113.0/24" })[0]?.kept_by, "tag:allowed_login_sources");
  t.equal(l("alice", "203.0.113.9", { role: "bastion" })[0]?.kept_by, "role:bastion");
  t.equal(findings(l("root", "203.0.113.9", { role: "bastion" }))[0]?.severity, "medium", "root on a bastion still shows, lower");
  t.equal(findings(l("root", "203.0.113.9", { allowed_login_sources: "10.0.0.0/8" })).length, 1, "outside the allowed CIDRs");
  for (const from of ["10.1.1.1", "172.16.5.5", "192.168.1.10", "100.64.3.3", "169.254.1.1", "127.0.0.1", "::1", "fd00::1", "fe80::1", ":0", ":1", "tmux(3333).%1", "mosh [4444]", "laptop.corp.example.com", ""]) {
    t.same(l("alice", from), [], `${from || "empty host"} is not a public login`);
  }
  t.same(l("reboot", "203.0.113.9"), [], "reboot pseudo-user");
  t.same(l("alice", "203.0.113.9", {}, { type: "8", type_name: "dead-process" }), [], "logout record");
});

test("security-tool-sinkhole variants", async (t) => {
  const e = (address: string, hostnames: string) => run("security-tool-sinkhole", host({ etc_hosts: [{ address, hostnames }] }));
  t.equal(e("127.0.0.1", "ts01-b.cloudsink.net lfodown01-b.cloudsink.net")[0]?.severity, "high", "CrowdStrike");
  t.equal(e("0.0.0.0", "acme.sentinelone.net")[0]?.severity, "high", "SentinelOne");
  t.equal(e("::1", "intake.logs.datadoghq.com")[0]?.severity, "high", "Datadog intake over ::1");
  t.equal(e("127.0.0.1", "ssm.eu-west-1.amazonaws.com")[0]?.severity, "high", "AWS SSM");
  t.equal(e("0.0.0.0", "security.ubuntu.com archive.ubuntu.com")[0]?.severity, "medium", "updates only");
  t.equal(e("127.0.0.2", "update.aegis.aliyun.com")[0]?.entity, "path:/etc/hosts");
  t.same(e("0.0.0.0", "doubleclick.net googleadservices.com"), [], "ad block");
  t.same(e("127.0.0.1", "localhost.localdomain localhost"), [], "localhost");
  t.same(e("10.0.0.5", "deb.debian.org security.debian.org"), [], "internal mirror pin");
  t.same(e("127.0.0.1", "notcrowdstrike.com.example"), [], "suffix match is label-based");
  t.same(e("127.0.0.1", "s3.amazonaws.com"), [], "LocalStack-style pin of a non-monitoring AWS name");
  t.same(e("0.0.0.0", "js-agent.newrelic.com bam.nr-data.net"), [], "browser beacons from a tracker list");
  const adlist = Array.from({ length: 300 }, (_, i) => ({ address: "0.0.0.0", hostnames: `ads${i}.tracker.example` }));
  const big = run("security-tool-sinkhole", host({ etc_hosts: [...adlist, { address: "0.0.0.0", hostnames: "intake.logs.datadoghq.com" }] }));
  t.equal(big[0]?.severity, "info", "a monitoring name inside a large block list is info");
  const bigAgent = run("security-tool-sinkhole", host({ etc_hosts: [...adlist, { address: "0.0.0.0", hostnames: "jsrv.aegis.aliyun.com" }] }));
  t.equal(bigAgent[0]?.severity, "high", "a security agent inside a block list still counts");
});

test("ld-so-preload variants", async (t) => {
  const programs = [proc(1, "systemd", "/usr/lib/systemd/systemd"), proc(2, "sshd", "/usr/sbin/sshd"), proc(3, "cron", "/usr/sbin/cron"), proc(4, "bash", "/usr/bin/bash")];
  const everywhere = (lib: string) => [1, 2, 3, 4].map((pid) => ({ pid: String(pid), path: lib }));
  const preload = { path: "/etc/ld.so.preload", size: "30", uid: "0", mode: "0644", mtime: "1731900000" };
  const r = (tables: Record<string, Row[]>) => run("ld-so-preload", host({ processes: programs, ...tables }));
  const rk = r({ file: [preload], process_memory_map: everywhere("/usr/local/lib/libprocesshider.so") });
  t.ok(rk.some((h) => h.known_bad && h.entity === "path:/usr/local/lib/libprocesshider.so"), "known rootkit name");
  t.equal(findings(r({ file: [preload] }))[0]?.severity, "high", "the file alone");
  t.equal(findings(r({ process_memory_map: everywhere("/usr/local/lib/libc.so.4") }))[0]?.severity, "high", "libc look-alike in /usr/local/lib");
  t.equal(findings(r({ process_memory_map: everywhere("/lib/x86_64-linux-gnu/.libhide.so") }))[0]?.severity, "high", "hidden file in /lib");
  t.equal(findings(r({ process_memory_map: everywhere("/opt/x/libhook.so") }))[0]?.severity, "medium", "widespread unpackaged library without the file");
  t.equal(findings(r({ file: [preload], process_memory_map: everywhere("/etc/libsystem.so") })).filter((h) => h.known_bad).length, 2, "Kinsing libsystem.so");
  t.equal(findings(r({ file: [{ ...preload, uid: "1000", mode: "0666" }] }))[0]?.summary.includes("world-writable"), true, "notes a writable preload");
  t.equal(r({ file: [preload], process_memory_map: everywhere("/opt/dynatrace/oneagent/agent/lib64/liboneagentproc.so") })[0]?.kept_by, "preload-libraries:dynatrace-oneagent");
  t.equal(r({ file: [preload], process_memory_map: everywhere("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2") })[0]?.kept_by, "preload-libraries:allocators");
  t.same(r({ file: [{ ...preload, size: "0" }] }), [], "an empty file");
  t.same(r({ process_memory_map: everywhere("/usr/lib/x86_64-linux-gnu/libsystemd.so.0") }), [], "packaged libraries everywhere");
  t.same(r({ process_memory_map: [{ pid: "2", path: "/tmp/libnetty_transport_native_epoll_x86_644271.so" }] }), [], "Netty's extracted library in one program");
  t.same(r({ process_memory_map: [{ pid: "4", path: "/home/u/.local/lib/python3.12/site-packages/x.so" }] }), [], "a user site-packages extension");
  t.same(r({ process_memory_map: [{ pid: "4", path: "/tmp/.mount_Obsid3x/usr/lib/libfoo.so" }] }), [], "AppImage, one program");
  const conda = [proc(11, "python", "/opt/conda/bin/python3.11"), proc(12, "R", "/opt/conda/bin/R"), proc(13, "jupyter", "/opt/conda/bin/jupyter-lab")];
  t.same(
    run("ld-so-preload", host({ processes: conda, process_memory_map: [11, 12, 13].map((pid) => ({ pid: String(pid), path: "/opt/conda/lib/libstdc++.so.6.0.32" })) })),
    [],
    "conda's own libraries shared by conda programs",
  );
  // A rootkit under a plausible name in a system library directory (libprocesshider renamed, Atomic T1574.006):
  // the file exists, the library is in most programs; its path fits the file's size and shell history wrote it.
  const hider = "/usr/lib64/libdbus-helper.so.2";
  const listed = r({ file: [{ ...preload, size: String(hider.length + 1) }], process_memory_map: everywhere(hider) });
  t.ok(findings(listed).some((h) => h.severity === "high" && h.evidence.some((e) => e.table === "process_memory_map" && e.row.path === hider)), "a preloaded library in /usr/lib64 is named");
  const written = run("ld-so-preload", host({ shell_history: [{ uid: "0", command: "echo /lib/libext4fs.so >> /etc/ld.so.preload", history_file: "/root/.bash_history" }] }));
  t.ok(findings(written).some((h) => h.severity === "high" && h.summary.includes("/lib/libext4fs.so")), "history writing a library into the file");
  // Benign twin: jemalloc preloaded system-wide, libc and libz in every program: libc/libz are never named.
  const allocator = r({ file: [preload], process_memory_map: [...everywhere("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"), ...everywhere("/usr/lib/x86_64-linux-gnu/libc.so.6"), ...everywhere("/usr/lib/x86_64-linux-gnu/libz.so.1")] });
  t.same(findings(allocator), [], "jemalloc preload with libc and libz everywhere stays a note");
  t.same(run("ld-so-preload", host({ shell_history: [{ uid: "0", command: "cat /etc/ld.so.preload", history_file: "/root/.bash_history" }] })), [], "reading the file is not writing it");
});

test("fake-kernel-thread variants", async (t) => {
  const p = (name: string, path: string, cmdline: string, parent = "1") => run("fake-kernel-thread", host({ processes: [proc(77, name, path, cmdline, { parent })] }));
  t.equal(findings(p("kswapd0", "/root/.configrc/a/kswapd0", "./kswapd0"))[0]?.severity, undefined, "Outlaw's kswapd0 miner (default high)");
  t.equal(findings(p("sshd", "/usr/local/bin/sshd", "[kthreadd]")).length, 1, "argv [kthreadd]");
  t.equal(findings(p("x", "/dev/shm/x", "[jbd2/sda1-8]")).length, 1, "argv jbd2");
  t.equal(findings(p("kworker/0:1", "/var/tmp/.k", "kworker"))[0]?.entity, "pid:77", "name-only kworker with a binary");
  t.equal(findings(p("x", "", "[ksoftirqd/0]", "1"))[0]?.severity, "medium", "unreadable exe but parent is not kthreadd");
  t.equal(findings(p("x", "/usr/bin/x", "[cpu/0]"))[0]?.severity, "medium", "generic ps-style disguise");
  t.equal(findings(p("watchdogd", "/tmp/watchdogd", "watchdogd")).length, 1, "ambiguous name from a temp dir");
  t.same(p("kworker/u8:2-events_unbound", "", "", "2"), [], "real kworker");
  t.same(p("kworker/0:1", "", "[kworker/0:1]", "2"), [], "ps-style rendering of a real kernel thread");
  t.same(p("celery", "/usr/bin/python3.11", "[celeryd: celery@web-1:MainProcess] -active- (worker -A app)"), [], "celery's process title");
  t.same(p("xfs_fsr", "/usr/sbin/xfs_fsr", "/usr/sbin/xfs_fsr -t 7200"), [], "xfs userland tool");
  t.same(p("[", "/usr/bin/[", "[ -f /etc/passwd ]"), [], "the test binary");
  t.same(p("gunicorn", "/usr/bin/python3", "gunicorn: master [app]"), [], "brackets at the end");
});

test("packet-socket-backdoor variants", async (t) => {
  const p = (path: string, cmdline: string, name = path.slice(path.lastIndexOf("/") + 1), extra: Row = {}, protocol = "3") =>
    run("packet-socket-backdoor", host({ processes: [proc(55, name, path, cmdline, extra)], process_open_sockets: [{ pid: "55", family: "17", protocol }] }));
  const bpf = findings(p("/dev/shm/kdmtmpflush", "avahi-daemon: chroot helper", "kdmtmpflush", { on_disk: "0" }, "2048"));
  t.equal(bpf[0]?.known_bad, true, "BPFDoor masquerade");
  t.equal(findings(p("/usr/local/bin/haldrv", "pickup -l -t fifo -u"))[0]?.known_bad, true, "postfix pickup disguise");
  t.equal(findings(p("/usr/local/bin/qq", "qmgr -l -t fifo -u"))[0]?.severity, "high", "qmgr disguise");
  t.equal(findings(p("/var/tmp/.h/hp", "hpasmlited", "hp"))[0]?.known_bad, true, "hpasmlited disguise");
  t.equal(findings(p("/sbin/hpasmlited", "hpasmlited"))[0]?.severity, "medium", "the real HP agent name from its own binary is only an unknown packet user");
  t.equal(findings(p("/usr/sbin/dhclient", "/usr/sbin/dhclient", "dhclient", { on_disk: "0" }))[0]?.severity, "high", "a deleted dhclient is not the packaged one");
  t.equal(findings(p("/opt/app/bin/dhclient", "/opt/app/bin/dhclient"))[0]?.severity, "medium", "dhclient name from an odd directory");
  t.equal(findings(p("/usr/sbin/keepalived", "/usr/sbin/sshd -D"))[0]?.severity, "high", "argv says sshd, binary is keepalived");
  t.equal(findings(p("/usr/bin/python3.12", "/usr/bin/python3 /opt/tools/sniff.py"))[0]?.severity, "medium", "a scapy script");
  t.equal(findings(p("", "/sbin/udevd -d", "udevd"))[0]?.severity, "high", "unreadable executable");
  t.equal(p("/usr/sbin/tcpdump", "tcpdump -i any -w /tmp/x.pcap port 53")[0]?.kept_by, "packet-socket-programs:capture");
  t.equal(p("/usr/bin/dumpcap", "/usr/bin/dumpcap -n -i - -Z none")[0]?.kept_by, "packet-socket-programs:capture");
  t.equal(p("/usr/bin/suricata", "/usr/bin/suricata -c /etc/suricata/suricata.yaml --af-packet")[0]?.kept_by, "packet-socket-programs:ids");
  t.equal(p("/opt/zeek/bin/zeek", "/opt/zeek/bin/zeek -i af_packet::eth0 local")[0]?.kept_by, "packet-socket-programs:ids");
  t.equal(p("/bin/busybox", "udhcpc -i eth0", "udhcpc")[0]?.kept_by, "packet-socket-programs:udhcpc");
  t.equal(p("/speaker", "/speaker --port=7472 --log-level=info")[0]?.kept_by, "packet-socket-programs:l2-announcers");
  t.equal(p("/usr/sbin/NetworkManager", "/usr/sbin/NetworkManager --no-daemon")[0]?.kept_by, "packet-socket-programs:networkmanager");
  t.equal(p("/usr/sbin/ptp4l", "/usr/sbin/ptp4l -f /etc/ptp4l.conf -2 -i eth1")[0]?.kept_by, "packet-socket-programs:ptp");
  t.same(run("packet-socket-backdoor", host({ processes: [proc(55, "x", "/tmp/x")], process_open_sockets: [{ pid: "55", family: "2", protocol: "6" }] })), [], "an IPv4 socket is not a packet socket");
});
