// What an address or path named in a question is: a loopback address is on every host, a host's own address names
// the host, an inside address is a lead, a directory is a place to look. Only an outside address, or the very path,
// is an indicator alerting on its own (the twelfth blind corpus: 127.0.0.1 in /etc/hosts was a high finding).
import { test } from "tap";
import { extractEntities, getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

function ioc(h: HostData, question: string): DetectionHit[] {
  const d = getDetection("ioc-match");
  if (!d) throw new Error("no ioc-match");
  return d.evaluate(h, { entities: extractEntities(question) });
}
const sev = (hits: DetectionHit[]): string[] => hits.map((x) => x.severity ?? "medium");

test("a loopback address counts only as a login's source", async (t) => {
  const everywhere = host({ etc_hosts: [{ address: "127.0.0.1", hostnames: "localhost" }], shell_history: [{ uid: "0", command: "redis-cli -h 127.0.0.1 ping", history_file: "/root/.bash_history" }] });
  t.same(ioc(everywhere, "is anything listening on 127.0.0.1:48101?"), []);
  const login = host({ last: [{ username: "root", host: "127.0.0.1", tty: "pts/0", type: "7", time: "1731900000" }] });
  t.same(sev(ioc(login, "root logged in from 127.0.0.1, how?")), ["medium"]);
});

test("the host's own address names the host; another inside address is a lead; an outside one an indicator", async (t) => {
  const sat = host({
    etc_hosts: [{ address: "10.40.0.12", hostnames: "mon-sat-02" }],
    process_open_sockets: [sock(12, "10.40.0.11", 5665, { local_address: "10.40.0.12" })],
  }, {}, "agent-sat", "mon-sat-02.mon.corp.example");
  t.same(sev(ioc(sat, "is someone sweeping SNMP from 10.40.0.12?")), ["info"]);
  const peer = host({ process_open_sockets: [sock(13, "10.40.0.12", 40001, { local_address: "10.40.0.11" })] }, {}, "agent-ici", "mon-icinga-01");
  t.same(sev(ioc(peer, "is someone sweeping SNMP from 10.40.0.12?")), ["medium"], "a connection with it is something the host met");
  const keyed = host({ authorized_keys: [{ uid: "1002", key: "AAAA", options: 'from="10.40.0.11,10.40.0.12"', comment: "nagios" }] }, {}, "agent-db", "db-pg-21");
  const lead = ioc(keyed, "is someone sweeping SNMP from 10.40.0.12?");
  t.same(sev(lead), ["low"]);
  t.match(lead[0]?.summary ?? "", /inside address 10\.40\.0\.12/);
  const forged = host({ etc_hosts: [{ address: "203.0.113.7", hostnames: "web01 web01.cdn-edge.net" }], processes: [proc(16, "x", "/usr/bin/x")], process_open_sockets: [sock(16, "203.0.113.7", 443)] }, {}, "agent-w", "web01");
  t.same(sev(ioc(forged, "any traffic to 203.0.113.7?")), ["medium"], "/etc/hosts naming the host cannot make an address its own");
  t.same(sev(ioc(host({ processes: [proc(17, "x", "/usr/bin/x")], process_open_sockets: [sock(17, "100.101.102.103", 443)] }), "any traffic to 100.101.102.103?")), ["medium"], "a CGNAT (tailnet) address is no inside host");
  const c2 = host({ processes: [proc(14, "x", "/tmp/x")], process_open_sockets: [sock(14, "185.220.101.4", 443)] });
  t.same(sev(ioc(c2, "any traffic to 185.220.101.4?")), ["medium"]);
  t.same(sev(ioc(host({ process_open_sockets: [sock(15, "169.254.169.254", 80)] }), "who talks to 169.254.169.254?")), ["info"], "the metadata address stays an observation");
});

test("a directory named is a place to look; the very path named is the indicator", async (t) => {
  const ray = host({ processes: [proc(20, "raylet", "/home/mlops/.venv/bin/raylet", "/home/mlops/.venv/bin/raylet --session-dir=/tmp/ray/session_1")] });
  t.same(sev(ioc(ray, "why are executables running out of /home/mlops and /tmp/ray?")), ["info", "info"]);
  const dashboard = host({ processes: [proc(23, "python", "/home/mlops/.venv/bin/python", "/home/mlops/.venv/bin/python dashboard.py --temp-dir=/tmp/ray --log-dir=/tmp/ray/session_1/logs")], process_envs: [{ pid: "23", key: "HOME", value: "/home/mlops" }] });
  t.same(sev(ioc(dashboard, "why are executables running out of /home/mlops and /tmp/ray?")), ["info", "info"], "a directory named as a word of a command is still a directory");
  t.same(sev(ioc(host({ processes: [proc(24, "kinsing", "/tmp/kinsing", "/tmp/kinsing")] }), "is /tmp/kinsing running anywhere?")), ["low"], "a file at the path named");
  const implant = host({ processes: [proc(21, "k", "/tmp/.k/kworkerd", "/tmp/.k/kworkerd -c /tmp/.k/cfg")] });
  t.same(sev(ioc(implant, "is /tmp/.k/kworkerd running anywhere?")), ["low"], "a file at the path named");
  const history = host({ shell_history: [{ uid: "0", command: "chmod +x /dev/shm/.x; /dev/shm/.x &", history_file: "/root/.bash_history" }] });
  t.same(sev(ioc(history, "did anyone run /dev/shm/.x?")), ["low"], "a command naming the path itself");
  const hidden = host({ processes: [proc(22, "x", "/usr/lib/.x11/agent", "/usr/lib/.x11/agent -d")] });
  t.same(sev(ioc(hidden, "anything running out of /usr/lib/.x11?")), ["low"], "a hidden directory named stays an indicator");
});

test("a port named: connections out to an outside address on it; common ports and inside peers are not indicators", async (t) => {
  const beacon = host({ processes: [proc(80, "solr-metrics", "/var/solr/data/.m/solr-metrics")], process_open_sockets: [sock(80, "91.208.197.40", 8888)] });
  const hits = ioc(beacon, "hunt for Sliver implants beaconing over mTLS on port 8888");
  t.same(sev(hits), ["low"]);
  t.ok(hits[0]?.evidence.some((e) => e.table === "processes"), "the process holding it");
  t.same(ioc(host({ process_open_sockets: [sock(81, "10.0.0.9", 8888)] }), "anything talking on port 8888?"), [], "an inside peer");
  t.same(ioc(host({ process_open_sockets: [sock(82, "93.184.216.34", 443)] }), "anything beaconing on port 443?"), [], "the web's port names every client");
});
