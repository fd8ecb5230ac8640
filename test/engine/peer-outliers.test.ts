// Peer comparison (shared/engine/peer-outliers.ts): a system binary whose hash is not the one its peers with the same
// package version run is a finding; a fleet mid-upgrade, or peers that disagree among themselves, is not.
import { test } from "tap";
import { routeQuery, runInvestigation, type HostData, type Row } from "../../shared/engine/index.js";
import { coverage, host } from "./helpers.js";

const SSHD = "/usr/sbin/sshd";
const pkg = (version: string): Row => ({ name: "openssh-server", version, arch: "amd64" });
const peer = (i: number, sha: string, version = "1:9.2p1-2+deb12u3"): HostData =>
  host({ hash: [{ path: SSHD, sha256: sha }], deb_packages: [pkg(version)] }, {}, `agent-${i}`, `bastion-${i}`);
const GOOD = "1".repeat(64);
const EVIL = "e".repeat(64);
const run = (hosts: HostData[]) => runInvestigation(routeQuery("has sshd been replaced with a trojanized binary?", "standard"), hosts, coverage(hosts.length), "standard");
const replaced = (hosts: HostData[]) => run(hosts).findings.filter((f) => f.detection_id === "replaced-system-binary");

test("one host's sshd differs from four peers on the same package version: a finding on that host only", async (t) => {
  const found = replaced([peer(0, GOOD), peer(1, GOOD), peer(2, EVIL), peer(3, GOOD), peer(4, GOOD)]);
  t.same(found.map((f) => f.hostname), ["bastion-2"]);
  t.match(found[0]?.summary, /4 of the 5 hosts compared with it have 1111111111111111…; no other host has this one/);
  t.ok(found[0]?.evidence.some((e) => e.table === "hash" && e.row.sha256 === EVIL), "the hash row is the evidence");
});

test("what is not an outlier: an upgraded host, peers that disagree, too few peers", async (t) => {
  t.same(replaced([peer(0, GOOD), peer(1, GOOD), peer(2, EVIL, "1:9.2p1-2+deb12u4"), peer(3, GOOD)]), [], "a new package version is compared with its own version's hosts");
  t.same(replaced([peer(0, GOOD), peer(1, "2".repeat(64)), peer(2, "3".repeat(64)), peer(3, "4".repeat(64))]), [], "no majority: local builds, nothing to say about any one");
  t.same(replaced([peer(0, GOOD), peer(1, GOOD), peer(2, EVIL)]), [], "two peers are no majority of three");
  t.same(replaced([peer(0, GOOD), peer(1, GOOD), peer(2, GOOD), peer(3, EVIL), peer(4, EVIL), peer(5, GOOD), peer(6, GOOD)]), [], "two of seven share the other hash: not rare (at most a tenth, at least one)");
});

test("a large fleet: a handful of outliers among hundreds are each reported", async (t) => {
  const hosts = Array.from({ length: 200 }, (_, i) => peer(i, [17, 99, 150].includes(i) ? EVIL : GOOD));
  t.same(replaced(hosts).map((f) => f.hostname).sort(), ["bastion-150", "bastion-17", "bastion-99"]);
});

test("hosts are compared within one distribution: Ubuntu rebuilds packages it takes from Debian at the same version", async (t) => {
  const on = (i: number, sha: string, baseFiles: string): HostData =>
    host({ hash: [{ path: SSHD, sha256: sha }], deb_packages: [pkg("1:9.2p1-2+deb12u3"), { name: "base-files", version: baseFiles, arch: "amd64" }] }, {}, `agent-${i}`, `bastion-${i}`);
  const UBUNTU = "7".repeat(64);
  const mixed = [on(0, GOOD, "12.4+deb12u11"), on(1, GOOD, "12.4+deb12u9"), on(2, GOOD, "12.4+deb12u11"), on(3, GOOD, "12.4+deb12u11"), on(4, UBUNTU, "13ubuntu10.1")];
  t.same(replaced(mixed), [], "the Ubuntu host's build is not its Debian peers' outlier");
  t.same(replaced([...mixed.slice(0, 3), on(3, EVIL, "12.4+deb12u11"), on(5, GOOD, "12.4+deb12u8")]).map((f) => f.hostname), ["bastion-3"], "point releases of one distribution are still peers");
});
