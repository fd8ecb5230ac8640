// What the fourteenth blind corpus taught, each beside the form that stays a finding: process titles with a bracketed
// state, framework builds in hidden directories, statd's and Oracle HTTP Server's ports, a vCenter appliance's root
// shell, peer and Barman keys on postgres, root keys taken only from inside, packet capture and replay tools, PF_RING
// and ExaNIC drivers, kernel-bypass preloads, dumpcap, Pumba, application accounts with a shell, a boot-time job from
// a hidden home directory, rclone to a personal file-sharing service, and "implant" asked of persistence.
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const all = (id: string, h: HostData): DetectionHit[] => getDetection(id)?.evaluate(h, NO_ENTITIES) ?? [];
const findings = (id: string, h: HostData): DetectionHit[] => all(id, h).filter((x) => x.kept_by === undefined);
/** Findings an analyst is alerted by: not kept by a baseline, not info. */
const alerts = (id: string, h: HostData): DetectionHit[] => findings(id, h).filter((x) => x.severity !== "info");

test("a process title with a bracketed state is no kernel thread; a kernel thread's name in brackets still is", async (t) => {
  const p = (cmdline: string) => alerts("process-masquerading", host({ processes: [proc(1, "gunicorn", "/opt/airflow/venv/bin/python3.10", cmdline)] }));
  t.same(p("[ready] gunicorn: worker [airflow-webserver]"), []);
  t.equal(p("[kworker/0:1]").length, 1, "one bracketed word alone");
  t.equal(p("[kworker/0:1] -s").length, 1, "a kernel thread's name, then more");
  t.equal(p("[ready]").length, 1, "any bracketed word alone");
  t.equal(p("[raid5wq] -c /etc/x.conf").length, 1, "a bracket followed by anything but the process's own name (gsocket's names)");
  t.equal(p("[kworker/0:1] gunicorn").length, 1, "a kernel thread's name, whatever follows");
});

test("a framework's build run from its hidden directory; another hidden directory there still counts", async (t) => {
  const run = (cmdline: string) => alerts("hidden-system-path-exec", host({ processes: [proc(2, "node", "/usr/bin/node", cmdline)] }));
  t.same(run("node /srv/storefront/.output/server/index.mjs"), []);
  t.same(run("node /srv/app/.next/standalone/server.js"), []);
  t.equal(run("node /srv/storefront/.output/x.mjs").length, 1, ".output without its server directory");
  t.equal(run("node /srv/storefront/.cache2/server/index.mjs").length, 1);
  const exe = (path: string) => alerts("hidden-system-path-exec", host({ processes: [proc(3, "kthreadx", path, path)] }));
  t.equal(exe("/usr/lib/.next/server/kthreadx").length, 1, "a program of its own there, not a script given to node");
  t.equal(run("node /root/.output/server/index.mjs").length, 1, "root's home is no application's directory");
  t.equal(findings("hidden-system-path-exec", host({ crontab: [{ event: "@reboot", command: "/root/.output/server/sshd-agent", path: "/var/spool/cron/crontabs/root" }] })).length, 1, "cron starting it");
});

test("statd on the port rpcbind gave it, Oracle HTTP Server on its defaults; elsewhere they are findings", async (t) => {
  const listener = (pid: number, port: number, name: string, path: string) =>
    host({ processes: [proc(pid, name, path, path, { uid: "0" })], listening_ports: [{ pid: String(pid), port: String(port), address: "0.0.0.0", protocol: "6" }] });
  t.same(findings("unexpected-listener", listener(3, 39611, "rpc.statd", "/sbin/rpc.statd")), []);
  t.same(findings("unexpected-listener", listener(4, 868, "rpc.statd", "/usr/sbin/rpc.statd")), []);
  t.ok(findings("unexpected-listener", listener(5, 4444, "rpc.statd", "/sbin/rpc.statd")).length > 0, "statd outside both ranges");
  t.ok(findings("unexpected-listener", listener(6, 39611, "sshd", "/usr/sbin/sshd")).length > 0, "the range is statd's alone");
  t.ok(findings("unexpected-listener", listener(9, 42391, "rpc.statd", "/usr/local/sbin/rpc.statd")).length > 0, "statd's name from another path");
  t.ok(findings("unexpected-listener", listener(10, 50050, "rpc.statd", "/opt/agent/agentd")).length > 0, "statd's name on another program");
  t.ok(findings("unexpected-listener", listener(11, 4443, "httpd.worker", "/usr/local/bin/httpd.worker")).length > 0, "OHS's name outside its ohs/bin");
  t.same(findings("unexpected-listener", listener(7, 7777, "httpd.worker", "/u01/app/oracle/middleware/ohs/bin/httpd.worker")), []);
  t.same(findings("unexpected-listener", listener(8, 34567, "hdbindexserver", "/usr/sap/HDB/HDB45/exe/hdbindexserver")), [], "SAP HANA's range");
});

test("root over SSH from inside the site on a vCenter appliance is a note; from outside, or without vpxd, a finding", async (t) => {
  const vcsa = (source: string, vpxdPath: string, rpm = true, live = false) =>
    host({
      processes: [proc(9, "vpxd", vpxdPath, vpxdPath)],
      rpm_packages: rpm ? [{ name: "VMware-vpxd", version: "8.0.3.00300" }] : [],
      last: [{ username: "root", tty: "pts/0", pid: "87", type: "7", time: "1776159000", host: source }],
      ...(live ? { logged_in_users: [{ type: "user", user: "root", tty: "pts/0", host: source, time: "1776159000", pid: "87" }] } : {}),
    });
  const inside = all("remote-root-login", vcsa("10.20.0.52", "/usr/lib/vmware-vpx/vpxd"));
  t.equal(inside.length, 1);
  t.equal(inside[0]?.kept_by, "root-admin:vcenter-appliance");
  t.equal(findings("remote-root-login", vcsa("203.0.113.7", "/usr/lib/vmware-vpx/vpxd")).length, 1, "from a public address");
  t.equal(findings("remote-root-login", vcsa("10.20.0.52", "/tmp/vpxd")).length, 1, "a vpxd anywhere else");
  t.equal(findings("remote-root-login", vcsa("10.20.0.52", "/usr/lib/vmware-vpx/vpxd", false)).length, 1, "vpxd's path without the appliance's package");
  t.equal(findings("remote-root-login", vcsa("100.64.3.9", "/usr/lib/vmware-vpx/vpxd")).length, 1, "the shared address block is not the site's");
  t.equal(findings("remote-root-login", vcsa("10.20.5.77", "/usr/lib/vmware-vpx/vpxd", true, true))[0]?.severity, "low", "a root session open now");
});

test("keys on a service account: a peer's and Barman's are notes; a person's is a finding", async (t) => {
  const keys = (rows: Row[], uid = "26", name = "postgres") =>
    findings("ssh-authorized-key", host({ users: [{ uid, username: name, shell: "/bin/bash", directory: "/var/lib/pgsql" }], authorized_keys: rows.map((r) => ({ uid, algorithm: "ssh-ed25519", key_file: "/var/lib/pgsql/.ssh/authorized_keys", options: "", ...r })) })).filter((x) => x.severity !== "info");
  const peer = keys([{ key: "AAAAC3NzaPEER", comment: "postgres@fin-pg-01" }]);
  t.equal(peer[0]?.severity, "low", "the same replication account on a peer: low, its comment is the author's to write");
  t.same(keys([{ key: "AAAAC3NzaBARMAN", comment: "barman@fin-backup-01", options: 'command="/usr/bin/barman-wal-restore",no-pty,no-port-forwarding' }]), [], "a forced command without a pty or forwarding");
  t.equal(keys([{ key: "AAAAC3NzaMK", comment: "mk@archlinux-home" }]).length, 1, "a person's key");
  t.equal(keys([{ key: "AAAAC3NzaPEER2", comment: "postgres@kali" }]).length, 1, "the account's name from an attacker distribution's default host");
  t.equal(keys([{ key: "AAAAC3NzaPTY", comment: "barman@b", options: 'command="/usr/bin/barman-wal-restore",no-port-forwarding' }]).length, 1, "a pty left on");
  t.equal(keys([{ key: "AAAAC3NzaWWW", comment: "www-data@web-02" }], "33", "www-data")[0]?.severity, undefined, "a web account is no replication peer");
  const self = findings("ssh-authorized-key", host({ users: [{ uid: "26", username: "postgres", shell: "/bin/bash", directory: "/var/lib/pgsql" }], authorized_keys: [{ uid: "26", algorithm: "ssh-ed25519", key: "AAAAC3NzaSELF", comment: "postgres@fin-pg-01", key_file: "/var/lib/pgsql/.ssh/authorized_keys", options: "" }] }, {}, "a", "fin-pg-01"));
  t.equal(self[0]?.severity, undefined, "a peer's comment naming this very host");
});

test("a root key taken only from inside the site is low; without from=, high", async (t) => {
  const root = (options: string) => findings("ssh-authorized-key", host({ users: [{ uid: "0", username: "root", shell: "/bin/bash", directory: "/root" }], authorized_keys: [{ uid: "0", algorithm: "ssh-ed25519", key: "AAAAC3NzaPROV", comment: "provisioning@cfg-01", key_file: "/root/.ssh/authorized_keys", options }] }));
  t.equal(root('from="10.30.0.0/16"')[0]?.severity, "low");
  t.equal(root("")[0]?.severity, "high");
  t.equal(root('from="10.30.0.0/16,203.0.113.0/24"')[0]?.severity, "high", "one public range in the list");
  t.equal(root('from="10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"')[0]?.severity, "high", "every private block is no restriction");
  t.equal(root('from="10.*"')[0]?.severity, "high", "nor a wildcard over one");
  t.equal(root('from="100.64.0.0/16"')[0]?.severity, "high", "the shared address block");
  t.equal(root('from="10.30.*"')[0]?.severity, "low");
});

test("packet capture and replay tools from their install directories; a capture named alike elsewhere is not one", async (t) => {
  const packet = (name: string, path: string) => findings("packet-socket-backdoor", host({ processes: [proc(11, name, path, path)], process_open_sockets: [{ pid: "11", fd: "4", socket: "1", family: "17", protocol: "3", local_port: "0", remote_port: "0" }] }));
  t.same(packet("stenotype", "/usr/bin/stenotype"), []);
  t.same(packet("capture", "/opt/arkime/bin/capture"), []);
  t.same(packet("tcpreplay", "/usr/bin/tcpreplay"), []);
  t.ok(packet("capture", "/usr/bin/capture").length > 0, "Arkime's name in a system directory");
  t.ok(packet("stenotype", "/var/tmp/stenotype").length > 0);
  t.ok(packet("stenotype", "/usr/local/sbin/stenotype").length > 0, "no package installs it in /usr/local");
});

test("PF_RING and ExaNIC drivers with the packages that build them; without, findings", async (t) => {
  const mod = (name: string, packages: Row[], table = "deb_packages") => findings("unexpected-kernel-module", host({ kernel_modules: [{ name, status: "Live", used_by: "-" }], [table]: packages }));
  t.same(mod("pf_ring", [{ name: "pfring-dkms", version: "8.6.1-8744" }]), []);
  t.same(mod("exanic", [{ name: "exanic", version: "2.7.4" }], "rpm_packages"), []);
  t.equal(mod("pf_ring", []).length, 1);
  t.match(mod("pf_ring", [])[0]?.summary ?? "", /the module lists of the Linux source and of Debian's kernels/);
});

test("kernel-bypass libraries preloaded from the system library path; from elsewhere, findings", async (t) => {
  const preload = (value: string) => findings("ld-preload", host({ processes: [proc(12, "oms-gw", "/opt/xtrade/bin/oms-gw")], process_envs: [{ pid: "12", key: "LD_PRELOAD", value }] }));
  t.same(preload("libonload.so"), []);
  t.same(preload("/usr/lib64/libvma.so"), []);
  t.equal(preload("/tmp/libonload.so").length, 1);
  t.equal(preload("/usr/local/lib/libxlio.so").length, 1, "not from /usr/local/lib");
  const sshd = (lib: string) => findings("sshd-library-backdoor", host({ processes: [proc(17, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D [listener]")], process_memory_map: [{ pid: "17", path: lib }] }));
  t.ok(sshd("/usr/local/lib/libxlio.so").length > 0, "in sshd, from /usr/local/lib");
});

test("dumpcap setuid for the wireshark group, and Pumba's runtime socket", async (t) => {
  t.same(findings("unexpected-suid", host({ suid_bin: [{ path: "/bin/dumpcap", username: "root", groupname: "wireshark", permissions: "S" }] })), []);
  t.ok(findings("unexpected-suid", host({ suid_bin: [{ path: "/usr/local/bin/dumpcap", username: "root", groupname: "wireshark", permissions: "S" }] })).length > 0);
  t.ok(findings("unexpected-suid", host({ suid_bin: [{ path: "/usr/bin/dumpcap", username: "root", groupname: "root", permissions: "S" }] })).length > 0, "dumpcap's path, root's group");
  const mount = (image: string, command = "/pumba --interval 20m --random kill re2:^orders-api$", privileged = "0") =>
    findings("docker-socket-mount", host({ docker_containers: [{ id: "c1", name: "/pumba", image, image_id: "x", command, state: "running", privileged }], docker_container_mounts: [{ id: "c1", type: "bind", source: "/var/run/docker.sock", destination: "/var/run/docker.sock", rw: "1" }] }));
  t.same(mount("gaiaadm/pumba:0.10.1"), []);
  t.ok(mount("pumba/pumba:latest").length > 0, "another repository");
  t.ok(mount("gaiaadm/pumba:0.10.1", "sh -c 'while :; do docker run --privileged -v /:/mnt alpine; done'").length > 0, "the image's name running something else");
  t.ok(mount("gaiaadm/pumba:0.10.1", "/pumba", "1").length > 0, "privileged");
});

test("a system account with a shell that runs a service is an application's account; one that runs nothing is a finding", async (t) => {
  const zeek = (processes: Row[]) => alerts("new-interactive-account", host({ users: [{ uid: "980", username: "zeek", shell: "/bin/bash", directory: "/opt/zeek" }], processes }));
  t.same(zeek([proc(13, "zeek", "/opt/zeek/bin/zeek", "/opt/zeek/bin/zeek -i eth1", { uid: "980", cgroup_path: "/system.slice/zeek.service" })]), []);
  t.equal(zeek([]).length, 1);
  t.equal(zeek([proc(14, "bash", "/usr/bin/bash", "-bash", { uid: "980", cgroup_path: "/user.slice/user-980.slice/session-4.scope" })]).length, 1, "a login session");
  t.equal(zeek([proc(15, "x", "/opt/zeek/x", "/opt/zeek/x", { uid: "980", cgroup_path: "/system.slice/cron.service" })]).length, 1, "cron's job");
  t.equal(zeek([proc(16, "x", "/opt/zeek/x", "/opt/zeek/x", { uid: "980", cgroup_path: "/system.slice/sysupd.service" })]).length, 1, "a unit not named for the account");
  const wwwData = alerts("new-interactive-account", host({ users: [{ uid: "33", username: "www-data", shell: "/bin/bash", directory: "/var/www" }], processes: [proc(19, "php-fpm8.2", "/usr/sbin/php-fpm8.2", "php-fpm: pool www", { uid: "33", cgroup_path: "/system.slice/php8.2-fpm.service" })] }));
  t.equal(wwwData.length, 1, "a packaged account given a shell, whatever it runs (PANIX)");
});

test("cron starting a program from a hidden directory: high at boot, medium otherwise; a toolchain's directory is none", async (t) => {
  const cron = (command: string, event = "", path = "/var/spool/cron/crontabs/rsharma") => findings("suspicious-cron", host({ crontab: [{ event, command, path }] }));
  t.equal(cron("/home/rsharma/.x86_64-linux-gnu/vmcoreinfo", "@reboot")[0]?.severity, "high");
  t.equal(cron("/home/rsharma/.x86_64-linux-gnu/vmcoreinfo").length, 1);
  t.same(cron("/home/rsharma/.local/bin/backup.sh", "@reboot"), []);
  t.equal(cron("root /usr/lib/.x/y", "", "/etc/cron.d/x")[0]?.severity, "high", "a system crontab, its user field skipped");
  const withHome = (command: string, event = "") => findings("suspicious-cron", host({ users: [{ username: "rsharma", directory: "/home/rsharma", uid: "1001" }], crontab: [{ event, command, path: "/var/spool/cron/crontabs/rsharma" }] }));
  t.equal(withHome("~/.x86_64-linux-gnu/vmcoreinfo", "@reboot")[0]?.severity, "high", "~ is the crontab owner's home");
  t.equal(withHome("cd $HOME/.x86_64-linux-gnu && ./vmcoreinfo", "@reboot").length, 1, "and $HOME, through a cd");
  t.same(cron("/home/linuxbrew/.linuxbrew/bin/brew update"), [], "Homebrew");
  t.same(cron("/home/alice/.dropbox-dist/dropboxd", "@reboot"), [], "Dropbox");
  t.equal(cron("/root/.scripts/rotate-logs.sh", "", "/var/spool/cron/crontabs/root")[0]?.severity, undefined, "root's own scripts on a schedule: weak, like anyone's");
});

test("rclone to a remote named for a personal file-sharing service; to other remotes it needs a dropper's signs", async (t) => {
  const rclone = (cmdline: string) => findings("staged-data-exfiltration", host({ processes: [proc(16, "rclone", "/home/mk/.local/bin/rclone", cmdline, { uid: "1003" })] }));
  t.equal(rclone("rclone copy /var/lib/pgsql/backups/adhoc mega-arch:fin-adhoc --transfers 8 -q").length, 1);
  t.equal(rclone("rclone sync /srv/share pcloud_2:team").length, 1);
  t.same(rclone("rclone sync /srv/share gdrive:team"), [], "a service many sites use for work");
  t.same(rclone("rclone copy /var/lib/pgsql/backups s3-prod:db-backups"), []);
  t.same(rclone("rclone copy /data omegastore:x"), [], "mega inside another word");
  t.same(rclone("rclone copy mega:Photos/2023 /home/mk/Pictures"), [], "a download from MEGA");
  t.same(rclone("rclone sync mega-old:archive s3-prod:archive"), [], "a migration off MEGA");
  t.same(rclone("rclone copy /srv/x yandex-s3:bucket"), [], "Yandex's object storage");
  t.equal(rclone("rclone copy /var/lib/pgsql/backups/nightly mega-arch:fin-nightly --config /home/mk/.config/rclone/rclone.conf -q").length, 1, "flags after the remote");
});

test("an implant is asked of persistence as well as of command and control", async (t) => {
  const ids = routeQuery("Is there a Discord-controlled implant on any of the BOSS Linux desktops?", "standard").detection_ids;
  t.ok(ids.includes("suspicious-cron"));
  t.ok(ids.includes("reverse-shell"));
});
