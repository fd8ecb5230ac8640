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
