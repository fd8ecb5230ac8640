// Programs run from directories that hold configuration, logs, spools, mail or boot files and never executables:
// BRICKSTORM's /etc/sysconfig/<name> on vCenter, Kaiji's /etc/<digits>. Scripts an interpreter runs from /etc
// (init scripts, dispatcher hooks) are ordinary and stay quiet.
import { test } from "tap";
import { getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData } from "../../shared/engine/index.js";
import { programlessDir } from "../../shared/engine/detections/exec-from-tmp.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const hits = (h: HostData): DetectionHit[] => getDetection("exec-from-tmp")?.evaluate(h, NO_ENTITIES) ?? [];

test("an executable under /etc, /var/log, /boot or a lost+found is a finding that names the directory's purpose", async (t) => {
  const h = hits(host({ processes: [proc(41, "vmware-sps", "/etc/sysconfig/vmware-sps", "/etc/sysconfig/vmware-sps")] }));
  t.equal(h.length, 1);
  t.equal(h[0]?.kept_by, undefined);
  t.match(h[0]?.summary, /\/etc\/ holds host-specific configuration, not programs/);
  for (const path of ["/etc/32678", "/var/log/audit/auditd-helper", "/boot/grub/update", "/var/spool/cron/crontabs/run", "/srv/data/lost+found/#1234"]) {
    t.equal(hits(host({ processes: [proc(42, "x", path, path)] })).length, 1, path);
  }
});

test("interpreters running scripts from /etc, and programs in their own directories, stay quiet", async (t) => {
  t.same(hits(host({ processes: [
    proc(1, "sh", "/usr/bin/dash", "/bin/sh /etc/init.d/vmware-tools start"),
    proc(2, "nm-dispatcher", "/usr/libexec/nm-dispatcher", "/usr/libexec/nm-dispatcher"),
    proc(3, "bash", "/usr/bin/bash", "/bin/bash /etc/NetworkManager/dispatcher.d/10-ifcfg"),
    proc(4, "java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -jar /opt/app/app.jar"),
    proc(5, "vpxd", "/usr/lib/vmware-vpx/vpxd", "/usr/lib/vmware-vpx/vpxd"),
  ] })), []);
});

test("programlessDir: only whole directory prefixes", async (t) => {
  t.equal(programlessDir("/etc/x"), "/etc/");
  t.equal(programlessDir("/etcetera/x"), undefined);
  t.equal(programlessDir("/usr/share/docker/x"), undefined);
  t.equal(programlessDir("/mnt/disk/lost+found/x"), "/lost+found/");
  t.equal(programlessDir("/usr/bin/lost+foundling"), undefined);
});

test("a FlexVolume driver the kubelet runs from its plugin directory under /etc is a note; the same path otherwise is not", async (t) => {
  const driver = "/etc/kubernetes/kubelet-plugins/volume/exec/nodeagent~uds/uds";
  const run = (path: string, cmdline: string, parent: string) =>
    hits(host({ processes: [{ ...proc(900, parent, `/usr/bin/${parent}`, `/usr/bin/${parent} --config=/etc/kubernetes/kubelet.conf`), parent: "1" }, { ...proc(901, "uds", path, cmdline), parent: "900" }] }));
  const kept = run(driver, `${driver} mount /var/lib/kubelet/pods/x/volumes/nodeagent~uds/y {}`, "kubelet");
  t.equal(kept.length, 1);
  t.equal(kept[0]?.kept_by, "k8s:flexvolume-driver");
  t.equal(run(driver, `${driver} mount /x {}`, "bash")[0]?.kept_by, undefined, "not run by the kubelet");
  const fromShm = hits(host({ processes: [{ ...proc(900, "kubelet", "/dev/shm/kubelet", "/dev/shm/kubelet"), parent: "1" }, { ...proc(901, "uds", driver, `${driver} mount /x {}`), parent: "900" }] }));
  t.equal(fromShm.find((h) => h.entity === "pid:901")?.kept_by, undefined, "a parent named kubelet that is not the kubelet's file");
  t.equal(run(driver, `${driver} -c 198.51.100.7:443`, "kubelet")[0]?.kept_by, undefined, "no driver API verb");
  const other = "/etc/kubernetes/kubelet-plugins/volume/exec/nodeagent~uds/kworker";
  t.equal(run(other, `${other} init`, "kubelet")[0]?.kept_by, undefined, "a file not named for its driver directory");
  t.equal(run("/etc/kubernetes/kubelet-plugins/volume/exec/x~y/y/z", "/etc/kubernetes/kubelet-plugins/volume/exec/x~y/y/z init", "kubelet")[0]?.kept_by, undefined, "deeper than the layout");
});
