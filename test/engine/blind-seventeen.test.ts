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

test("Python's multiprocessing workers of a web app are its own, nothing else on the line", async (t) => {
  const uvicorn = proc(1118, "uvicorn", "/usr/bin/python3.10", "/usr/bin/python3 /usr/local/bin/uvicorn app:api --workers 2", { uid: "998" });
  const child = (cmdline: string, path = "/usr/bin/python3.10") => findings("webshell-shell-spawn", host({ processes: [uvicorn, proc(1136, "python3", path, cmdline, { parent: "1118", uid: "998" })] }));
  t.same(child("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork"), []);
  t.same(child("/usr/bin/python3 -c from multiprocessing.resource_tracker import main;main(4)"), []);
  t.equal(child("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(pipe_handle=7) --multiprocessing-fork; import os; os.system('id')").length, 1, "more on the line");
  t.equal(child("/tmp/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork", "/tmp/python3").length, 1, "another interpreter than the app's");
});

test("live-patch and tracing modules are their tool's only when the tool is on the host", async (t) => {
  const kmod = (name: string, tables: Record<string, Row[]> = {}) => all("unexpected-kernel-module", host({ kernel_modules: [{ name, status: "Live", used_by: "-" }], ...tables })).find((h) => h.entity === `kmod:${name}`);
  t.equal(kmod("ksplice_7t2ld9ah", { rpm_packages: [{ name: "uptrack", version: "1.2.91" }] })?.kept_by, "kmod:ksplice");
  t.equal(kmod("kpatch_5_14_0_427_37_1_1_3", { rpm_packages: [{ name: "kpatch", version: "0.9.7" }] })?.kept_by, "kmod:kpatch");
  t.equal(kmod("lkp_Ubuntu_5_15_0_126_139_generic_119", { processes: [proc(5, "canonical-livep", "/snap/canonical-livepatch/282/canonical-livepatchd")] })?.kept_by, "kmod:canonical-livepatch");
  t.equal(kmod("stap_5b1a6e2e5c3f4a6a9d8f0e2b1c3d4e5f_18842", { processes: [proc(6, "staprun", "/usr/bin/staprun")] })?.kept_by, "kmod:systemtap");
  t.equal(kmod("kpatch_5_14_0_427_37_1_1_3")?.kept_by, undefined, "a kpatch-shaped name without kpatch");
  t.equal(kmod("kpatch_x", { rpm_packages: [{ name: "kpatch", version: "0.9.7" }] })?.kept_by, undefined, "the shape is kpatch's build's, not any suffix");
  t.equal(kmod("mst_pciconf")?.kept_by, "kmod:mellanox-mft");
});

test("LiME loaded as its documentation says is an observation; its kernel listener is its own", async (t) => {
  const insmod = proc(1501, "insmod", "/usr/bin/kmod", "insmod /tmp/ir/lime-5.15.0-126-generic.ko path=tcp:4444 format=lime");
  const h = host({ kernel_modules: [{ name: "lime", status: "Live", used_by: "-" }], processes: [insmod], listening_ports: [{ pid: "-1", port: "4444", protocol: "6", family: "2", address: "0.0.0.0" }] });
  const mods = all("unexpected-kernel-module", h);
  t.equal(mods.find((x) => x.entity === "kmod:lime" && x.evidence.some((e) => e.table === "kernel_modules"))?.severity, "info");
  t.notOk(mods.some((x) => /not in the loaded module list/.test(x.summary)), "lime-5.15.0-126-generic.ko is the loaded lime");
  t.equal(all("unexpected-listener", h)[0]?.severity, "info");
  const hidden = all("unexpected-kernel-module", host({ kernel_modules: [{ name: "lime" }], shell_history: [{ uid: "0", command: "insmod /tmp/x/limeade.ko", history_file: "/root/.bash_history" }] }));
  t.ok(hidden.some((x) => /limeade: .*not in the loaded module list/.test(x.summary)), "a module file whose module is not loaded stays what it was");
  const other = all("unexpected-listener", host({ kernel_modules: [{ name: "lime" }], processes: [insmod], listening_ports: [{ pid: "-1", port: "4445", protocol: "6", family: "2", address: "0.0.0.0" }] }));
  t.not(other[0]?.severity, "info", "a kernel listener on another port");
});

test("NixOS runs system daemons from their packages' store paths", async (t) => {
  const store = "/nix/store/2sfvnvpkgwb8pfq9ww0vmbrdd6qv0m8m-systemd-255.6";
  const masq = (name: string, path: string) => findings("process-masquerading", host({ processes: [proc(350, name, path, path)] }));
  t.same(masq("systemd-journal", `${store}/lib/systemd/systemd-journald`), []);
  t.same(masq("systemd", `${store}/lib/systemd/systemd`), []);
  t.same(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-openssh-9.7p1/bin/sshd"), []);
  t.equal(masq("sshd", "/nix/store/9w1q8bg1wkv2rn6z4cfsnsv0lqw3h8b1-xmrig-6.21.0/bin/sshd").length, 1, "another package's store path");
  t.equal(masq("systemd-journal", "/nix/var/x/systemd-journald").length, 1, "outside the store");
  const unit = findings("suspicious-systemd-unit", host({ systemd_units: [{ id: "systemd-timesyncd.service", fragment_path: "/etc/systemd/system/systemd-timesyncd.service", active_state: "active", sub_state: "running" }], augeas: [{ path: "/etc/systemd/system/systemd-timesyncd.service", node: "/files/etc/systemd/system/systemd-timesyncd.service/Service/ExecStart/command", value: `${store}/lib/systemd/systemd-timesyncd`, label: "command" }] }));
  t.same(unit, [], "a unit running systemd's program from its store path");
});

test("openSUSE's setuid unix2_chkpwd", async (t) => {
  const suid = (path: string) => findings("unexpected-suid", host({ suid_bin: [{ path, username: "root", groupname: "shadow", permissions: "S" }] }));
  t.same(suid("/usr/sbin/unix2_chkpwd"), []);
  t.equal(suid("/usr/local/sbin/unix2_chkpwd").length, 1);
});

test("a container's own service listening inside it is inventory; a shell there is not", async (t) => {
  const inside = { cgroup_path: "/system.slice/docker-3f2a9c1b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4.scope", root: "/var/lib/docker/overlay2/abc/merged", uid: "1000" };
  const listen = (p: Row, port: number) => all("unexpected-listener", host({ processes: [p], listening_ports: [{ pid: String(p.pid), port: String(port), protocol: "6", family: "2", address: "0.0.0.0" }] }))[0];
  t.equal(listen(proc(960, "node", "/usr/local/bin/node", "node dist/server.js", inside), 8080)?.severity, "info");
  t.match(listen(proc(960, "node", "/usr/local/bin/node", "node dist/server.js", inside), 8080)?.summary, /inside a container/);
  t.equal(listen(proc(961, "nc", "/usr/bin/nc", "nc -lvp 9001 -e /bin/sh", inside), 9001)?.severity, "high", "a netcat inside a container");
  t.equal(listen(proc(962, "node", "/usr/local/bin/node", "node dist/server.js", { uid: "1000" }), 8080)?.severity, undefined, "the same on the host keeps the default");
});
