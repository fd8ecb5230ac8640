// What the eighteenth blind corpus taught and what a code review of the seventeenth's changes found, each beside the
// form that stays a finding: whole-review questions, persistence and C2 questions that see a running implant, a
// systemd-named listener no systemd ships, a key taken from another account's home, admin roles' SSH and RDP; and
// the exemptions of the seventeenth that had no test of their own (guacd, act_runner, libsandbox, Portage's builds).
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const all = (id: string, h: HostData): DetectionHit[] => getDetection(id)?.evaluate(h, NO_ENTITIES) ?? [];
const alerts = (id: string, h: HostData): DetectionHit[] => all(id, h).filter((x) => x.kept_by === undefined && x.severity !== "info");
const routes = (q: string): string[] => routeQuery(q, "standard").detection_ids;

test("routing: a whole review sweeps, persistence and C2 questions see a running implant, narrow words stay narrow", async (t) => {
  t.ok(routeQuery("Give me a health check of the outbound mail relays from a security standpoint.", "standard").sweep, "a health check is a whole review");
  t.ok(routes("Check the edge gateways for persistence mechanisms that survive reboot.").includes("fake-kernel-thread"), "sedexp's [kdevtmpfs]");
  t.ok(routes("Is there malware using Discord as command and control on the desktops?").includes("hidden-system-path-exec"), "DISGOMOJI in a dot directory");
  t.ok(routeQuery("We got hit by a phishing email; is the mail server ok?", "standard").sweep, "'hit by' alone is no exploit");
  t.ok(routeQuery("Which child processes did the backup job start?", "standard").sweep);
  const unknown = routes("Is CVE-2016-5195 being used on the build hosts?");
  t.ok(unknown.includes("unexpected-suid") && unknown.includes("webshell-shell-spawn"), "a CVE with no version check here: local and remote traces both");
});

test("a listener named like a systemd program no systemd release installs is no package's (Panchan's systemd-worker)", async (t) => {
  const listen = (path: string) => all("unexpected-listener", host({ processes: [proc(9, path.split("/").pop()?.slice(0, 15) ?? "", path)], listening_ports: [{ pid: "9", port: "1919", protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.equal(listen("/usr/bin/systemd-worker")?.severity, undefined, "the default, not info");
  t.match(listen("/usr/bin/systemd-worker")?.summary, /no systemd release installs/);
  t.equal(listen("/usr/bin/systemd-socket-activate")?.severity, "info", "systemd's own tool from its package");
});

test("an SSH key from another account's home is taken from it, on an admin host too (SSH-Snake)", async (t) => {
  const users: Row[] = [{ uid: "1500", username: "mlopez", directory: "/home/mlopez" }, { uid: "1600", username: "svc-backup", directory: "/home/svc-backup" }];
  const snake = proc(61200, "bash", "/usr/bin/bash", "bash /dev/shm/.s/snake.sh", { uid: "1600" });
  const ssh = (uid: string, key: string) => proc(61252, "ssh", "/usr/bin/ssh", `ssh -oStrictHostKeyChecking=no -oBatchMode=yes -i ${key} mlopez@10.20.4.7 id`, { uid, parent: "61200" });
  const run = (uid: string, key: string) => all("lateral-admin-connection", host({ users, processes: [snake, ssh(uid, key)], process_open_sockets: [sock(61252, "10.20.4.7", 22)] }, { role: "bastion" }));
  const taken = run("1600", "/home/mlopez/.ssh/id_ed25519");
  t.match(taken[0]?.summary, /in mlopez's ~\/.ssh, not its own account's/);
  t.ok(taken[0]?.evidence.some((e) => e.row === snake), "what started it is in the evidence");
  t.same(run("1500", "/home/mlopez/.ssh/id_ed25519"), [], "a person's own key from a bastion");
});

test("SSH and RDP from hosts whose role is to reach the servers (automation, helpdesk, workstations)", async (t) => {
  const pdsh = proc(5201, "ssh", "/usr/bin/ssh", "ssh -oConnectTimeout=10 -oBatchMode=yes -2 -a -x -lops node001 uptime", { uid: "1000" });
  const from = (role: string) => alerts("lateral-admin-connection", host({ processes: [pdsh], process_open_sockets: [sock(5201, "10.5.20.1", 22)] }, { role }));
  t.same(from("automation"), []);
  t.same(from("helpdesk"), []);
  t.equal(from("web").length, 1, "from a web server");
});

test("what a code review found in the seventeenth's changes", async (t) => {
  // A web server's cgroup stands in for a parent only when the real one is gone (reparented to init).
  const unicorn = proc(900, "ruby", "/opt/gitlab/embedded/bin/ruby", "puma 6.4.0 (unix:///var/opt/gitlab/gitlab-rails/sockets/gitlab.socket) [gitlab-puma-worker]", { cgroup_path: "/system.slice/gitlab-runsvdir.service", uid: "998" });
  const runsv = proc(920, "runsv", "/opt/gitlab/embedded/bin/runsv", "runsv gitlab-workhorse", { cgroup_path: "/system.slice/gitlab-runsvdir.service" });
  const run = proc(930, "sh", "/bin/sh", "/bin/sh ./run", { parent: "920", cgroup_path: "/system.slice/gitlab-runsvdir.service" });
  t.same(alerts("webshell-shell-spawn", host({ processes: [unicorn, runsv, run] })), [], "runsv, alive, started it");
  // The boot-twice signal is about programs, not the interpreters many units and jobs share.
  const unit = { path: "/etc/systemd/system/bot.service", node: "/files/etc/systemd/system/bot.service/Service/ExecStart/command", value: "/usr/bin/python3 /opt/bot/main.py", label: "command" };
  t.same(alerts("suspicious-cron", host({ augeas: [unit], crontab: [{ event: "@reboot", command: "/usr/bin/python3 /home/pi/other.py", path: "/var/spool/cron/crontabs/pi" }] })), []);
  // Inline code with its flag attached, as the agent reports it (argv joined by spaces: no quotes).
  const perl = proc(60, "perl", "/usr/bin/perl", "/usr/bin/perl -MIO::Socket -e$s=IO::Socket::INET->new(LocalPort=>10000) /usr/share/webmin/miniserv.pl");
  const inline = all("unexpected-listener", host({ processes: [perl], listening_ports: [{ pid: "60", port: "10000", protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.equal(inline?.severity, "high");
  t.equal(inline?.kept_by, undefined, "not Webmin's: the script is inline code");
  // A program loose in a base directory only right under a home.
  const loose = (path: string) => alerts("hidden-system-path-exec", host({ processes: [proc(31, "x", path, path)] }));
  t.same(loose("/opt/app/node_modules/.cache/esbuild"), [], "a build tree's .cache");
  t.same(loose("/root/proj/.cache/x"), [], "a project's, not root's home");
  t.equal(loose("/var/www/.config/x").length, 1, "a service account's home");
  // A module file lying about is not a loaded module by its name's prefix; insmod's is.
  const files = all("unexpected-kernel-module", host({ kernel_modules: [{ name: "ext4" }], file: [{ path: "/var/tmp/.x/ext4-5.10.0.ko", mode: "0644", size: "1000", mtime: "1" }] }));
  t.ok(files.some((x) => /ext4-5\.10\.0: .*not in the loaded module list/.test(x.summary)), "a .ko file named like a loaded module");
  // privileged-container's suspicion keeps the runtimes' every cgroup (rootful Podman under machine.slice).
  const podman = proc(70, "bash", "/usr/bin/bash", "chroot /host bash", { cgroup_path: "/machine.slice/libpod-0123456789abcdef0123.scope" });
  const escape = all("privileged-container", host({ processes: [podman], docker_containers: [{ id: "0123456789abcdef0123", name: "/x", image: "alpine", privileged: "1", pid: "70" }] }));
  t.ok(escape.length > 0, "still seen from inside a container");
});

test("the seventeenth's exemptions with no test of their own, each beside the form that stays a finding", async (t) => {
  const guacd = (path: string) => alerts("lateral-admin-connection", host({ processes: [proc(1110, "guacd", path, `${path} -f -b 127.0.0.1 -l 4822`, { uid: "998" })], process_open_sockets: [sock(1110, "10.150.30.21", 3389)] }));
  t.same(guacd("/usr/sbin/guacd"), []);
  t.equal(guacd("/tmp/guacd").length, 1);
  const runner = (image: string) => alerts("docker-socket-mount", host({ docker_containers: [{ id: "8259f6a69bfc", name: "/gitea-runner", image, privileged: "0" }], docker_container_mounts: [{ id: "8259f6a69bfc", source: "/var/run/docker.sock", destination: "/var/run/docker.sock", rw: "1", type: "bind" }] }));
  t.same(runner("gitea/act_runner:0.2.10"), []);
  t.equal(runner("someone/act_runner:latest").length, 1, "another image of the same name");
  const preload = (value: string) => alerts("ld-preload", host({ processes: [proc(2380, "sandbox", "/usr/bin/sandbox", "sandbox /usr/lib/portage/python3.12/ebuild.sh compile")], process_envs: [{ pid: "2380", key: "LD_PRELOAD", value }] }));
  t.same(preload("libsandbox.so"), []);
  t.equal(preload("/tmp/libsandbox.so").length, 1, "the same name from /tmp");
  const build = (uid: string) => alerts("exec-from-tmp", host({ processes: [proc(2440, "buildtest_c_ev", "/var/tmp/portage/dev-libs/openssl-3.2.1-r1/work/openssl-3.2.1/test/buildtest_c_evp", "test/buildtest_c_evp", { uid })] }));
  t.same(build("250"), [], "the portage user's build");
  t.equal(build("1000").length, 1, "anyone else's program in that layout");
});

test("root with a person's key is medium (sudo ssh -i ~/.ssh/id); another account with it high", async (t) => {
  const users: Row[] = [{ uid: "1500", username: "mlopez", directory: "/home/mlopez" }, { uid: "1600", username: "svc-backup", directory: "/home/svc-backup" }];
  const ssh = (uid: string) => proc(7, "ssh", "/usr/bin/ssh", "ssh -i /home/mlopez/.ssh/id_ed25519 mlopez@10.20.4.7", { uid });
  t.equal(all("lateral-admin-connection", host({ users, processes: [ssh("0")] }, { role: "bastion" }))[0]?.severity, "medium");
  t.equal(all("lateral-admin-connection", host({ users, processes: [ssh("1600")] }, { role: "bastion" }))[0]?.severity, "high");
});

test("what a review of the eighteenth's changes found", async (t) => {
  // Whose key: the longest home's ~/.ssh, the account's own home never, system homes never, paths resolved.
  const users: Row[] = [
    { uid: "0", username: "root", directory: "/root" },
    { uid: "11", username: "operator", directory: "/root" },
    { uid: "0", username: "sys", directory: "/dev" },
    { uid: "33", username: "www-data", directory: "/var/www" },
    { uid: "1200", username: "app", directory: "/var/www/app" },
    { uid: "1500", username: "mlopez", directory: "/home/mlopez" },
  ];
  const key = (uid: string, cmdline: string) => all("lateral-admin-connection", host({ users, processes: [proc(7, "ssh", "/usr/bin/ssh", cmdline, { uid })] }, { role: "bastion" }));
  t.same(key("0", "ssh -i /root/.ssh/id_rsa backup@10.0.0.9"), [], "root's own key, though operator shares /root");
  t.same(key("1200", "ssh -i /var/www/app/.ssh/id_ed25519 git@10.0.0.9"), [], "an account's own key under another's home prefix");
  t.equal(key("1200", "ssh -i /home//mlopez/.ssh/id_ed25519 mlopez@10.0.0.9").length, 1, "a doubled slash");
  t.equal(key("1200", "ssh -i ~mlopez/.ssh/id_ed25519 mlopez@10.0.0.9").length, 1, "~user, which ssh expands");
  t.equal(key("1200", "ssh -oIdentityFile /home/mlopez/.ssh/id_ed25519 mlopez@10.0.0.9").length, 1, "IdentityFile with a space");
  t.same(all("lateral-admin-connection", host({ users, processes: [proc(8, "rsync", "/usr/bin/rsync", "rsync -i /home/mlopez/ 10.0.0.9:/backup/")] }, { role: "bastion" })), [], "rsync's -i itemizes");
  // The client roles: only the system's clients are the host's job.
  const client = (path: string, cmdline: string) => alerts("lateral-admin-connection", host({ processes: [proc(9, path.split("/").pop() ?? "", path, cmdline, { uid: "1000" })], process_open_sockets: [sock(9, "10.0.8.15", 445)] }, { role: "workstation" }));
  t.equal(client("/usr/bin/python3", "python3 /opt/impacket/examples/psexec.py -hashes :aad3b corp/admin@10.0.8.15").length, 1, "impacket from a workstation");
  // Routing.
  t.notOk(routeQuery("Is everything in the crontab ok on web-07?", "standard").sweep, "'everything' names no review");
  const hinted = routes("List the child processes of the Jenkins server and any reverse shells");
  t.ok(hinted.includes("download-execute") && hinted.includes("reverse-shell"), "a hint adds the exploitation traces beside what was named");
  t.ok(routes("Do the gateways still have a foothold that would survive a reboot?").includes("exec-from-tmp"));
  // Listeners named like systemd's daemons outside systemd's directory, and socket activation handing out a shell.
  const listen = (path: string, cmdline = path) => all("unexpected-listener", host({ processes: [proc(10, path.split("/").pop()?.slice(0, 15) ?? "", path, cmdline)], listening_ports: [{ pid: "10", port: "1919", protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.equal(listen("/usr/bin/systemd-resolved")?.severity, undefined, "systemd's resolver lives in its library directory");
  t.equal(listen("/usr/bin/systemd-socket-activate", "systemd-socket-activate -l 0.0.0.0:2222 -a --inetd /bin/bash -i")?.severity, "high");
});
