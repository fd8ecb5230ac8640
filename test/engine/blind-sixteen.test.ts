// What the sixteenth blind corpus taught first: a miner known by the wallet on its command line whatever it is called,
// and a miner posing as the pod sandbox's pause (CrowdStrike's Dero DaemonSet); then what it missed and misread in
// general terms: backdoor questions, programs loose in ~/.config, malware-only PyPI projects, panels' and SAP's ports,
// wicked's and Open vSwitch's packet sockets, Raspberry Pi OS's sudo rule on a Pi.
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { basename } from "../../shared/engine/rows.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const findings = (id: string, h: HostData): DetectionHit[] => (getDetection(id)?.evaluate(h, NO_ENTITIES) ?? []).filter((x) => x.kept_by === undefined);
test("the sixteenth blind corpus's first lessons: a miner known by its wallet, a miner posing as the pod sandbox's pause", async (t) => {
  const dero = proc(1378, "pause", "/pause", "/pause -d d.windowsupdatedev.com:10300 -w dero1qyy8xjrdjcn2dvr6pwe40jrl3evv9vam6tpx537vux60xxkx6hs7zqgde993y -t 16");
  t.equal(findings("cryptominer", host({ processes: [dero] })).length, 1, "a Dero wallet on the command line");
  const monero = `48edfHu7V9Z84YzzMa6fUueoELZ9ZRXq9VetWzYGzKt52XU5xvqgzYnDK9URnRoJMk1j8nLwEVsaSWJ4fhdUyZijBGUicoD`;
  t.equal(findings("cryptominer", host({ processes: [proc(7, "systemd-helper", "/usr/local/bin/systemd-helper", `/usr/local/bin/systemd-helper -o pool.example:443 -u ${monero} -p x`)] })).length, 1, "a Monero address, the miner renamed");
  t.same(findings("cryptominer", host({ processes: [proc(8, "app", "/usr/bin/app", `/usr/bin/app --token ${monero}x`)] })), [], "a longer token is no address");
  t.equal(findings("process-masquerading", host({ processes: [dero] })).length, 1, "/pause with arguments");
  t.same(findings("process-masquerading", host({ processes: [proc(1379, "pause", "/pause", "/pause", { uid: "65535" })] })), [], "the real pause");
});

test("the distributions' loopback names in /etc/hosts are no redirection", async (t) => {
  const hosts = (address: string, hostnames: string) => getDetection("hosts-redirection")?.evaluate(host({ etc_hosts: [{ address, hostnames }] }), NO_ENTITIES) ?? [];
  t.same(hosts("::1", "localhost localhost.localdomain localhost6 localhost6.localdomain6"), [], "RHEL's ::1 line");
  t.same(hosts("127.0.0.1", "localhost localhost.localdomain localhost4 localhost4.localdomain4"), []);
  t.equal(hosts("127.0.0.1", "localhost6.localdomain6.evil.example").length, 1, "a name that only starts like them");
});

test("a program in a directory inside a bin directory poses as one (RotaJakiro's /bin/systemd/systemd-daemon)", async (t) => {
  const masq = (path: string, name = "systemd-daemon") => findings("process-masquerading", host({ processes: [proc(900, name, path, path)] }));
  t.equal(masq("/usr/bin/systemd/systemd-daemon").length, 1);
  t.equal(masq("/bin/systemd/systemd-daemon").length, 1);
  t.equal(masq("/usr/sbin/x/y", "y").length, 1);
  t.same(masq("/usr/bin/systemd-daemon"), [], "a program right in the bin directory");
  t.same(masq("/usr/local/bin/tools/x", "x"), [], "/usr/local is the site's own");
});

const all = (id: string, h: HostData): DetectionHit[] => getDetection(id)?.evaluate(h, NO_ENTITIES) ?? [];
const listener = (p: Row, port: number, protocol = 6): DetectionHit | undefined =>
  all("unexpected-listener", host({ processes: [p], listening_ports: [{ pid: String(p.pid), port: String(port), protocol: String(protocol), family: "2", address: "0.0.0.0" }] }))[0];

test("a backdoor or an implant is asked of everything that sees one run, not only of persistence", async (t) => {
  for (const q of ["Any backdoors on the developer workstations?", "Is there an implant on these hosts?", "Could a RAT be running on the jump hosts?"]) {
    const ids = routeQuery(q, "standard").detection_ids;
    for (const id of ["hidden-system-path-exec", "process-masquerading", "fake-kernel-thread", "packet-socket-backdoor", "reverse-shell", "suspicious-systemd-unit"]) t.ok(ids.includes(id), `${q} → ${id}`);
  }
  t.notOk(routeQuery("Is anything persisting across reboots?", "standard").detection_ids.includes("packet-socket-backdoor"), "persistence alone stays the mechanisms");
});

test("a program loose in a home's XDG base directory (Lazarus' ~/.config/guiconfigd)", async (t) => {
  const run = (path: string, uid = "1000") => findings("hidden-system-path-exec", host({ processes: [proc(31, basename(path), path, path, { uid })] }));
  t.equal(run("/home/dev/.config/guiconfigd")[0]?.severity, "low");
  t.match(run("/home/dev/.config/guiconfigd")[0]?.summary, /loose in \.config under a home directory/);
  t.equal(run("/root/.local/share/updater", "0")[0]?.severity, "medium", "root's");
  t.equal(run("/home/dev/.cache/x").length, 1);
  t.same(run("/home/dev/.config/Code/bin/code"), [], "an application's own subdirectory");
  t.same(run("/home/dev/.local/bin/pipx"), [], "~/.local/bin is where per-user programs go");
  t.equal(run("/home/dev/.gvfsd/.profile/gvfsd-helper").length, 1, "RotaJakiro's per-user copy, in a dot directory of its own");
  // What an adversarial review found the first reading missed: a service account's home, paths with . and ..
  t.equal(run("/var/lib/postgresql/.cache/kinsing", "110")[0]?.severity, "medium", "a service account's home");
  t.equal(run("/home/dev/./.config/x").length, 1);
  t.equal(run("/home/dev/.config/../.config/y").length, 1);
});

test("PyPI projects that were malware from their first upload, whatever the version (fabrice)", async (t) => {
  const pkg = (name: string, version: string) => findings("malicious-package-release", host({ python_packages: [{ name, version, path: "/usr/lib/python3/dist-packages" }] }));
  t.match(pkg("fabrice", "0.2.0")[0]?.summary, /a project that was malware from its first upload/);
  t.equal(pkg("jeIlyfish", "0.7.2").length, 1, "compared as PyPI does: the capital I is an i");
  t.same(pkg("jellyfish", "0.7.2"), [], "the real one");
  t.same(pkg("fabric", "3.2.2"), []);
  t.equal(pkg("torchtriton", "3.0.0").length, 1);
  t.same(pkg("torchtriton", "2.0.0"), [], "only the dependency-confusion upload");
  t.ok(routeQuery("Did a developer pip install a typosquatted package?", "standard").detection_ids.includes("malicious-package-release"));
});

test("hosting panels, SAP NetWeaver and Dropbox on their documented ports, by their install paths", async (t) => {
  t.equal(listener(proc(41, "cpsrvd", "/usr/local/cpanel/cpsrvd", "cpsrvd (SSL) - waiting for connections"), 2087)?.kept_by, "port:cpanel");
  t.equal(listener(proc(42, "cpdavd", "/usr/local/cpanel/cpdavd", "cpdavd - accepting connections on 2077, 2078, 2079 and 2080"), 2079)?.kept_by, "port:cpanel");
  t.equal(listener(proc(43, "cpsrvd", "/tmp/cpsrvd"), 2087)?.kept_by, undefined, "the name elsewhere");
  t.equal(listener(proc(44, "disp+work", "/usr/sap/PRD/DVEBMGS00/exe/disp+work", "dw.sapPRD_DVEBMGS00 pf=/usr/sap/PRD/SYS/profile/PRD_DVEBMGS00_sap01"), 3200)?.kept_by, "port:sap-netweaver");
  t.equal(listener(proc(45, "sapstartsrv", "/usr/sap/PRD/ASCS01/exe/sapstartsrv", "sapstartsrv pf=/usr/sap/PRD/SYS/profile/PRD_ASCS01_sap01 -D"), 50113)?.kept_by, "port:sap-netweaver");
  t.equal(listener(proc(46, "sapstartsrv", "/usr/sap/hostctrl/exe/sapstartsrv", "/usr/sap/hostctrl/exe/sapstartsrv pf=/usr/sap/hostctrl/exe/host_profile -D"), 1128)?.kept_by, "port:sap-netweaver");
  t.equal(listener(proc(47, "disp+work", "/home/x/disp+work"), 3200)?.kept_by, undefined);
  t.equal(listener(proc(48, "dropbox", "/home/ana/.dropbox-dist/dropbox-lnx.x86_64-190.4.6383/dropbox"), 17500)?.kept_by, "port:dropbox-lan-sync");
  t.equal(listener(proc(49, "perl", "/usr/bin/perl", "/usr/bin/perl /usr/share/webmin/miniserv.pl /etc/webmin/miniserv.conf"), 10000)?.kept_by, "port:webmin");
  t.equal(listener(proc(50, "perl", "/usr/bin/perl", "/usr/bin/perl /dev/shm/miniserv.pl"), 10000)?.kept_by, undefined, "from a temp directory");
  // What an adversarial review found the first reading let through.
  t.equal(listener(proc(51, "dropbox", "/var/www/.dropbox-dist/dropbox-lnx.x/dropbox", "dropbox", { uid: "33" }), 17500)?.kept_by, undefined, "Dropbox only in a person's or root's home");
  t.equal(listener(proc(52, "dropbox", "/home/ana/.dropbox-dist/dropbox-lnx.x86_64-190.4.6383/dropbox (deleted)"), 17500)?.kept_by, "port:dropbox-lan-sync", "replaced by its own update while it runs");
  t.equal(listener(proc(53, "gwrd", "/usr/sap/PRD/X99/exe/gwrd", "gwrd", { uid: "1001" }), 8080)?.kept_by, undefined, "an SAP program on a port of no instance of its");
  t.equal(listener(proc(54, "gwrd", "/usr/sap/PRD/X99/exe/gwrd", "gwrd", { uid: "1001" }), 55553)?.kept_by, undefined, "Metasploit's RPC port");
  t.equal(listener(proc(55, "gwrd", "/usr/sap/PRD/DVEBMGS00/exe/gwrd", "gwrd pf=/usr/sap/PRD/SYS/profile/PRD_DVEBMGS00_sap01"), 3300)?.kept_by, "port:sap-netweaver", "the gateway of instance 00");
  t.equal(listener(proc(56, "sapstartsrv", "/sapmnt/PRD/exe/uc/linuxx86_64/sapstartsrv", "sapstartsrv pf=/usr/sap/PRD/SYS/profile/PRD_ASCS01_sap01 -D"), 50113)?.kept_by, "port:sap-netweaver", "from /sapmnt, its instance from the profile");
  t.equal(listener(proc(57, "sapstartsrv", "/usr/sap/hostctrl/exe/sapstartsrv", "sapstartsrv"), 50013)?.kept_by, undefined, "the host agent holds 1128/1129 only");
  t.equal(listener(proc(58, "perl", "/usr/bin/perl", "perl miniserv.pl"), 10000)?.kept_by, undefined, "a relative script");
  t.equal(listener(proc(59, "perl", "/var/www/html/uploads/perl", "perl /usr/share/webmin/miniserv.pl"), 10000)?.kept_by, undefined, "another perl");
  t.equal(listener(proc(60, "perl", "/usr/bin/perl", "/usr/bin/perl -MIO::Socket -e'$s=IO::Socket::INET->new(LocalPort=>10000)' miniserv.pl"), 10000)?.severity, "high", "inline code with its -e attached");
});

test("packet sockets of openSUSE's wicked DHCP supplicants and Open vSwitch", async (t) => {
  const packet = (p: Row) => findings("packet-socket-backdoor", host({ processes: [p], process_open_sockets: [{ pid: String(p.pid), fd: "4", socket: "1", family: "17", protocol: "768", local_port: "0", remote_port: "0" }] }));
  t.same(packet(proc(51, "wickedd-dhcp4", "/usr/lib/wicked/bin/wickedd-dhcp4", "/usr/lib/wicked/bin/wickedd-dhcp4 --systemd --foreground")), []);
  t.same(packet(proc(52, "ovs-vswitchd", "/usr/sbin/ovs-vswitchd", "ovs-vswitchd unix:/var/run/openvswitch/db.sock -vconsole:emer --pidfile --detach")), []);
  t.equal(packet(proc(53, "wickedd-dhcp4", "/usr/bin/wickedd-dhcp4")).length, 1, "the name outside wicked's directory");
  t.equal(packet(proc(54, "ovs-vswitchd", "/usr/local/sbin/ovs-vswitchd")).length, 1, "Open vSwitch only where packages put it");
});

test("Raspberry Pi OS's passwordless sudo for its first user, on a Pi", async (t) => {
  const pi: Row = { username: "pi", uid: "1000", shell: "/bin/bash" };
  const rule = (tables: Record<string, Row[]>, header = "pi") => all("sudoers-nopasswd-all", host({ sudoers: [{ source: "/etc/sudoers.d/010_pi-nopasswd", header, rule_details: "ALL=(ALL) NOPASSWD: ALL" }], users: [pi, { username: "www-data", uid: "33", shell: "/usr/sbin/nologin" }], ...tables }))[0];
  t.equal(rule({ deb_packages: [{ name: "raspberrypi-sys-mods", version: "20230510", status: "install ok installed" }] })?.kept_by, "raspberry-pi-os:010_pi-nopasswd");
  t.equal(rule({ kernel_modules: [{ name: "vchiq" }, { name: "bcm2835_codec" }] })?.kept_by, "raspberry-pi-os:010_pi-nopasswd", "a Pi known by its SoC's drivers");
  t.equal(rule({ deb_packages: [{ name: "openssh-server", version: "1:9.2p1-2" }] })?.kept_by, undefined, "the file name on another host");
  t.equal(rule({ deb_packages: [{ name: "raspi-config", version: "20230214" }] }, "www-data")?.kept_by, undefined, "a service account in the Pi's file is not its first user");
  t.equal(rule({ deb_packages: [{ name: "raspi-config", version: "20230214", status: "deinstall ok config-files" }] })?.kept_by, undefined, "a package removed but for its configuration");
});

test("asked about command and control, a kernel thread's or a system program's disguise answers too (SprySOCKS)", async (t) => {
  const ids = routeQuery("Is anything on the web tier beaconing to a C2?", "standard").detection_ids;
  t.ok(ids.includes("fake-kernel-thread"));
  t.ok(ids.includes("process-masquerading"));
  t.ok(ids.includes("reverse-shell"), "beside the connection's own detections");
});
