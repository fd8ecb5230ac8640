// What the sixteenth blind corpus taught first: a miner known by the wallet on its command line whatever it is called,
// and a miner posing as the pod sandbox's pause (CrowdStrike's Dero DaemonSet).
import { test } from "tap";
import { getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
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
